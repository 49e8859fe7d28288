"""Indexing composites: the out-of-place scatters into views (select_scatter, slice_scatter,
diagonal_scatter), put, and nonzero_static. The scatters are a clone written through a view, so
their gradients come from the in-place-on-view rule (Note [In-place ops on views])."""

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import ALL, NUMERIC


def _check_src(name, view, src):
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(
            f"[{name}] expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(view.shape)}"
        )


@composite("indexing", ALL, method=True)
def select_scatter(input, src, dim, index):
    """input with input.select(dim, index) replaced by src."""
    out = input.clone()
    view = out.select(dim, index)
    _check_src("select_scatter", view, src)
    view.copy_(src)
    return out


@composite("indexing", ALL, method=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with input[start:end:step] along dim replaced by src."""
    out = input.clone()
    d = dim + input.dim() if dim < 0 else dim
    index = [slice(None)] * d + [slice(start, end, step)]
    view = out[tuple(index)]
    _check_src("slice_scatter", view, src)
    view.copy_(src)
    return out


@composite("indexing", ALL, method=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with input.diagonal(offset, dim1, dim2) replaced by src."""
    out = input.clone()
    view = out.diagonal(offset, dim1, dim2)
    _check_src("diagonal_scatter", view, src)
    view.copy_(src)
    return out


@composite("indexing", ALL, method=True)
def put(input, index, source, accumulate=False):
    """input with the elements at flat positions `index` set to source (added with
    accumulate), as Tensor.put_ on a copy."""
    if index.dtype != _C.int64:
        raise RuntimeError(f"[put] put_(): Expected a long tensor for index, but got {index.dtype}")
    if index.numel() != source.numel():
        raise RuntimeError(
            f"[put] put_(): Expected source and index to have the same number of elements, but "
            f"got source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    if index.numel() and (bool((index >= n).any()) or bool((index < -n).any())):
        raise IndexError(f"[put] out of range: index out of range for a tensor of {n} elements")
    flat = input.reshape(-1).clone()
    pos = _C.remainder(index.reshape(-1), max(n, 1))
    flat = flat.index_put((pos,), source.reshape(-1).to(input.dtype), accumulate)
    return flat.reshape(input.shape)


@composite("indexing", ALL, differentiable=False, method=True)
def nonzero_static(input, *, size, fill_value=-1):
    """The first `size` indices of nonzero elements ([size, input.dim()]), padded with
    fill_value: nonzero with a fixed output size."""
    if size < 0:
        raise RuntimeError(
            f"[nonzero_static] nonzero_static: 'size' must be an non-negative "
            f"integer, but got {size}"
        )
    idx = _C.nonzero(input)
    if idx.shape[0] >= size:
        return idx[:size]
    pad = _C.full((size - idx.shape[0], idx.shape[1]), fill_value, dtype=_C.int64)
    return _C.cat([idx, pad], 0)


@composite("indexing", NUMERIC, method=True, inplace_dtypes=NUMERIC)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with the slices of source reduced into its slices index[i] along dim: "prod",
    "mean", "amax" or "amin" (scatter_reduce over index spread along dim)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"[index_reduce] reduce argument must be either prod, mean, amax or amin, got {reduce}"
        )
    if index.dim() > 1:
        raise IndexError("[index_reduce] Index is supposed to be a vector")
    d = dim % input.dim() if input.dim() else 0
    shape = [1] * source.dim()
    if source.dim():
        shape[d] = -1
    spread = index.reshape(shape).expand(source.shape)
    return input.scatter_reduce(d, spread, source, reduce, include_self=include_self)
