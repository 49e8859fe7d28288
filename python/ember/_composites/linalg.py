"""Linear-algebra composites: inner and outer-product updates, traces, pairwise distances."""

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import COMPLEX, FLOAT32_64, FLOATING, NUMERIC


@composite("linalg", NUMERIC, method=True)
def inner(input, other):
    """The sum of products over the last dims of both (a scalar times a tensor for 0-d ones)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"[inner] inner() the last dimension must match on both input tensors but got "
            f"shapes {list(input.shape)} and {list(other.shape)}"
        )
    return _C.tensordot(input, other, dims=([-1], [-1]))


@composite("linalg", NUMERIC, method=True)
def trace(input):
    """The sum of a matrix's main diagonal."""
    if input.dim() != 2:
        raise RuntimeError(f"[trace] expected a matrix, but got tensor with dim {input.dim()}")
    return input.diagonal().sum()


@composite("linalg", NUMERIC, method=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(
            f"[addr] 1D tensors expected, but got {vec1.dim()}D and {vec2.dim()}D tensors"
        )
    prod = _C.outer(vec1, vec2)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        return prod.expand_as(input).clone() if prod.shape != input.shape else prod
    return input * beta + prod if beta != 1 else input + prod


@composite("linalg", FLOAT32_64)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between each row of x1 and each row of x2 (batched: [..., P, M]
    and [..., R, M] give [..., P, R])."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(
            f"[cdist] only supports at least 2D tensors, X1 got: {x1.dim()}D, X2 got: {x2.dim()}D"
        )
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"[cdist] X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
            f"X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError(f"[cdist] only supports non-negative p values, got {p}")
    d = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == 2:
        # The square root's gradient at 0 would be inf: where rows coincide the gradient is 0,
        # as in PyTorch.
        sq = (d * d).sum(-1)
        safe = _C.where(sq == 0, _C.ones_like(sq), sq)
        return _C.where(sq == 0, _C.zeros_like(sq), safe.sqrt())
    return _vnorm(d, p)


def _vnorm(d, p):
    import ember

    return ember.linalg.vector_norm(d, ord=p, dim=-1)


@composite("linalg", FLOATING, method=True)
def dist(input, other, p=2):
    """The p-norm of input - other (broadcast)."""
    import ember

    return ember.linalg.vector_norm(input - other, ord=p)


@composite("linalg", NUMERIC)
def chain_matmul(*matrices):
    """The product of the matrices, left to right (PyTorch's older name of linalg.multi_dot)."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("[chain_matmul] expected one or more tensors")
    out = matrices[0]
    for m in matrices[1:]:
        out = out @ m
    return out


@composite("linalg", NUMERIC + COMPLEX, method=True)
def cross(input, other, dim=None):
    """The cross product of 3-vectors along dim (the first dimension of size 3 when dim is None,
    PyTorch's deprecated default, which warns; linalg.cross uses the last)."""
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated. Please either "
            "pass the dim explicitly or simply use torch.linalg.cross. The default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=3,
        )
        a, b = _C.broadcast_tensors(input, other)
        dims = [d for d in range(a.dim()) if a.shape[d] == 3]
        if not dims:
            raise RuntimeError("[cross] no dimension of size 3 in input")
        dim = dims[0]
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(
            f"[cross] linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input.shape[dim]} and {other.shape[dim]}"
        )
    a, b = _C.broadcast_tensors(input, other)
    a0, a1, a2 = (a.select(dim, i) for i in range(3))
    b0, b1, b2 = (b.select(dim, i) for i in range(3))
    return _C.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)
