"""PyTorch's `*_copy` functions (torch.view_copy, torch.transpose_copy, ...): the result of a view
op as freshly allocated tensors that share no memory with the input (what PyTorch's
functionalization produces). Each is the view op followed by a contiguous clone, so gradients are
the view's. Also as_strided_scatter and Tensor.narrow_copy."""

from ember import _C


def _fresh(out):
    if isinstance(out, (tuple, list)):
        return type(out)(t.clone(memory_format=_C.contiguous_format) for t in out)
    return out.clone(memory_format=_C.contiguous_format)


def _slice(input, dim=0, start=None, end=None, step=1):
    n = input.shape[dim]
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, n if end is None else end, step)
    return input[tuple(index)]


# name -> the view op it copies.
_VIEWS = {
    "alias_copy": lambda input: input.view_as(input),
    "as_strided_copy": lambda input, size, stride, storage_offset=None: input.as_strided(
        size, stride, storage_offset
    ),
    "detach_copy": lambda input: input.detach(),
    "diagonal_copy": lambda input, offset=0, dim1=0, dim2=1: input.diagonal(offset, dim1, dim2),
    "expand_copy": lambda input, size, *, implicit=False: input.expand(*size),
    "narrow_copy": lambda input, dim, start, length: input.narrow(dim, start, length),
    "permute_copy": lambda input, dims: input.permute(*dims),
    "select_copy": lambda input, dim, index: input.select(dim, index),
    "slice_copy": _slice,
    "split_copy": lambda input, split_size, dim=0: input.split(split_size, dim),
    "split_with_sizes_copy": lambda input, split_sizes, dim=0: input.split(list(split_sizes), dim),
    "squeeze_copy": lambda input, dim=None: input.squeeze() if dim is None else input.squeeze(dim),
    "t_copy": lambda input: input.t(),
    "transpose_copy": lambda input, dim0, dim1: input.transpose(dim0, dim1),
    "unbind_copy": lambda input, dim=0: input.unbind(dim),
    "unfold_copy": lambda input, dimension, size, step: input.unfold(dimension, size, step),
    "unsqueeze_copy": lambda input, dim: input.unsqueeze(dim),
    "view_copy": lambda input, size: input.view(size),
    "view_as_real_copy": lambda input: _C.view_as_real(input),
    "view_as_complex_copy": lambda input: _C.view_as_complex(input),
}


def _make(name, view):
    def copy(*args, **kwargs):
        return _fresh(view(*args, **kwargs))

    copy.__name__ = name
    copy.__doc__ = f"{name.removesuffix('_copy')} as a fresh tensor (no memory shared)."
    return copy


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of input whose as_strided(size, stride, storage_offset) view holds src."""
    out = input.clone(memory_format=_C.contiguous_format)
    out.as_strided(size, stride, storage_offset).copy_(src)
    return out


def install(namespace):
    for name, view in _VIEWS.items():
        namespace.setdefault(name, _make(name, view))
    namespace.setdefault("as_strided_scatter", as_strided_scatter)
    for name in ("narrow_copy", "as_strided_scatter"):
        if not hasattr(_C.Tensor, name):
            setattr(_C.Tensor, name, namespace[name])
