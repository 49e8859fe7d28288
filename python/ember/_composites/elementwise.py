"""Elementwise composites: PyTorch's rarer elementwise functions, written with the list ops."""

import math

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import ALL, FLOATING, INTEGRAL, NUMERIC

Tensor = _C.Tensor


def _as_tensor(value, like):
    if isinstance(value, Tensor):
        return value
    return _C.tensor(value, dtype=_C._result_type(like, value), device=like.device)


def _float_of(x):
    return x if x.is_floating_point() else x.to(_C.get_default_dtype())


@composite("elementwise", ALL, method=True, inplace_dtypes=FLOATING)
def deg2rad(input):
    """Degrees to radians (integers are computed in the default float dtype)."""
    return _float_of(input) * (math.pi / 180.0)


@composite("elementwise", ALL, method=True, inplace_dtypes=FLOATING)
def rad2deg(input):
    return _float_of(input) * (180.0 / math.pi)


@composite("elementwise", ALL, method=True, inplace_dtypes=FLOATING)
def xlogy(input, other):
    """input * log(other), 0 where input is 0 (even where other is 0 or inf); NaN propagates from
    other."""
    x = _float_of(_as_tensor(input, other) if not isinstance(input, Tensor) else input)
    y = _as_tensor(other, x)
    y = y if y.is_floating_point() else y.to(x.dtype)
    out = x * _C.log(y)
    return _C.where((x == 0) & ~_C.isnan(y), _C.zeros_like(out), out)


@composite("elementwise", ALL, method=True, inplace_dtypes=FLOATING)
def copysign(input, other):
    """|input| with the sign of other (the sign bit, so -0.0 counts as negative)."""
    x = _float_of(input)
    y = _as_tensor(other, x)
    return _C.where(signbit(y), -_C.abs(x), _C.abs(x))


@composite("elementwise", FLOATING, method=True)
def logaddexp2(input, other):
    """log2(2**input + 2**other), without overflow."""
    m = _C.maximum(input, other)
    m = _C.where(_C.isfinite(m), m, _C.zeros_like(m)).detach()
    return m + _C.log2(_C.exp2(input - m) + _C.exp2(other - m))


@composite("elementwise", NUMERIC, method=True, differentiable=False, inplace_dtypes=NUMERIC)
def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0 (no gradient, as in
    PyTorch)."""
    if input.dtype != values.dtype:
        raise RuntimeError(
            f"[heaviside] heaviside is not yet implemented for tensors with different dtypes: "
            f"{input.dtype} and {values.dtype}"
        )
    ones, zeros = _C.ones_like(input), _C.zeros_like(input)
    return _C.where(input == 0, values, _C.where(input > 0, ones, zeros)).to(input.dtype)


@composite("elementwise", ALL, method=True, inplace_dtypes=[_C.float64])
def float_power(input, exponent):
    """input ** exponent in float64, whatever the dtypes."""
    x = input.to(_C.float64) if isinstance(input, Tensor) else input
    e = exponent.to(_C.float64) if isinstance(exponent, Tensor) else float(exponent)
    return _C.pow(x, e)


@composite("elementwise", NUMERIC, method=True, inplace_dtypes=NUMERIC)
def clamp_min(input, min):
    return _C.clamp(input, min=min)


@composite("elementwise", NUMERIC, method=True, inplace_dtypes=NUMERIC)
def clamp_max(input, max):
    return _C.clamp(input, max=max)


@composite("elementwise", ALL, method=True, differentiable=False, inplace_dtypes=ALL)
def sgn(input):
    """The sign; for real tensors the same as sign."""
    return _C.sign(input)


@composite("elementwise", ALL, method=True, differentiable=False)
def signbit(input):
    """True where the sign bit is set: negative numbers and -0.0."""
    if input.dtype == _C.bool or input.dtype == _C.uint8:
        return _C.zeros_like(input, dtype=_C.bool)
    if not input.is_floating_point():
        return input < 0
    # -0.0 has its sign bit set: 1 / -0.0 is -inf.
    return (input < 0) | ((input == 0) & (_C.reciprocal(input.float()) < 0))


@composite("elementwise", NUMERIC, method=True)
def positive(input):
    """input itself, as PyTorch's positive (which returns its input)."""
    return input


@composite("elementwise", ALL, method=True, differentiable=False)
def isposinf(input):
    return _C.isinf(input) & (input > 0)


@composite("elementwise", ALL, method=True, differentiable=False)
def isneginf(input):
    return _C.isinf(input) & (input < 0)


@composite("elementwise", ALL, method=True, differentiable=False)
def isreal(input):
    """True everywhere: ember's tensors are real."""
    return _C.ones_like(input, dtype=_C.bool)


@composite("elementwise", ALL, method=True, inplace_dtypes=FLOATING)
def sinc(input):
    """sin(pi x) / (pi x), 1 at 0."""
    x = _float_of(input)
    px = x * math.pi
    safe = _C.where(x == 0, _C.ones_like(px), px)
    return _C.where(x == 0, _C.ones_like(px), _C.sin(safe) / safe)


@composite("elementwise", ALL, method=True, inplace_dtypes=FLOATING)
def ldexp(input, other):
    """input * 2 ** other."""
    x = _float_of(input)
    return x * _C.exp2(_as_tensor(other, x).to(x.dtype))


def _euclid(a, b):
    a, b = _C.abs(a), _C.abs(b)
    while bool((b != 0).any()):
        nonzero = b != 0
        safe_b = _C.where(nonzero, b, _C.ones_like(b))
        a, b = _C.where(nonzero, b, a), _C.where(nonzero, _C.remainder(a, safe_b), b)
    return a


@composite("elementwise", INTEGRAL, method=True, differentiable=False, inplace_dtypes=INTEGRAL)
def gcd(input, other):
    """The greatest common divisor, elementwise (gcd(0, 0) = 0)."""
    a, b = _C.broadcast_tensors(input, other)
    return _euclid(a, b).to(_C._result_type(input, other))


@composite("elementwise", INTEGRAL, method=True, differentiable=False, inplace_dtypes=INTEGRAL)
def lcm(input, other):
    """The least common multiple, elementwise (0 when either is 0)."""
    a, b = _C.broadcast_tensors(input, other)
    g = _euclid(a, b)
    safe = _C.where(g == 0, _C.ones_like(g), g)
    return _C.abs(_C.floor_divide(a, safe) * b).to(_C._result_type(input, other))


@composite("elementwise", NUMERIC, method=False)
def rsub(input, other, *, alpha=1):
    """other - alpha * input; a number `other` promotes as a 0-d tensor, as a scalar does."""
    if not isinstance(other, Tensor):
        other = _C.tensor(other, device=input.device)
    return _C.sub(other, input, alpha=alpha)


@composite("elementwise", FLOATING, method=True, differentiable=False)
def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent and |mantissa| in [0.5, 1):
    math.frexp elementwise (0, inf and nan give themselves and exponent 0)."""
    x = input
    finite = _C.isfinite(x) & (x != 0)
    safe = _C.where(finite, _C.abs(x), _C.ones_like(x)).to(_C.float64)
    exponent = _C.floor(_C.log2(safe)) + 1
    mantissa = x.to(_C.float64) / _C.exp2(exponent)
    # log2 may round across a power of two: bring |mantissa| back into [0.5, 1).
    big = _C.abs(mantissa) >= 1
    exponent = _C.where(big, exponent + 1, exponent)
    mantissa = _C.where(big, mantissa / 2, mantissa)
    small = (_C.abs(mantissa) < 0.5) & finite
    exponent = _C.where(small, exponent - 1, exponent)
    mantissa = _C.where(small, mantissa * 2, mantissa)
    exponent = _C.where(finite, exponent, _C.zeros_like(exponent))
    mantissa = _C.where(finite, mantissa, x.to(_C.float64))
    return _Frexp(mantissa.to(x.dtype), exponent.to(_C.int32))


class _Frexp(tuple):
    """torch.return_types.frexp: (mantissa, exponent)."""

    def __new__(cls, mantissa, exponent):
        return super().__new__(cls, (mantissa, exponent))

    mantissa = property(lambda self: self[0])
    exponent = property(lambda self: self[1])


@composite("elementwise", ALL, method=True)
def angle(input):
    """The argument of a real number: 0 for x >= 0, pi for x < 0, NaN for NaN (gradient 0)."""
    x = _float_of(input)
    out = _C.where(x < 0, _C.full_like(x, math.pi), _C.zeros_like(x))
    return _C.where(_C.isnan(x), x, out) + 0 * x


# ---- special functions (torch.special; the kernels are lgamma, digamma, polygamma, i0, ...) --


@composite("elementwise", FLOATING, method=True, inplace_dtypes=FLOATING)
def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: sum_{j<p} lgamma(x - j/2) + p(p-1)/4 log(pi);
    every element must exceed (p - 1) / 2."""
    if p < 1:
        raise RuntimeError(f"[mvlgamma] p has to be greater than or equal to 1, got {p}")
    x = _float_of(input)
    if bool((x <= (p - 1) / 2).any()):
        raise RuntimeError("[mvlgamma] All elements must be greater than (p-1)/2")
    out = _C.lgamma(x)
    for j in range(1, p):
        out = out + _C.lgamma(x - j / 2)
    return out + p * (p - 1) / 4 * math.log(math.pi)


@composite("elementwise", ALL, name="special.entr")
def entr(input):
    """-x log x for x > 0, 0 at 0, -inf below 0."""
    x = _float_of(input)
    safe = _C.where(x > 0, x, _C.ones_like(x))
    return _C.where(
        x > 0,
        -x * _C.log(safe),
        _C.where(x == 0, _C.zeros_like(x), _C.full_like(x, -math.inf)),
    )


@composite("elementwise", ALL, name="special.ndtr")
def ndtr(input):
    """The standard normal CDF: erfc(-x / sqrt 2) / 2."""
    return _C.erfc(_float_of(input) * -math.sqrt(0.5)) * 0.5


@composite("elementwise", ALL, name="special.ndtri")
def ndtri(input):
    """The standard normal quantile: sqrt 2 erfinv(2p - 1), then two Newton steps on ndtr, which
    restore the relative accuracy that 2p - 1 loses for p near 0."""
    p = _float_of(input)
    x = _C.erfinv(p * 2 - 1) * math.sqrt(2.0)
    inner = (p > 0) & (p < 1)
    for _ in range(2):
        safe = _C.where(inner, x, _C.zeros_like(x))
        step = (ndtr(safe) - p) * math.sqrt(2 * math.pi) * _C.exp(0.5 * safe * safe)
        x = _C.where(inner, x - step, x)
    return x


def _tail_series(z2, terms=10):
    """sum_k (-1)^k (2k - 1)!! / z2^k: the asymptotic series of the normal tail (z2 = x^2) or,
    with z2 = 2 x^2, of erfcx."""
    total, term = _C.ones_like(z2), _C.ones_like(z2)
    for k in range(1, terms):
        term = term * (-(2 * k - 1)) / z2
        total = total + term
    return total


@composite("elementwise", ALL, name="special.log_ndtr")
def log_ndtr(input):
    """log of the normal CDF, computed in float64: log1p(-ndtr(-x)) above 0 (log of a number
    near 1 would lose its accuracy), log(ndtr(x)) down to -20, and below, where erfc would
    underflow, the tail's asymptotic series -x^2/2 - log(-x sqrt(2 pi)) + log(series). Each
    branch reads a clamped input, so the others' gradients stay finite."""
    x = _float_of(input)
    d = x.double()
    upper = _C.where(d > 0, d, _C.zeros_like(d))
    middle = _C.where((d <= 0) & (d >= -20), d, _C.full_like(d, -1.0))
    lower = _C.where(d < -20, d, _C.full_like(d, -21.0))
    z2 = lower * lower
    tail = -0.5 * z2 - _C.log(-lower) - 0.5 * math.log(2 * math.pi) + _C.log(_tail_series(z2))
    out = _C.where(d > 0, _C.log1p(-ndtr(-upper)), _C.where(d >= -20, _C.log(ndtr(middle)), tail))
    return out.to(x.dtype)


@composite("elementwise", ALL, name="special.erfcx")
def erfcx(input):
    """exp(x^2) erfc(x); above x = 25, where exp(x^2) nears overflow, the asymptotic series
    (1 / (x sqrt pi)) sum_k (-1)^k (2k - 1)!! / (2 x^2)^k."""
    x = _float_of(input)
    d = x.double()  # exp(x^2) overflows float32 from x = 9.4
    small = _C.where(d < 25, d, _C.zeros_like(d))
    big = _C.where(d >= 25, d, _C.full_like(d, 25.0))
    asym = _tail_series(2 * big * big, 8) / (big * math.sqrt(math.pi))
    return _C.where(d < 25, _C.exp(small * small) * _C.erfc(small), asym).to(x.dtype)


@composite("elementwise", ALL, name="special.xlog1py")
def xlog1py(input, other):
    """x * log1p(y), 0 where x is 0."""
    x = _float_of(_as_tensor(input, other) if not isinstance(input, Tensor) else input)
    y = _as_tensor(other, x)
    y = y if y.is_floating_point() else y.to(x.dtype)
    out = x * _C.log1p(y)
    return _C.where((x == 0) & ~_C.isnan(y), _C.zeros_like(out), out)


@composite("elementwise", ALL, name="special.spherical_bessel_j0")
def spherical_bessel_j0(input):
    """sin(x) / x, 1 at 0: sinc(x / pi)."""
    return sinc(_float_of(input) / math.pi)


def _polynomial(name, first, second, step, shift=False):
    """A family of orthogonal polynomials P_n(x) by its three-term recurrence
    P_{k+1} = step(k, x, P_k, P_{k-1}) from P_0 = first(x), P_1 = second(x); n an int or a tensor
    (elementwise degrees; negative degrees give 0). shift: evaluated at 2x - 1."""

    def poly(input, n):
        # In float64: the recurrences amplify a 16-bit dtype's rounding.
        dtype = _float_of(input).dtype
        x = _float_of(input).double()
        if shift:
            x = 2 * x - 1
        if isinstance(n, Tensor):
            x, n = _C.broadcast_tensors(x, n.to(x.dtype))
            top = int(n.max()) if n.numel() else 0
        else:
            top = int(n)
        prev, cur = first(x), second(x)
        results = [prev, cur]
        for k in range(1, top):
            prev, cur = cur, step(k, x, cur, prev)
            results.append(cur)
        if not isinstance(n, Tensor):
            return (_C.zeros_like(x) if top < 0 else results[top]).to(dtype)
        value = _C.zeros_like(x)
        for k, r in enumerate(results[: top + 1]):
            value = _C.where(n == k, r, value)
        return value.to(dtype)

    poly.__name__ = name
    poly.__doc__ = f"{name.replace('_', ' ')} of degree n at x."
    return composite("elementwise", FLOATING, name=f"special.{name}")(poly)


def _one(x):
    return _C.ones_like(x)


_polynomial("chebyshev_polynomial_t", _one, lambda x: x, lambda k, x, p, q: 2 * x * p - q)
_polynomial("chebyshev_polynomial_u", _one, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q)
_polynomial("chebyshev_polynomial_v", _one, lambda x: 2 * x - 1, lambda k, x, p, q: 2 * x * p - q)
_polynomial("chebyshev_polynomial_w", _one, lambda x: 2 * x + 1, lambda k, x, p, q: 2 * x * p - q)
_polynomial(
    "shifted_chebyshev_polynomial_t", _one, lambda x: x, lambda k, x, p, q: 2 * x * p - q, True
)
_polynomial(
    "shifted_chebyshev_polynomial_u", _one, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q, True
)
_polynomial(
    "shifted_chebyshev_polynomial_v",
    _one,
    lambda x: 2 * x - 1,
    lambda k, x, p, q: 2 * x * p - q,
    True,
)
_polynomial(
    "shifted_chebyshev_polynomial_w",
    _one,
    lambda x: 2 * x + 1,
    lambda k, x, p, q: 2 * x * p - q,
    True,
)
_polynomial("hermite_polynomial_h", _one, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q)
_polynomial("hermite_polynomial_he", _one, lambda x: x, lambda k, x, p, q: x * p - k * q)
_polynomial(
    "laguerre_polynomial_l",
    _one,
    lambda x: 1 - x,
    lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1),
)
_polynomial(
    "legendre_polynomial_p",
    _one,
    lambda x: x,
    lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1),
)
