"""torch.signal.windows: SciPy's window functions as tensors of M points.

`sym=True` (the default) gives the symmetric window used in filter design; `sym=False` the
periodic one used for spectral analysis (the symmetric window of M + 1 points without its last).
Each is computed in float64 and converted to `dtype` (a floating dtype, the default dtype unless
given); M = 0 gives an empty window and M = 1 a single one.
"""

import math

from ember import _C

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
    "general_hamming", "hamming", "hann", "kaiser", "nuttall",
]  # fmt: skip


def _window(name, M, sym, dtype, device, requires_grad, values):
    """values(n, L) -> the float64 window over positions n = 0..L-1 of an L-point window."""
    if not isinstance(M, int) or isinstance(M, bool):
        raise TypeError(f"[signal.windows.{name}] M must be an int, got {type(M).__name__}")
    if M < 0:
        raise ValueError(f"[signal.windows.{name}] requires non-negative window length, got M={M}")
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise ValueError(
            f"[signal.windows.{name}] only supports floating point dtypes, got {dtype}"
        )
    if M <= 1:
        w = _C.ones(M, dtype=dtype, device=device)
    else:
        L = M if sym else M + 1
        w = values(_C.arange(L, dtype=_C.float64), L)[:M].to(dtype=dtype, device=device)
    return w.requires_grad_(requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sum_k (-1)^k a_k cos(2 pi k n / (M - 1)), the family of Hann, Blackman and Nuttall."""
    coeffs = list(a)
    if not coeffs:
        raise ValueError("[signal.windows.general_cosine] coefficients a must be non-empty")

    def values(n, L):
        x = n * (2 * math.pi / (L - 1))
        w = _C.zeros_like(n)
        for k, c in enumerate(coeffs):
            w = w + (-1) ** k * c * _C.cos(k * x)
        return w

    return _window("general_cosine", M, sym, dtype, device, requires_grad, values)


def general_hamming(
    M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False
):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, device=device, requires_grad=requires_grad
    )


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad
    )


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(
        M, alpha=0.54, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad
    )


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(
        M, a=[0.42, 0.50, 0.08], sym=sym, dtype=dtype, device=device, requires_grad=requires_grad
    )


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(
        M,
        a=[0.3635819, 0.4891775, 0.1365995, 0.0106411],
        sym=sym,
        dtype=dtype,
        device=device,
        requires_grad=requires_grad,
    )


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The triangle 1 - |2 n / (M - 1) - 1|."""
    return _window(
        "bartlett", M, sym, dtype, device, requires_grad,
        lambda n, L: 1 - (n * (2.0 / (L - 1)) - 1).abs(),
    )  # fmt: skip


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / M) (the sine window)."""
    return _window(
        "cosine", M, sym, dtype, device, requires_grad,
        lambda n, L: _C.sin((n + 0.5) * (math.pi / L)),
    )  # fmt: skip


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """exp(-(n - (M - 1) / 2)^2 / (2 std^2))."""
    if std <= 0:
        raise ValueError(
            f"[signal.windows.gaussian] Standard deviation must be positive, got {std}"
        )
    return _window(
        "gaussian", M, sym, dtype, device, requires_grad,
        lambda n, L: _C.exp(-((n - (L - 1) / 2) ** 2) / (2 * std * std)),
    )  # fmt: skip


def exponential(
    M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
    requires_grad=False,
):  # fmt: skip
    """exp(-|n - center| / tau), centred by default."""
    if sym and center is not None:
        raise ValueError("[signal.windows.exponential] Center must be None for symmetric windows")
    if tau <= 0:
        raise ValueError(f"[signal.windows.exponential] Tau must be positive, got {tau}")

    def values(n, L):
        c = (L - 1) / 2 if center is None else center
        return _C.exp(-(n - c).abs() / tau)

    return _window("exponential", M, sym, dtype, device, requires_grad, values)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """i0(beta sqrt(1 - ((n - a) / a)^2)) / i0(beta), a = (M - 1) / 2."""
    if beta < 0:
        raise ValueError(f"[signal.windows.kaiser] beta must be non-negative, got {beta}")

    def values(n, L):
        a = (L - 1) / 2
        r = (1 - ((n - a) / a) ** 2).clamp(min=0)
        return _C.i0(beta * _C.sqrt(r)) / _C.i0(_C.tensor(beta, dtype=_C.float64))

    return _window("kaiser", M, sym, dtype, device, requires_grad, values)
