"""Elementwise composites: PyTorch's rarer elementwise functions, written with the list ops."""

import math

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import ALL, COMPLEX, FLOATING, INTEGRAL, NUMERIC

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


@composite("elementwise", ALL + COMPLEX, method=True, inplace_dtypes=ALL + COMPLEX)
def sgn(input):
    """z / |z| (0 at 0) for complex tensors, with its gradient; sign for real ones."""
    return _C._sgn(input)


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


# ---- Bessel and Airy functions (torch.special.bessel_j0 & co) ----------------------------------
# No kernel of their own: each is evaluated in float64 by the method that is accurate to about
# 1e-15 in its range, and the ranges are joined by where (both sides computed, one kept):
#  - J0, J1 below 17: the periodic trapezoid rule on Bessel's integral
#    J_n(x) = (1/pi) int_0^pi cos(n t - x sin t) dt (64 points: exact to rounding for x < 17);
#  - Y0, Y1 below 2: their power series; from 2 to 17: Y_n's integral representation
#    (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^{nt} + (-1)^n e^{-nt})
#    e^{-x sinh t} dt by 64-point Gauss-Legendre rules;
#  - J, Y from 17 on: Hankel's asymptotic expansion (error about e^{-2x});
#  - K0, K1 below 2: their power series; from 2 to 20: the trapezoid rule on
#    int_0^inf e^{-x cosh t} cosh(n t) dt (h = 0.1, exponentially accurate); from 20 on: the
#    asymptotic expansion. The scaled forms multiply by e^x inside, so they do not underflow;
#  - Ai: its Maclaurin series from -9 to 1.6, the asymptotic expansions beyond.
_EULER = 0.57721566490153286060651209


def _gauss_legendre(n):
    """Nodes and weights of the n-point Gauss-Legendre rule on [-1, 1] (Newton on P_n)."""
    nodes, weights = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            dx = p1 / dp
            x -= dx
            if abs(dx) < 1e-16:
                break
        nodes.append(x)
        weights.append(2 / ((1 - x * x) * dp * dp))
    return nodes, weights


_GL = {}


def _gl(n, like):
    if n not in _GL:
        _GL[n] = _gauss_legendre(n)
    u, w = _GL[n]
    return (
        _C.tensor(u, dtype=like.dtype, device=like.device),
        _C.tensor(w, dtype=like.dtype, device=like.device),
    )


def _hankel(n, x):
    """J_n(x), Y_n(x) for large x by Hankel's expansion (x >= 17: about 1e-15)."""
    mu = 4.0 * n * n
    p, q = _C.ones_like(x), _C.zeros_like(x)
    term = _C.ones_like(x)
    z = 8.0 * x
    # a_k = prod_{j=1..k} (mu - (2j-1)^2) / (k! (8x)^k); P = sum (-1)^k a_2k, Q = sum (-1)^k a_2k+1
    for k in range(1, 30):
        term = term * (mu - (2 * k - 1) ** 2) / (k * z)
        if k % 2 == 1:
            q = q + term * (1 if (k // 2) % 2 == 0 else -1)
        else:
            p = p + term * (1 if (k // 2) % 2 == 0 else -1)
    w = x - (n * 0.5 + 0.25) * math.pi
    amp = _C.sqrt(2 / (math.pi * x))
    return amp * (p * _C.cos(w) - q * _C.sin(w)), amp * (p * _C.sin(w) + q * _C.cos(w))


def _j_integral(n, x):
    """J_n(x) = (1/pi) int_0^pi cos(n t - x sin t) dt by the trapezoid rule (its integrand is
    periodic and even: spectrally accurate)."""
    m = 64
    t = _C.arange(m + 1, dtype=x.dtype, device=x.device) * (math.pi / m)
    w = _C.full((m + 1,), 1.0 / m, dtype=x.dtype, device=x.device)
    w[0] = w[m] = 0.5 / m
    return (_C.cos(n * t - x.unsqueeze(-1) * _C.sin(t)) * w).sum(-1)


def _bessel_j(n, x):
    ax = x.abs()
    small = ax < 17
    ys = _j_integral(n, _C.where(small, ax, _C.zeros_like(ax)))
    yl = _hankel(n, _C.where(small, _C.full_like(ax, 17.0), ax))[0]
    out = _C.where(small, ys, yl)
    return out * _C.sign(x) if n == 1 else out


def _y_series(n, x):
    """Y0, Y1 for 0 < x < 2 from their series with J0, J1."""
    q = x * x / 4
    if n == 0:
        # Y0 = (2/pi) (ln(x/2) + gamma) J0 + (2/pi) sum (-1)^{k+1} H_k q^k / (k!)^2
        s = _C.zeros_like(x)
        term = _C.ones_like(x)
        h = 0.0
        for k in range(1, 30):
            term = term * q / (k * k)
            h += 1.0 / k
            s = s + (-1) ** (k + 1) * h * term
        return (2 / math.pi) * ((_C.log(x / 2) + _EULER) * _j_integral(0, x) + s)
    # Y1 = -2/(pi x) + (2/pi) ln(x/2) J1
    #      - (1/pi) sum_k (-1)^k (psi(k+1) + psi(k+2)) (x/2)^{2k+1} / (k! (k+1)!)
    s = _C.zeros_like(x)
    term = x / 2
    psi1 = -_EULER  # psi(1)
    for k in range(0, 30):
        if k > 0:
            term = term * (-q) / (k * (k + 1))
            psi1 += 1.0 / k
        psi2 = psi1 + 1.0 / (k + 1)
        s = s + (psi1 + psi2) * term
    return -2 / (math.pi * x) + (2 / math.pi) * _C.log(x / 2) * _j_integral(1, x) - s / math.pi


def _y_integral(n, x):
    """Y_n for 2 <= x < 17 by Gauss-Legendre on its two integrals."""
    u, w = _gl(64, x)
    xs = x.unsqueeze(-1)
    t = (u + 1) * (math.pi / 2)
    first = (_C.sin(xs * _C.sin(t) - n * t) * w).sum(-1) * 0.5
    T = _C.asinh(745.0 / x).unsqueeze(-1)
    s = (u + 1) * T / 2
    sign = 1.0 if n % 2 == 0 else -1.0
    g = (_C.exp(n * s) + sign * _C.exp(-n * s)) * _C.exp(-xs * _C.sinh(s))
    second = (g * w).sum(-1) * T.squeeze(-1) / 2
    return first - second / math.pi


def _bessel_y(n, x):
    lo, mid = x < 2, x < 17
    safe_lo = _C.where(lo & (x > 0), x, _C.ones_like(x))
    safe_mid = _C.where(~lo & mid, x, _C.full_like(x, 2.0))
    safe_hi = _C.where(mid, _C.full_like(x, 17.0), x)
    out = _C.where(
        lo, _y_series(n, safe_lo), _C.where(mid, _y_integral(n, safe_mid), _hankel(n, safe_hi)[1])
    )
    out = _C.where(x == 0, _C.full_like(x, -math.inf), out)
    return _C.where(x < 0, _C.full_like(x, math.nan), out)


def _k_series(n, x):
    """K0, K1 for 0 < x < 2 from their series with I0, I1."""
    q = x * x / 4
    if n == 0:
        s = _C.zeros_like(x)
        term = _C.ones_like(x)
        h = 0.0
        for k in range(1, 30):
            term = term * q / (k * k)
            h += 1.0 / k
            s = s + h * term
        return -(_C.log(x / 2) + _EULER) * _C.i0(x) + s
    s = _C.zeros_like(x)
    term = _C.ones_like(x)
    psi1 = -_EULER
    for k in range(0, 30):
        if k > 0:
            term = term * q / (k * (k + 1))
            psi1 += 1.0 / k
        s = s + (psi1 + psi1 + 1.0 / (k + 1)) * term
    return 1 / x + _C.log(x / 2) * _C.special_i1(x) - x / 4 * s


def _k_integral_scaled(nu, x):
    """e^x K_nu(x) = int_0^inf e^{-x (cosh t - 1)} cosh(nu t) dt by the trapezoid rule (h = 0.1:
    the integrand is even and analytic in |Im t| < pi / 2, so the error is about e^{x - pi^2/h})."""
    h = 0.1
    t = _C.arange(80, dtype=x.dtype, device=x.device) * h
    w = _C.full((80,), h, dtype=x.dtype, device=x.device)
    w[0] = h / 2
    return (_C.exp(-x.unsqueeze(-1) * (_C.cosh(t) - 1)) * _C.cosh(nu * t) * w).sum(-1)


def _k_asymptotic_scaled(nu, x):
    """e^x K_nu(x) for x >= 20: sqrt(pi / 2x) sum_k a_k(nu) / x^k."""
    mu = 4.0 * nu * nu
    s, term = _C.ones_like(x), _C.ones_like(x)
    for k in range(1, 30):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        s = s + term
    return _C.sqrt(math.pi / (2 * x)) * s


def _bessel_k_scaled(n, x):
    lo, mid = x < 2, x < 20
    safe_lo = _C.where(lo & (x > 0), x, _C.ones_like(x))
    safe_mid = _C.where(~lo & mid, x, _C.full_like(x, 2.0))
    safe_hi = _C.where(mid, _C.full_like(x, 20.0), x)
    out = _C.where(
        lo,
        _k_series(n, safe_lo) * _C.exp(safe_lo),
        _C.where(mid, _k_integral_scaled(n, safe_mid), _k_asymptotic_scaled(n, safe_hi)),
    )
    out = _C.where(x == 0, _C.full_like(x, math.inf), out)
    return _C.where(x < 0, _C.full_like(x, math.nan), out)


def _bessel_k(n, x):
    # K_n(x) = e^-x (e^x K_n(x)); for x >= 2 (where the scaled form is not a series) e^-x
    # underflows only where K_n does.
    lo = (x < 2) & (x > 0)
    direct = _k_series(n, _C.where(lo, x, _C.ones_like(x)))
    return _C.where(lo, direct, _bessel_k_scaled(n, x) * _C.exp(-x))


_AI0, _AIP0 = 0.355028053887817239260, 0.258819403792806798405  # Ai(0), -Ai'(0)


def _airy_ai(x):
    # Maclaurin on [-2, 1.6]: Ai = Ai(0) f(x) - (-Ai'(0)) g(x).
    mid = (x >= -2) & (x <= 1.6)
    xm = _C.where(mid, x, _C.zeros_like(x))
    x3 = xm * xm * xm
    f, g = _C.ones_like(xm), xm.clone()
    tf, tg = _C.ones_like(xm), xm.clone()
    for k in range(1, 40):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f = f + tf
        g = g + tg
    maclaurin = _AI0 * f - _AIP0 * g
    # x > 1.6: Ai = (1/pi) sqrt(x/3) K_{1/3}(zeta), zeta = 2/3 x^{3/2}.
    xp = _C.where(x > 1.6, x, _C.full_like(x, 2.0))
    zeta = 2.0 / 3.0 * xp**1.5
    small = zeta < 20
    ks = _C.where(
        small,
        _k_integral_scaled(1.0 / 3.0, _C.where(small, zeta, _C.ones_like(zeta))),
        _k_asymptotic_scaled(1.0 / 3.0, _C.where(small, _C.full_like(zeta, 20.0), zeta)),
    )
    right = _C.sqrt(xp / 3) / math.pi * ks * _C.exp(-zeta)
    # x < -2: Ai(-z) = (sqrt(z) / 3) (J_{1/3}(zeta) + J_{-1/3}(zeta)) while zeta < 20, and
    # pi^{-1/2} z^{-1/4} (sin(zeta + pi/4) P - cos(zeta + pi/4) Q) beyond.
    z = _C.where(x < -2, -x, _C.full_like(x, 3.0))
    zeta = 2.0 / 3.0 * z**1.5
    near = zeta < 20
    zn = _C.where(near, zeta, _C.ones_like(zeta))
    by_j = _C.sqrt(z) / 3 * (_j_nu_integral(1.0 / 3.0, zn) + _j_nu_integral(-1.0 / 3.0, zn))
    zf = _C.where(near, _C.full_like(zeta, 20.0), zeta)
    zz = (1.5 * zf) ** (2.0 / 3.0)
    p, q = _C.ones_like(zf), _C.zeros_like(zf)
    u = 1.0
    power = _C.ones_like(zf)
    for k in range(1, 40):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)
        power = power / zf
        sign = 1 if (k // 2) % 2 == 0 else -1
        if k % 2 == 0:
            p = p + sign * u * power
        else:
            q = q + sign * u * power
    w = zf + math.pi / 4
    far = (_C.sin(w) * p - _C.cos(w) * q) / (math.sqrt(math.pi) * zz**0.25)
    left = _C.where(near, by_j, far)
    return _C.where(mid, maclaurin, _C.where(x > 1.6, right, left))


def _j_nu_integral(nu, x):
    """J_nu(x), nu not an integer, 0 < x < ~20: (1/pi) int_0^pi cos(nu t - x sin t) dt
    - (sin(nu pi) / pi) int_0^inf e^{-x sinh t - nu t} dt, by 64-point Gauss-Legendre rules."""
    u, w = _gl(64, x)
    xs = x.unsqueeze(-1)
    t = (u + 1) * (math.pi / 2)
    first = (_C.cos(nu * t - xs * _C.sin(t)) * w).sum(-1) * 0.5
    T = _C.asinh(745.0 / x).unsqueeze(-1)
    s = (u + 1) * T / 2
    second = (_C.exp(-xs * _C.sinh(s) - nu * s) * w).sum(-1) * T.squeeze(-1) / 2
    return first - math.sin(nu * math.pi) / math.pi * second


def _bessel_op(name, fn, domain_note):
    """Declares special.<name>: fn on the input in float64, returned in its float dtype."""

    def op(input):
        x = _float_of(input)
        return fn(x.double()).to(x.dtype)

    op.__name__ = name
    op.__doc__ = f"torch.special.{name}, {domain_note} (the methods: the comment above)."
    return composite("elementwise", ALL, name=f"special.{name}")(op)


bessel_j0 = _bessel_op("bessel_j0", lambda x: _bessel_j(0, x), "any real x")
bessel_j1 = _bessel_op("bessel_j1", lambda x: _bessel_j(1, x), "any real x")
bessel_y0 = _bessel_op("bessel_y0", lambda x: _bessel_y(0, x), "-inf at 0, NaN below")
bessel_y1 = _bessel_op("bessel_y1", lambda x: _bessel_y(1, x), "-inf at 0, NaN below")
modified_bessel_k0 = _bessel_op("modified_bessel_k0", lambda x: _bessel_k(0, x), "inf at 0")
modified_bessel_k1 = _bessel_op("modified_bessel_k1", lambda x: _bessel_k(1, x), "inf at 0")
scaled_modified_bessel_k0 = _bessel_op(
    "scaled_modified_bessel_k0", lambda x: _bessel_k_scaled(0, x), "e^x K0(x)"
)
scaled_modified_bessel_k1 = _bessel_op(
    "scaled_modified_bessel_k1", lambda x: _bessel_k_scaled(1, x), "e^x K1(x)"
)
airy_ai = _bessel_op("airy_ai", _airy_ai, "the Airy function Ai")
