"""Scan composites: differences and trapezoid integration along a dimension."""

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import ALL, FLOATING, NUMERIC


@composite("scan", ALL, method=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (xor for bool), after joining prepend and append."""
    if input.dim() == 0:
        raise RuntimeError("[diff] expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"[diff] order must be non-negative but got {n}")
    parts = [t for t in (prepend, input, append) if t is not None]
    x = _C.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        hi, lo = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = _C.logical_xor(hi, lo) if x.dtype == _C.bool else hi - lo
    return x


def _trapezoid_weights(y, x, dx, dim):
    if x is not None:
        if x.dim() == 1:
            shape = [1] * y.dim()
            shape[dim] = -1
            x = x.reshape(shape)
        return diff(x, dim=dim)
    return dx


@composite("scan", NUMERIC)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of y along dim by the trapezoid rule, with sample points x or spacing dx."""
    if x is not None and dx is not None:
        raise TypeError("[trapezoid] received both x and dx; give one of them")
    n = y.shape[dim]
    if n == 0:
        return _C.zeros_like(y.sum(dim)).to(
            y.dtype if y.is_floating_point() else _C.get_default_dtype()
        )
    y = y if y.is_floating_point() else y.to(_C.get_default_dtype())
    step = _trapezoid_weights(y, x, 1.0 if dx is None else dx, dim)
    mid = (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)) * 0.5
    return (mid * step).sum(dim)


@composite("scan", NUMERIC)
def trapz(y, x=None, *, dx=None, dim=-1):
    """PyTorch's older name of trapezoid."""
    return trapezoid(y, x, dx=dx, dim=dim)


@composite("scan", FLOATING)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid integral of y along dim (one element shorter)."""
    n = y.shape[dim]
    step = _trapezoid_weights(y, x, 1.0 if dx is None else dx, dim)
    if n == 0:
        return y
    mid = (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)) * 0.5
    return _C.cumsum(mid * step, dim)
