"""Shape composites: splitting, stacking and rearranging with PyTorch's NumPy-like helpers."""

import itertools

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import ALL, COMPLEX

Tensor = _C.Tensor


def _tensors(args, name):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for t in args:
        if not isinstance(t, Tensor):
            raise TypeError(f"[{name}] expected tensors, got {type(t).__name__}")
    return args


def _atleast(args, nd, name, grow):
    ts = _tensors(args, name)
    out = []
    for t in ts:
        while t.dim() < nd:
            t = grow(t)
        out.append(t)
    return out[0] if len(args) == 1 and isinstance(args[0], Tensor) else tuple(out)


@composite("shape", ALL + COMPLEX)
def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-d one becomes shape [1])."""
    return _atleast(tensors, 1, "atleast_1d", lambda t: t.reshape(1))


@composite("shape", ALL + COMPLEX)
def atleast_2d(*tensors):
    """Each tensor with at least two dimensions, new ones in front, as NumPy's atleast_2d."""
    return _atleast(tensors, 2, "atleast_2d", lambda t: t.unsqueeze(0))


@composite("shape", ALL + COMPLEX)
def atleast_3d(*tensors):
    """At least three dimensions: [n] becomes [1, n, 1] and [m, n] becomes [m, n, 1]."""

    def grow(t):
        if t.dim() == 0:
            return t.reshape(1, 1, 1)
        if t.dim() == 1:
            return t.reshape(1, -1, 1)
        return t.unsqueeze(-1)

    return _atleast(tensors, 3, "atleast_3d", grow)


@composite("shape", ALL + COMPLEX)
def column_stack(tensors):
    """The tensors as columns: 0-d and 1-d ones become [n, 1], then hstack."""
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in _tensors((tensors,), "column_stack")]
    return _C.hstack(ts)


def _split_at(input, indices_or_sections, dim, name):
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    return tensor_split(input, indices_or_sections, dim)


@composite("shape", ALL + COMPLEX, method=True)
def tensor_split(input, indices_or_sections, dim=0):
    """Views of input along dim: n nearly equal parts (the first size % n one longer), or the
    parts between the given indices, as NumPy's array_split."""
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dim() == 0:
            indices_or_sections = int(indices_or_sections.item())
        else:
            indices_or_sections = indices_or_sections.tolist()
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < max(input.dim(), 1) or input.dim() == 0:
        raise IndexError(
            f"[tensor_split] expected at least a 1-dimensional tensor with dim {dim} in range, "
            f"got a tensor of {input.dim()} dims"
        )
    size = input.shape[d]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"[tensor_split] number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            stop = start + q + (1 if i < r else 0)
            bounds.append((start, stop))
            start = stop
    else:
        cuts = [max(0, min(size, i if i >= 0 else i + size)) for i in indices_or_sections]
        edges = [0, *cuts, size]
        bounds = [(a, max(a, b)) for a, b in zip(edges[:-1], edges[1:])]
    return tuple(input.narrow(d, a, b - a) for a, b in bounds)


def _np_split(input, sections, dim, name, min_dim):
    if input.dim() < min_dim:
        raise RuntimeError(
            f"[{name}] requires a tensor with at least {min_dim} dimension(s), but got a tensor "
            f"with {input.dim()} dimensions!"
        )
    if isinstance(sections, int) and input.shape[dim] % sections:
        raise RuntimeError(
            f"[{name}] attempted to split along dimension {dim}, but the size of the dimension "
            f"{input.shape[dim]} is not divisible by the split_size {sections}!"
        )
    return tensor_split(input, sections, dim)


@composite("shape", ALL + COMPLEX, method=True)
def hsplit(input, indices_or_sections):
    """Split along dim 1 (dim 0 for 1-d input) into equal parts or at indices."""
    return _np_split(input, indices_or_sections, 1 if input.dim() > 1 else 0, "hsplit", 1)


@composite("shape", ALL + COMPLEX, method=True)
def vsplit(input, indices_or_sections):
    return _np_split(input, indices_or_sections, 0, "vsplit", 2)


@composite("shape", ALL + COMPLEX, method=True)
def dsplit(input, indices_or_sections):
    return _np_split(input, indices_or_sections, 2, "dsplit", 3)


@composite("shape", ALL + COMPLEX, method=True)
def ravel(input):
    """input flattened to 1-d: a view where the layout allows, else a copy."""
    return input.reshape(-1)


@composite("shape", ALL + COMPLEX, method=True)
def rot90(input, k=1, dims=(0, 1)):
    """Rotation by 90 degrees k times in the plane of dims, from the first towards the second."""
    if len(dims) != 2:
        raise RuntimeError(f"[rot90] expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"[rot90] expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (d + input.dim() if d < 0 else d for d in dims)
    if d0 == d1:
        raise RuntimeError(f"[rot90] expected rotation dims to be different, got {list(dims)}")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


@composite("shape", ALL + COMPLEX)
def block_diag(*tensors):
    """The tensors (0-d, 1-d as a row, or 2-d) along the diagonal of a zero matrix."""
    mats = []
    for t in _tensors(tensors, "block_diag"):
        if t.dim() > 2:
            raise RuntimeError(
                f"[block_diag] Input tensors must have 2 or fewer dimensions. Input has "
                f"{t.dim()} dimensions"
            )
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return _C.empty(1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = _C.promote_types(dtype, m.dtype)
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    out = _C.zeros(rows, cols, dtype=dtype, device=mats[0].device)
    pieces = []
    c = 0
    for m in mats:
        left = _C.zeros(m.shape[0], c, dtype=dtype, device=m.device)
        right = _C.zeros(m.shape[0], cols - c - m.shape[1], dtype=dtype, device=m.device)
        pieces.append(_C.cat([left, m.to(dtype), right], 1))
        c += m.shape[1]
    return _C.cat(pieces, 0) if pieces else out


@composite("shape", ALL + COMPLEX)
def cartesian_prod(*tensors):
    """Every combination of one element of each 1-d tensor, as rows (1-d for one tensor)."""
    ts = _tensors(tensors, "cartesian_prod")
    for t in ts:
        if t.dim() != 1:
            raise RuntimeError(f"[cartesian_prod] expects 1-d tensors, got one of {t.dim()} dims")
    if len(ts) == 1:
        return ts[0]
    grids = _C.meshgrid(*ts, indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


@composite("shape", ALL + COMPLEX)
def combinations(input, r=2, with_replacement=False):
    """The r-length combinations of a 1-d tensor's elements, as rows (itertools' order)."""
    if input.dim() != 1:
        raise RuntimeError(f"[combinations] expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"[combinations] expect a non-negative number, but got {r}")
    if r == 0:
        return _C.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(pick(range(input.shape[0]), r))
    if not idx:
        return _C.empty(0, r, dtype=input.dtype, device=input.device)
    return input[_C.tensor(idx, dtype=_C.int64, device=input.device)]


@composite("shape", ALL + COMPLEX, method=True)
def diagflat(input, offset=0):
    """A 2-d tensor with input's elements, flattened, on diagonal `offset`."""
    return _C.diag(input.reshape(-1), offset)


@composite("shape", ALL + COMPLEX, method=True)
def swapdims(input, dim0, dim1):
    return input.transpose(dim0, dim1)
