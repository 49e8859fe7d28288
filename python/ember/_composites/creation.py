"""Creation composites: logspace, the triangle index pairs and the window functions."""

import math

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import FLOATING, NUMERIC


def _options(dtype, device, requires_grad, out):
    if out is not None:
        raise TypeError("out= is not supported by ember yet")
    return {"dtype": dtype, "device": device, "requires_grad": requires_grad}


@composite("creation", NUMERIC, differentiable=False)
def logspace(
    start,
    end,
    steps,
    base=10.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """steps values from base**start to base**end, evenly spaced in the exponent."""
    dtype = dtype or _C.get_default_dtype()
    exps = _C.linspace(float(start), float(end), steps, dtype=_C.float64)
    values = _C.pow(float(base), exps)
    if not dtype.is_floating_point:
        values = values.trunc()
    out_t = values.to(dtype=dtype, device=device or "cpu")
    if requires_grad:
        out_t.requires_grad_(True)
    return out_t


def _tri_indices(row, col, offset, keep, dtype, device, name):
    if row < 0 or col < 0:
        raise RuntimeError(f"[{name}] row and col must be non-negative, got {row} and {col}")
    r = _C.arange(row, device=device).reshape(-1, 1).expand(row, col)
    c = _C.arange(col, device=device).reshape(1, -1).expand(row, col)
    mask = keep(c - r, offset)
    return _C.stack([r[mask], c[mask]]).to(dtype)


@composite("creation", [_C.int32, _C.int64], differentiable=False)
def tril_indices(row, col, offset=0, *, dtype=_C.int64, device=None, layout=None):
    """The (row, col) indices of the lower triangle (diagonal `offset` included), row-major, as a
    2 x N tensor."""
    return _tri_indices(row, col, offset, lambda d, k: d <= k, dtype, device, "tril_indices")


@composite("creation", [_C.int32, _C.int64], differentiable=False)
def triu_indices(row, col, offset=0, *, dtype=_C.int64, device=None, layout=None):
    return _tri_indices(row, col, offset, lambda d, k: d >= k, dtype, device, "triu_indices")


def _window(name, window_length, periodic, dtype, device, requires_grad, fn):
    dtype = dtype or _C.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"[{name}] expects floating point dtypes, got {dtype}")
    if window_length < 0:
        raise RuntimeError(f"[{name}] requires non-negative window_length, got {window_length}")
    if window_length == 0:
        return _C.empty(0, dtype=dtype, device=device, requires_grad=requires_grad)
    if window_length == 1:
        return _C.ones(1, dtype=dtype, device=device, requires_grad=requires_grad)
    n = window_length + 1 if periodic else window_length
    k = _C.arange(n, dtype=_C.float64)
    w = fn(k, n)
    if periodic:
        w = w[:-1]
    out = w.to(dtype=dtype, device=device or "cpu")
    if requires_grad:
        out.requires_grad_(True)
    return out


def _cosine_sum(coeffs):
    def fn(k, n):
        w = _C.zeros_like(k)
        for i, a in enumerate(coeffs):
            w = w + ((-1) ** i) * a * _C.cos(2 * math.pi * i * k / (n - 1))
        return w

    return fn


@composite("creation", FLOATING, differentiable=False)
def hann_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False
):
    return _window(
        "hann_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _cosine_sum([0.5, 0.5]),
    )


@composite("creation", FLOATING, differentiable=False)
def hamming_window(
    window_length,
    periodic=True,
    alpha=0.54,
    beta=0.46,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    return _window(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _cosine_sum([alpha, beta]),
    )


@composite("creation", FLOATING, differentiable=False)
def blackman_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False
):
    return _window(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _cosine_sum([0.42, 0.5, 0.08]),
    )


@composite("creation", FLOATING, differentiable=False)
def bartlett_window(
    window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False
):
    return _window(
        "bartlett_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        lambda k, n: 1 - _C.abs(2 * k / (n - 1) - 1),
    )


@composite("creation", FLOATING, differentiable=False)
def kaiser_window(
    window_length,
    periodic=True,
    beta=12.0,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """The Kaiser window: I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)."""

    def fn(k, n):
        r = 2 * k / (n - 1) - 1
        return _C.i0(beta * _C.sqrt(_C.clamp(1 - r * r, min=0.0))) / _C.i0(
            _C.tensor(beta, dtype=_C.float64)
        )

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, fn)
