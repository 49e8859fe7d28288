"""Op-table records of the elementwise ops: unary, predicates, ops with parameters, arithmetic,
binary, comparisons, logical and bitwise ops, lerp / addcmul / addcdiv, where, isclose /
allclose / equal, zero_ / fill_ / copy_, and the in-place forms of them all.

Most in-place records are derived from their op's record (inplace_of): the same samples (those
whose result fits self) and reference, with the dtypes the registry declares for the in-place
form."""

from __future__ import annotations

import dataclasses
import math
import statistics

import numpy as np
import scipy.special as sp

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    INTEGRAL,
    NUMERIC,
    REGISTRY_DTYPES,
    SHAPES_UNARY,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    inplace_of,
    make_array,
    unary_samples,
)

BITWISE = INTEGRAL + [ember.bool]

# ---- references ----------------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_normal = statistics.NormalDist()


def _erfinv_scalar(y):
    if y <= -1 or y >= 1:
        return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
    return _normal.inv_cdf((1 + y) / 2) / math.sqrt(2)


_erfinv = np.vectorize(_erfinv_scalar, otypes=[np.float64])


def as_float(f):
    """A ref for ops that compute in floating point whatever the input (ints and bools too)."""
    return lambda x: f(np.asarray(x, dtype=np.complex128 if np.iscomplexobj(x) else np.float64))


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_sgn(x):
    """z / |z| (0 at 0) for complex arrays, the sign for real ones."""
    if np.iscomplexobj(x):
        r = np.abs(x)
        return np.where(r == 0, 0, x / np.where(r == 0, 1, r))
    return np_sign(x)


def np_sign(x):
    # PyTorch's sign(NaN) is 0 (NumPy's is NaN).
    return x.copy() if x.dtype == np.bool_ else np.where(np.isnan(x), 0, np.sign(x))


def np_true_divide(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(np.asarray(a, dtype=np.result_type(a, b, np.float64)), b)


def np_pow(a, b):
    return np.power(a, b)


def np_softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


def np_elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    return np.where(x > 0, scale * x, scale * alpha * np.expm1(x * input_scale))


def np_gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def np_logit(x, eps=None):
    x = np.asarray(x, dtype=np.float64)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def np_hardswish(x):
    return x * np.clip(x + 3, 0, 6) / 6


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


# ---- sample builders -----------------------------------------------------------------------


BROADCAST_PAIRS = [
    ((5,), (5,)),
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),  # broadcast the trailing dim
    ((2, 1, 4), (3, 1)),  # both sides broadcast
    ((3, 4), ()),  # a 0-d tensor
    ((), ()),
    ((0, 4), (4,)),  # zero-size
]


def binary_samples(
    low=-3.0, high=3.0, b_low=None, b_high=None, b_away_from_zero=False, scalars=(2, 0.5, True)
):
    def make(dtype, rng):
        out = []
        for sa, sb in BROADCAST_PAIRS:
            a = make_array(sa, dtype, rng, low, high)
            b = make_array(
                sb,
                dtype,
                rng,
                low if b_low is None else b_low,
                high if b_high is None else b_high,
                b_away_from_zero,
            )
            out.append(Sample((a, b), desc=f"{sa}x{sb}"))
        a = make_array((3, 4), dtype, rng, low, high)
        for s in scalars:
            out.append(Sample((a, s), desc=f"scalar {s!r}", grad=isinstance(s, float)))
        return out

    return make


def _fits(kw, dtype):
    """Whether the parameters are values of dtype: negative numbers would wrap in uint8."""
    return dtype != ember.uint8 or all(
        not isinstance(v, (int, float)) or v >= 0 for v in kw.values()
    )


def kwarg_samples(kwargs_list, low=-3.0, high=3.0):
    """Every unary shape with the first kwargs, then a [3, 4] input with each of the others
    (those whose values fit the dtype)."""

    def make(dtype, rng):
        kwargs_list_ = [kw for kw in kwargs_list if _fits(kw, dtype)]
        out = [
            Sample((make_array(s, dtype, rng, low, high),), dict(kwargs_list_[0]), desc=f"{s}")
            for s in SHAPES_UNARY
        ]
        for kw in kwargs_list_[1:]:
            out.append(Sample((make_array((3, 4), dtype, rng, low, high),), dict(kw), desc=f"{kw}"))
        return out

    return make


def special_values_samples(dtype, rng):
    """Inputs with NaN and infinities (floating dtypes) for the predicates and nan_to_num."""
    out = unary_samples()(dtype, rng)
    if dtype in FLOATING:
        x = make_array((3, 4), dtype, rng)
        x.flat[[0, 5, 7]] = [np.nan, np.inf, -np.inf]
        out.append(Sample((x,), desc="nan and inf", grad=False))
    return out


def nonzero_divisor_samples(dtype, rng):
    """binary_samples with no zero divisor: integer division by zero raises."""
    out = []
    scalars = (2, 0.5) if dtype == ember.uint8 else (2, -3, 0.5)
    for s in binary_samples(b_away_from_zero=True, scalars=scalars)(dtype, rng):
        if len(s.args) == 2 and isinstance(s.args[1], np.ndarray):
            b = s.args[1].copy()
            b[b == 0] = 1
            s = Sample((s.args[0], b), s.kwargs, s.desc, s.grad)
        out.append(s)
    return out


# ---- error samples and record builders -----------------------------------------------------


def broadcast_error(fn, name):
    return lambda: [
        ErrorSample(
            lambda: fn(ember.ones(2, 3), ember.ones(4)), RuntimeError, name, "shapes [2, 3] and [4]"
        ),
    ]


def _compare(name, ref):
    # eq, ne and the logical ops compare complex numbers too; the orderings do not.
    ordering = name in ("lt", "le", "gt", "ge")
    return OpSpec(
        name,
        getattr(ember, name),
        ref,
        ALL if ordering else ALL + COMPLEX,
        binary_samples(scalars=(1, 0.5)),
        grad=False,
        errors=broadcast_error(getattr(ember, name), name),
    )


def _unary(name, ref, dtypes, low=-3.0, high=3.0, away=False, grad=True, gradgrad=None):
    """The record of ember.<name>(x); gradgrad defaults to grad."""
    return OpSpec(
        name,
        getattr(ember, name),
        ref,
        dtypes,
        unary_samples(low, high, away),
        grad=grad,
        gradgrad=grad if gradgrad is None else gradgrad,
    )


def _binary(name, ref, dtypes, samples=None, grad=True, gradgrad=None, **kw):
    """The record of ember.<name>(a, b): binary_samples(**kw) unless `samples` is given;
    gradgrad defaults to grad."""
    fn = getattr(ember, name)
    return OpSpec(
        name,
        fn,
        ref,
        dtypes,
        binary_samples(**kw) if samples is None else samples,
        grad=grad,
        gradgrad=grad if gradgrad is None else gradgrad,
        errors=broadcast_error(fn, name),
    )


def _with_kwargs(name, ref, dtypes, kwargs_list, low=-3.0, high=3.0, **kw):
    fn = getattr(ember, name)
    return OpSpec(
        name,
        lambda x, *a, **k: fn(x, *a, **k),
        ref,
        dtypes,
        kwarg_samples(kwargs_list, low, high),
        gradgrad=True,
        **kw,
    )


def _predicate(name, ref):
    return OpSpec(
        name, getattr(ember, name), ref, ALL + COMPLEX, special_values_samples, grad=False
    )


# ---- the records ---------------------------------------------------------------------------

UNARY = [
    _unary("neg", np.negative, NUMERIC + COMPLEX),
    _unary("abs", np.abs, NUMERIC + COMPLEX, away=True),
    # No gradcheck (sign is flat but at 0), yet gradgrad as the record always had: all zeros.
    _unary("sign", np_sign, ALL, grad=False, gradgrad=True),
    _unary("exp", as_float(np.exp), ALL + COMPLEX),
    _unary("log", as_float(np.log), ALL + COMPLEX, low=0.1, high=4.0),
    _unary("sqrt", as_float(np.sqrt), ALL + COMPLEX, low=0.1, high=4.0),
    _unary("tanh", as_float(np.tanh), ALL + COMPLEX),
    _unary("sigmoid", as_float(np_sigmoid), ALL + COMPLEX),
    _unary("relu", lambda x: np.maximum(x, 0), NUMERIC, away=True),
    _unary("square", np.square, NUMERIC + COMPLEX),
    _unary("floor", np.floor, NUMERIC),
    _unary("ceil", np.ceil, NUMERIC),
    _unary("trunc", np.trunc, NUMERIC),
    _unary("frac", lambda x: x - np.trunc(x), FLOATING),
    _unary("bitwise_not", np.invert, BITWISE, grad=False),
    _unary("exp2", as_float(np.exp2), ALL),
    _unary("expm1", as_float(np.expm1), ALL),
    _unary("log2", as_float(np.log2), ALL, low=0.1, high=4.0),
    _unary("log10", as_float(np.log10), ALL + COMPLEX, low=0.1, high=4.0),
    _unary("log1p", as_float(np.log1p), ALL, low=-0.9, high=4.0),
    _unary("rsqrt", as_float(lambda x: 1 / np.sqrt(x)), ALL + COMPLEX, low=0.2, high=4.0),
    _unary("reciprocal", as_float(np.reciprocal), ALL + COMPLEX, away=True),
    _unary("sin", as_float(np.sin), ALL + COMPLEX),
    _unary("cos", as_float(np.cos), ALL + COMPLEX),
    _unary("tan", as_float(np.tan), ALL + COMPLEX, low=-1.2, high=1.2),
    _unary("asin", as_float(np.arcsin), ALL + COMPLEX, low=-0.9, high=0.9),
    _unary("acos", as_float(np.arccos), ALL + COMPLEX, low=-0.9, high=0.9),
    _unary("atan", as_float(np.arctan), ALL + COMPLEX),
    _unary("sinh", as_float(np.sinh), ALL + COMPLEX),
    _unary("cosh", as_float(np.cosh), ALL + COMPLEX),
    _unary("asinh", as_float(np.arcsinh), ALL + COMPLEX),
    _unary("acosh", as_float(np.arccosh), ALL + COMPLEX, low=1.2, high=4.0),
    _unary("atanh", as_float(np.arctanh), ALL + COMPLEX, low=-0.9, high=0.9),
    _unary("erf", as_float(_erf), ALL, low=-2.0, high=2.0),
    _unary("erfc", as_float(_erfc), ALL, low=-2.0, high=2.0),
    _unary("erfinv", as_float(_erfinv), ALL, low=-0.9, high=0.9),
    _unary("softsign", as_float(lambda x: x / (1 + np.abs(x))), ALL, away=True),
    _unary("relu6", lambda x: np.clip(x, 0, 6), NUMERIC, low=-3.0, high=8.0),
    _unary("selu", lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)), FLOATING),
    _unary("silu", lambda x: x * np_sigmoid(x), FLOATING),
    _unary("mish", lambda x: x * np.tanh(np.log1p(np.exp(x))), FLOATING),
    _unary("hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1), FLOATING, low=-4.0, high=4.0),
    _unary("hardswish", np_hardswish, FLOATING, low=-4.0, high=4.0),
]

PREDICATES = [
    _predicate("isnan", np.isnan),
    _predicate("isinf", np.isinf),
    _predicate("isfinite", np.isfinite),
    _predicate("logical_not", np.logical_not),
]


def _clamp_samples(dtype, rng):
    if dtype == ember.bool:
        return kwarg_samples([{"min": False, "max": True}, {"max": False}, {"min": True}])(
            dtype, rng
        )
    kws = [{"min": -1, "max": 1}, {"min": 0.5}, {"max": 2}, {"min": 2, "max": -1}]
    if dtype == ember.uint8:
        kws = [{"min": 1, "max": 2}, {"min": 0.5}, {"max": 2}, {"min": 2, "max": 1}]
    out = kwarg_samples(kws)(dtype, rng)
    x = make_array((3, 4), dtype, rng)
    lo, hi = make_array((4,), dtype, rng, -2, 0), make_array((3, 1), dtype, rng, 0, 2)
    out.append(Sample((x, lo, hi), desc="tensor bounds"))
    return out


def _round_samples(dtype, rng):
    kws = [{}, {"decimals": 2}, {"decimals": -1}] if dtype in FLOATING else [{}]
    return kwarg_samples(kws, -30.0, 30.0)(dtype, rng)


def _nan_to_num_samples(dtype, rng):
    out = []
    for s in special_values_samples(dtype, rng):
        for kw in ({"posinf": 9.0, "neginf": -9.0}, {"nan": 1.5, "posinf": 10.0, "neginf": -8.0}):
            out.append(Sample(s.args, kw, s.desc + f" {kw}", s.grad))
    return out


def np_clamp(x, lo=None, hi=None, min=None, max=None):
    lo, hi = (lo if lo is not None else min), (hi if hi is not None else max)
    out = x if lo is None else np.maximum(x, lo)
    return out if hi is None else np.minimum(out, hi)


def _clamp_errors():
    return [
        ErrorSample(lambda: ember.clamp(ember.ones(2)), RuntimeError, "clamp", "no bounds"),
        ErrorSample(
            lambda: ember.ones(2, dtype=ember.int64).clamp_(0.5),
            RuntimeError,
            "can't be cast",
            "int64 clamped in place at a float",
        ),
    ]


PARAM = [
    OpSpec(
        "clamp",
        lambda x, *b, **kw: ember.clamp(x, *b, **kw),
        np_clamp,
        ALL,
        _clamp_samples,
        gradgrad=True,
        errors=_clamp_errors,
    ),
    _with_kwargs(
        "hardtanh",
        lambda x, min_val=-1.0, max_val=1.0: np.clip(x, min_val, max_val),
        NUMERIC,
        # -1 and 1 are the defaults, spelled out so that uint8 (where -1 wraps) can skip them.
        [{"min_val": 0.0, "max_val": 2.0}, {"min_val": -1.0, "max_val": 1.0}, {"min_val": -0.5}],
    ),
    _with_kwargs(
        "threshold",
        lambda x, threshold, value: np.where(x <= threshold, value, x),
        NUMERIC,
        [{"threshold": 0.5, "value": 2}, {"threshold": -1, "value": 7}],
    ),
    _with_kwargs(
        "leaky_relu",
        lambda x, negative_slope=0.01: np.where(x > 0, x, x * negative_slope),
        FLOATING,
        [{}, {"negative_slope": 0.2}],
    ),
    _with_kwargs(
        "elu",
        np_elu,
        FLOATING,
        [{}, {"alpha": 0.5}, {"alpha": 1.5, "scale": 2.0, "input_scale": 0.5}],
    ),
    _with_kwargs(
        "celu",
        lambda x, alpha=1.0: np_elu(x, alpha, 1.0, 1.0 / alpha),
        FLOATING,
        [{}, {"alpha": 0.5}],
        errors=lambda: [
            ErrorSample(lambda: ember.celu(ember.ones(2), 0.0), RuntimeError, "celu", "alpha 0")
        ],
    ),
    _with_kwargs("softplus", np_softplus, FLOATING, [{}, {"beta": 2.0, "threshold": 1.0}]),
    _with_kwargs(
        "gelu",
        np_gelu,
        FLOATING,
        [{}, {"approximate": "tanh"}],
        errors=lambda: [
            ErrorSample(
                lambda: ember.gelu(ember.ones(2), approximate="erf"),
                ValueError,
                "approximate",
                "unknown approximation",
            )
        ],
    ),
    _with_kwargs("logit", np_logit, ALL, [{}, {"eps": 0.2}], low=0.05, high=0.95),
    OpSpec(
        "round",
        lambda x, **kw: ember.round(x, **kw),
        lambda x, decimals=0: np.round(x, decimals),
        NUMERIC,
        _round_samples,
        errors=lambda: [
            ErrorSample(
                lambda: ember.round(ember.ones(2, dtype=ember.int64), decimals=1),
                RuntimeError,
                "round",
                "decimals on integers",
            )
        ],
    ),
    OpSpec(
        "nan_to_num",
        lambda x, **kw: ember.nan_to_num(x, **kw),
        lambda x, nan=0.0, posinf=None, neginf=None: np.nan_to_num(
            x, nan=nan, posinf=posinf, neginf=neginf
        ),
        ALL,
        _nan_to_num_samples,
    ),
]


def _isclose_samples(dtype, rng):
    out = []
    for kw in ({}, {"rtol": 0.1, "atol": 0.5}, {"equal_nan": True}):
        a = make_array((4, 5), dtype, rng)
        b = a.copy()
        if dtype in FLOATING:
            b = b + rng.normal(0, 1e-3, b.shape) * (rng.random(b.shape) < 0.5)
            b[0, :3] = a[0, :3] = [np.nan, np.inf, -np.inf]
            b[1, 0] = np.nan
        elif dtype != ember.bool:
            b = b + (rng.random(b.shape) < 0.3)
        else:
            b = b ^ (rng.random(b.shape) < 0.3)
        out.append(Sample((a, b), kw, desc=f"{kw}", grad=False))
    out.append(Sample((make_array((3, 4), dtype, rng), make_array((4,), dtype, rng)), desc="bcast"))
    return out


def _same_dtype_error(name):
    fn = getattr(ember, name)
    return lambda: [
        ErrorSample(
            lambda: fn(ember.ones(2), ember.ones(2, dtype=ember.float64)),
            RuntimeError,
            "same dtype",
            "float32 vs float64",
        )
    ]


LOGICAL = [
    OpSpec(
        "isclose",
        lambda a, b, **kw: ember.isclose(a, b, **kw),
        lambda a, b, rtol=1e-5, atol=1e-8, equal_nan=False: np.isclose(
            a, b, rtol=rtol, atol=atol, equal_nan=equal_nan
        ),
        ALL + COMPLEX,
        _isclose_samples,
        grad=False,
        errors=_same_dtype_error("isclose"),
    ),
    OpSpec(
        "allclose",
        lambda a, b, **kw: ember.tensor(ember.allclose(a, b, **kw)),
        lambda a, b, rtol=1e-5, atol=1e-8, equal_nan=False: np.allclose(
            a, b, rtol=rtol, atol=atol, equal_nan=equal_nan
        ),
        ALL + COMPLEX,
        _isclose_samples,
        grad=False,
        errors=_same_dtype_error("allclose"),
        noncontiguous=False,
    ),
    OpSpec(
        "equal",
        lambda a, b: ember.tensor(ember.equal(a, b)),
        lambda a, b: np.array_equal(a, b),
        ALL + COMPLEX,
        lambda dtype, rng: [
            Sample(s.args, desc=s.desc, grad=False) for s in _isclose_samples(dtype, rng)
        ],
        grad=False,
        noncontiguous=False,
    ),
]


def _ternary_samples(low=-3.0, high=3.0, away_c=False, scalar_weight=None):
    """(input, tensor1, tensor2) with broadcasting among the three; `scalar_weight`: the third
    argument is also given as a number."""

    def make(dtype, rng):
        out = []
        for sa, sb, sc in [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((), (), ()),
                           ((2, 3, 4), (3, 4), ()), ((0, 4), (4,), (1, 4))]:  # fmt: skip
            c = make_array(sc, dtype, rng, 0.2 if away_c else low, high, away_c)
            out.append(
                Sample(
                    (
                        make_array(sa, dtype, rng, low, high),
                        make_array(sb, dtype, rng, low, high),
                        c,
                    ),
                    desc=f"{sa}{sb}{sc}",
                )
            )
        if scalar_weight is not None:
            a, b = make_array((3, 4), dtype, rng), make_array((3, 4), dtype, rng)
            for w in scalar_weight:
                out.append(Sample((a, b, w), desc=f"weight {w}"))
        return out

    return make


def _with_value(samples, value):
    def make(dtype, rng):
        v = value if dtype in FLOATING else int(value)
        return samples(dtype, rng) + [Sample(s.args, {"value": v}, s.desc + f" value={v}")
                                      for s in samples(dtype, rng)[:2]]  # fmt: skip

    return make


def _lerp_dtype_mismatch():
    return ember.lerp(ember.ones(2), ember.ones(2).double(), 0.5)


def np_lerp(a, b, w):
    return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


COMBINED = [
    OpSpec("lerp", ember.lerp, np_lerp, FLOATING,
           _ternary_samples(scalar_weight=(0.25, 0.75, 1.0)), gradgrad=True,
           errors=lambda: [ErrorSample(_lerp_dtype_mismatch, RuntimeError, "expected", "end")]),
    OpSpec("addcmul", lambda a, b, c, **kw: ember.addcmul(a, b, c, **kw),
           lambda a, b, c, value=1: a + value * b * c, NUMERIC + COMPLEX,
           _with_value(_ternary_samples(), 0.5), gradgrad=True),
    OpSpec("addcdiv", lambda a, b, c, **kw: ember.addcdiv(a, b, c, **kw),
           lambda a, b, c, value=1: a + value * b / c, FLOATING,
           _with_value(_ternary_samples(away_c=True), 0.5), gradgrad=True,
           errors=lambda: [ErrorSample(lambda: ember.addcdiv(ember.ones(2), ember.ones(2).long(),
                                                             ember.ones(2).long()),
                                       RuntimeError, "Integer division", "integers")]),
]  # fmt: skip


def _inplace_ternary(spec):
    name = spec.name + "_"

    def fn(x, *args, **kw):
        out = x.clone()
        assert getattr(out, name)(*args, **kw) is out
        return out

    def samples(dtype, rng):
        # self keeps its shape: only samples whose first argument has the broadcast shape.
        out = []
        for s in spec.samples(dtype, rng):
            shapes = [np.shape(a) for a in s.args if isinstance(a, np.ndarray)]
            if np.broadcast_shapes(*shapes) == np.shape(s.args[0]):
                out.append(s)
        return out

    return OpSpec(name, fn, spec.ref, spec.dtypes, samples)


ARITHMETIC = [
    _binary("add", np.add, ALL + COMPLEX),
    _binary("sub", np.subtract, NUMERIC + COMPLEX),
    _binary("mul", np.multiply, ALL + COMPLEX),
    _binary("div", np_true_divide, ALL + COMPLEX, b_away_from_zero=True, b_low=0.5, b_high=3.0),
    _binary(
        "pow", np_pow, NUMERIC + COMPLEX, low=0.5, high=2.0, b_low=0, b_high=3, scalars=(2, 0.5)
    ),
]

COMPARE = [
    _compare("eq", np.equal),
    _compare("ne", np.not_equal),
    _compare("lt", np.less),
    _compare("le", np.less_equal),
    _compare("gt", np.greater),
    _compare("ge", np.greater_equal),
]


def _where_samples(dtype, rng):
    out = []
    for sc, sa, sb in [
        ((3, 4), (3, 4), (3, 4)),
        ((3, 4), (4,), ()),
        ((1, 4), (3, 1), (4,)),
        ((), (2,), (2,)),
        ((0, 2), (2,), (0, 2)),
    ]:
        cond = Fixed(np.asarray(rng.random(sc) < 0.5), ember.bool)
        out.append(
            Sample(
                (cond, make_array(sa, dtype, rng), make_array(sb, dtype, rng)),
                desc=f"{sc} {sa} {sb}",
            )
        )
    return out


OTHER = [
    OpSpec(
        "where",
        ember.where,
        lambda c, a, b: np.where(c, a, b),
        ALL + COMPLEX,
        _where_samples,
        errors=lambda: [
            ErrorSample(
                lambda: ember.where(ember.ones(2), ember.ones(2), ember.ones(2)),
                RuntimeError,
                "boolean",
                "float condition",
            ),
            ErrorSample(
                lambda: ember.where(ember.ones(2).bool(), ember.ones(3), ember.ones(2)),
                RuntimeError,
                "where",
                "broadcast",
            ),
        ],
    ),
    OpSpec(
        "zero_",
        lambda x: x.clone().zero_(),
        lambda x: np.zeros_like(x),
        ALL + COMPLEX,
        unary_samples(),
    ),
    OpSpec(
        "fill_",
        lambda x: x.clone().fill_(1),
        lambda x: np.ones_like(x),
        ALL + COMPLEX,
        unary_samples(),
    ),
    OpSpec(
        "copy_",
        lambda x, y: x.clone().copy_(y),
        lambda x, y: np.broadcast_to(y, x.shape),
        ALL + COMPLEX,
        lambda d, r: [
            Sample((make_array((3, 4), d, r), make_array(s, d, r)), desc=f"{s}")
            for s in [(3, 4), (4,), ()]
        ],
        errors=lambda: [
            ErrorSample(
                lambda: ember.ones(3).copy_(ember.ones(4)), RuntimeError, "copy_", "shape mismatch"
            )
        ],
    ),
]


def _np_shift_left(a, b):
    return np.left_shift(np.asarray(a, dtype=np.int64), b)


BINARY = [
    _binary("floor_divide", np.floor_divide, NUMERIC, samples=nonzero_divisor_samples),
    _binary("remainder", np.remainder, NUMERIC, samples=nonzero_divisor_samples),
    _binary("fmod", np.fmod, NUMERIC, samples=nonzero_divisor_samples),
    _binary("atan2", lambda a, b: np.arctan2(np.asarray(a, dtype=np.float64), b), ALL),
    _binary("hypot", np.hypot, FLOATING, scalars=(2.0, 0.5)),
    _binary("logaddexp", np.logaddexp, FLOATING, scalars=(2.0, 0.5)),
    _binary("maximum", np.maximum, ALL),
    _binary("minimum", np.minimum, ALL),
    _binary("fmax", np.fmax, ALL),
    _binary("fmin", np.fmin, ALL),
    _binary("bitwise_and", np.bitwise_and, BITWISE, grad=False, scalars=(3, True)),
    _binary("bitwise_or", np.bitwise_or, BITWISE, grad=False, scalars=(3, True)),
    _binary("bitwise_xor", np.bitwise_xor, BITWISE, grad=False, scalars=(3, True)),
    _binary(
        "bitwise_left_shift",
        _np_shift_left,
        INTEGRAL,
        grad=False,
        b_low=0,
        b_high=9,
        scalars=(1, 9),
    ),
    _binary(
        "bitwise_right_shift",
        np.right_shift,
        INTEGRAL,
        grad=False,
        b_low=0,
        b_high=9,
        scalars=(1, 9),
    ),
    _compare("logical_and", np.logical_and),
    _compare("logical_or", np.logical_or),
    _compare("logical_xor", np.logical_xor),
]


def _division_errors(name):
    def errors():
        return [
            ErrorSample(
                lambda: getattr(ember, name)(
                    ember.ones(3, dtype=ember.int64), ember.zeros(3).long()
                ),
                RuntimeError,
                "ZeroDivisionError",
                "integer division by a zero tensor",
            ),
            ErrorSample(
                lambda: getattr(ember, name)(ember.ones(3, dtype=ember.int32), 0),
                RuntimeError,
                "ZeroDivisionError",
                "integer division by 0",
            ),
        ]

    return errors


def _integer_broadcast_error(name):
    fn = getattr(ember, name)
    return lambda: [
        ErrorSample(
            lambda: fn(ember.ones(2, 3).long(), ember.ones(4).long()),
            RuntimeError,
            name,
            "shapes [2, 3] and [4]",
        )
    ]


for _spec in BINARY:
    if _spec.name.startswith("bitwise_"):
        _spec.errors = _integer_broadcast_error(_spec.name)
for _spec in BINARY[:3]:
    _spec.errors = (lambda old, new: lambda: old() + new())(
        _spec.errors, _division_errors(_spec.name)
    )


# ---- in-place forms --------------------------------------------------------------------------


def _inplace(name, method, ref, dtypes, scalars=(2,)):
    def fn(a, b):
        out = a.clone()
        getattr(out, method)(b)
        return out

    def samples(dtype, rng):
        out = []
        for sa, sb in [((5,), (5,)), ((3, 4), (4,)), ((3, 4), ()), ((0, 3), (3,))]:
            low = 0.5 if name == "div_" else -3.0
            out.append(
                Sample(
                    (
                        make_array(sa, dtype, rng),
                        make_array(sb, dtype, rng, low, 3.0, name == "div_"),
                    ),
                    desc=f"{sa}x{sb}",
                )
            )
        # A bool tensor can only take a bool scalar in place (True + 2 is no bool).
        for s in (True,) if dtype == ember.bool else scalars:
            out.append(Sample((make_array((3, 4), dtype, rng), s), desc=f"scalar {s}", grad=False))
        return out

    def errors():
        x = ember.ones(3, requires_grad=True)
        return [
            ErrorSample(
                lambda: getattr(ember.ones(3), method)(ember.ones(2, 3)),
                RuntimeError,
                name,
                "output shape vs broadcast",
            ),
            ErrorSample(
                lambda: getattr(x, method)(ember.ones(3)),
                RuntimeError,
                "leaf",
                "in-place on a leaf that requires grad",
            ),
        ]

    return OpSpec(name, fn, ref, dtypes, samples, errors=errors, gradgrad=False)


def _int_div_error():
    return [
        ErrorSample(
            lambda: ember.ones(3, dtype=ember.int64).div_(2),
            RuntimeError,
            "can't be cast",
            "int64 /= int",
        )
    ]


# add_, sub_, mul_ and div_ have records of their own (the other in-place forms are derived).
INPLACE = [
    _inplace("add_", "add_", np.add, ALL + COMPLEX),
    _inplace("sub_", "sub_", np.subtract, NUMERIC + COMPLEX),
    _inplace("mul_", "mul_", np.multiply, ALL + COMPLEX),
    dataclasses.replace(
        _inplace("div_", "div_", np_true_divide, FLOATING + COMPLEX), errors=_int_div_error
    ),
]


def _np_xlogy(a, b):
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    with np.errstate(all="ignore"):
        return np.where((a == 0) & ~np.isnan(b), 0.0, a * np.log(b))


def _float_ref(f):
    return lambda *xs: f(*(np.asarray(x, dtype=np.float64) for x in xs))


# The Python composites of this topic (python/ember/_composites/elementwise.py).
COMPOSITES = [
    OpSpec(
        "frexp",
        ember.frexp,
        lambda x: np.frexp(x),
        FLOATING,
        lambda d, r: [
            Sample((make_array((3, 4), d, r, -40, 40),), desc="3x4", grad=False),
            Sample((np.array([0.0, 1.0, -0.5, 1024.0, np.inf]),), desc="edges", grad=False),
        ],
        grad=False,
    ),
    _unary("deg2rad", as_float(np.deg2rad), ALL),
    _unary("rad2deg", as_float(np.rad2deg), ALL),
    _unary("sinc", as_float(np.sinc), ALL),
    _unary("sgn", np_sgn, ALL + COMPLEX, grad=False),
    _unary("signbit", lambda x: np.signbit(np.asarray(x, dtype=np.float64)), ALL, grad=False),
    _unary("positive", lambda x: x, NUMERIC),
    _unary("isposinf", lambda x: np.isposinf(np.asarray(x, dtype=np.float64)), ALL, grad=False),
    _unary("isneginf", lambda x: np.isneginf(np.asarray(x, dtype=np.float64)), ALL, grad=False),
    _unary("isreal", lambda x: np.ones(np.shape(x), dtype=bool), ALL, grad=False),
    _binary("xlogy", _np_xlogy, ALL, b_low=0.1, b_high=3.0, scalars=(2, 0.5)),
    _binary(
        "copysign", _float_ref(np.copysign), ALL, low=0.2, b_away_from_zero=True, scalars=(2, -0.5)
    ),
    _binary("logaddexp2", np.logaddexp2, FLOATING, scalars=(2, 0.5)),
    _binary("ldexp", _float_ref(lambda a, b: a * np.exp2(b)), ALL, scalars=(2, 0.5)),
    _binary("float_power", _float_ref(np.power), ALL, low=0.5, scalars=(2, 0.5)),
    _binary("rsub", lambda a, b: b - a, NUMERIC, scalars=(2, 0.5)),
    OpSpec(
        "heaviside",
        ember.heaviside,
        np.heaviside,
        NUMERIC,
        lambda d, r: [
            Sample((make_array((3, 4), d, r, -2, 2), make_array((3, 4), d, r)), desc="3x4"),
            Sample((make_array((5,), d, r, -2, 2), make_array((), d, r)), desc="scalar values"),
        ],
        grad=False,
    ),
    OpSpec(
        "gcd",
        ember.gcd,
        np.gcd,
        INTEGRAL,
        lambda d, r: [
            Sample(
                (make_array((3, 4), d, r, -9, 9), make_array((4,), d, r, -9, 9)), desc="3x4 with 4"
            )
        ],
        grad=False,
    ),
    OpSpec(
        "lcm",
        ember.lcm,
        np.lcm,
        INTEGRAL,
        lambda d, r: [
            Sample(
                (make_array((3, 4), d, r, -5, 5), make_array((4,), d, r, -5, 5)), desc="3x4 with 4"
            )
        ],
        grad=False,
    ),
    OpSpec(
        "clamp_min",
        ember.clamp_min,
        lambda x, m: np.maximum(x, m),
        NUMERIC,
        lambda d, r: [
            Sample((make_array((3, 4), d, r), make_array((4,), d, r)), desc="tensor bound"),
            Sample((make_array((3, 4), d, r), 1), desc="min 1"),
        ],
    ),
    OpSpec(
        "clamp_max",
        ember.clamp_max,
        lambda x, m: np.minimum(x, m),
        NUMERIC,
        lambda d, r: [
            Sample((make_array((3, 4), d, r), make_array((4,), d, r)), desc="tensor bound"),
            Sample((make_array((3, 4), d, r), 1), desc="max 1"),
        ],
    ),
]


# (SPECIAL_COMPOSITES is defined after the helpers below.)
# ---- special functions: SciPy's in float64 as the references ----------------------------------

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _np_mvlgamma(x, p):
    return sum(_lgamma(np.asarray(x, dtype=np.float64) - j / 2) for j in range(p)) + p * (
        p - 1
    ) / 4 * math.log(math.pi)


def _c_unary(name, fn, ref, low, high, grad=True):
    """A record of a special kernel bound only in ember._C (ember.special names it)."""
    return OpSpec(name, fn, ref, ALL, unary_samples(low, high), grad=grad, gradgrad=grad)


def _polygamma_samples(dtype, rng):
    return [
        Sample((make_array((3, 4), dtype, rng, 1.0, 3.0),), {"n": n}, desc=f"n={n}")
        for n in (0, 1, 2, 3)
    ] + [Sample((make_array((0, 2), dtype, rng),), {"n": 1}, desc="empty")]


def _special_unary(name, ref, low=-3.0, high=3.0, grad=True):
    fn = getattr(ember.special, name)
    return OpSpec(
        f"special.{name}",
        fn,
        as_float(ref),
        ALL,
        unary_samples(low, high),
        grad=grad,
        gradgrad=grad,
    )


def _chebyshev_v(n, x):
    t = np.arccos(x)
    return np.cos((n + 0.5) * t) / np.cos(t / 2)


def _chebyshev_w(n, x):
    t = np.arccos(x)
    return np.sin((n + 0.5) * t) / np.sin(t / 2)


_POLYNOMIALS = {
    "chebyshev_polynomial_t": (sp.eval_chebyt, -1.0, 1.0),
    "chebyshev_polynomial_u": (sp.eval_chebyu, -1.0, 1.0),
    "chebyshev_polynomial_v": (_chebyshev_v, -0.95, 0.95),
    "chebyshev_polynomial_w": (_chebyshev_w, -0.95, 0.95),
    "shifted_chebyshev_polynomial_t": (sp.eval_sh_chebyt, 0.0, 1.0),
    "shifted_chebyshev_polynomial_u": (sp.eval_sh_chebyu, 0.0, 1.0),
    "shifted_chebyshev_polynomial_v": (lambda n, x: _chebyshev_v(n, 2 * x - 1), 0.03, 0.97),
    "shifted_chebyshev_polynomial_w": (lambda n, x: _chebyshev_w(n, 2 * x - 1), 0.03, 0.97),
    "hermite_polynomial_h": (sp.eval_hermite, -2.0, 2.0),
    "hermite_polynomial_he": (sp.eval_hermitenorm, -2.0, 2.0),
    "laguerre_polynomial_l": (sp.eval_laguerre, -2.0, 2.0),
    "legendre_polynomial_p": (sp.eval_legendre, -1.0, 1.0),
}


def _polynomial_record(name):
    ref, low, high = _POLYNOMIALS[name]

    def samples(dtype, rng):
        x = make_array((3, 4), dtype, rng, low, high)
        out = [Sample((x, n), desc=f"n={n}") for n in (0, 1, 2, 5)]
        degrees = Fixed(np.array([0, 1, 3, 4]), ember.int64)
        out.append(Sample((x, degrees), desc="tensor degrees"))
        return out

    def np_ref(x, n):
        n = np.asarray(getattr(n, "array", n))
        return np.vectorize(lambda d, v: ref(int(d), v), otypes=[np.float64])(n, x)

    return OpSpec(f"special.{name}", getattr(ember.special, name), np_ref, FLOATING, samples)


SPECIAL = [
    _unary("lgamma", as_float(sp.gammaln), ALL, low=0.2, high=5.0),
    _unary("digamma", as_float(sp.digamma), ALL, low=0.2, high=5.0),
    _unary("i0", as_float(sp.i0), ALL),
    _c_unary("special_i0e", ember._C.special_i0e, as_float(sp.i0e), -3.0, 3.0),
    _c_unary("special_i1", ember._C.special_i1, as_float(sp.i1), -3.0, 3.0),
    _c_unary("special_i1e", ember._C.special_i1e, as_float(sp.i1e), -3.0, 3.0),
    OpSpec(
        "polygamma",
        lambda x, n: x.polygamma(n),
        lambda x, n: sp.polygamma(n, x),
        ALL,
        _polygamma_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.polygamma(-1, ember.ones(2)), RuntimeError, "negative n", "n < 0"
            )
        ],
    ),
    # The derivatives in a (igamma's, igammac's) and zeta's in x are not defined by PyTorch
    # either: gradients are checked in test_special.py for the other argument.
    _binary("igamma", sp.gammainc, ALL, grad=False, low=0.5, high=3.0, b_low=0.1, scalars=(2, 0.5)),
    _binary(
        "igammac", sp.gammaincc, ALL, grad=False, low=0.5, high=3.0, b_low=0.1, scalars=(2, 0.5)
    ),
    _binary("nextafter", np.nextafter, [ember.float32, ember.float64], grad=False, scalars=()),
    OpSpec(
        "special_zeta",
        ember._C.special_zeta,
        sp.zeta,
        ALL,
        binary_samples(low=1.5, high=4.0, b_low=0.5, b_high=3.0, scalars=(2, 0.5)),
        grad=False,
    ),
]


SPECIAL_COMPOSITES = [
    OpSpec(
        "mvlgamma",
        lambda x, p: ember.mvlgamma(x, p),
        _np_mvlgamma,
        FLOATING,
        lambda d, r: [
            Sample((make_array((3, 4), d, r, 2.0, 5.0),), {"p": p}, desc=f"p={p}") for p in (1, 3)
        ],
        errors=lambda: [
            ErrorSample(
                lambda: ember.mvlgamma(ember.zeros(2), 3), RuntimeError, "greater than", "domain"
            )
        ],
    ),
    _special_unary("entr", sp.entr, -1.0, 3.0, grad=False),
    _special_unary("ndtr", sp.ndtr),
    _special_unary("ndtri", sp.ndtri, 0.05, 0.95),
    _special_unary("log_ndtr", sp.log_ndtr, -12.0, 3.0),
    _special_unary("erfcx", sp.erfcx, -2.0, 40.0),
    _special_unary("spherical_bessel_j0", lambda x: sp.spherical_jn(0, x)),
    # Ranges crossing each method's switch (J, Y at 2 and 17, K at 2 and 20, Ai at -2 and 1.6);
    # Y and K from 0.1 (NaN below 0, where there is no gradient to check).
    _special_unary("bessel_j0", sp.j0, -25.0, 25.0),
    _special_unary("bessel_j1", sp.j1, -25.0, 25.0),
    _special_unary("bessel_y0", sp.y0, 0.1, 25.0),
    _special_unary("bessel_y1", sp.y1, 0.1, 25.0),
    _special_unary("modified_bessel_k0", sp.k0, 0.1, 30.0),
    _special_unary("modified_bessel_k1", sp.k1, 0.1, 30.0),
    _special_unary("scaled_modified_bessel_k0", sp.k0e, 0.1, 30.0),
    _special_unary("scaled_modified_bessel_k1", sp.k1e, 0.1, 30.0),
    _special_unary("airy_ai", lambda x: sp.airy(x)[0], -12.0, 6.0),
    OpSpec(
        "special.xlog1py",
        ember.special.xlog1py,
        lambda a, b: sp.xlog1py(np.asarray(a, dtype=np.float64), b),
        ALL,
        binary_samples(b_low=-0.5, b_high=3.0, scalars=(2, 0.5)),
    ),
] + [_polynomial_record(name) for name in _POLYNOMIALS]


def records():
    """Every record of this module, with the derived in-place forms: of every unary, arithmetic
    (but those in INPLACE), binary and comparison op, and of the predicates and the ops with
    parameters that have one."""
    hand_written = {s.name for s in INPLACE}
    # An op with parameters has an in-place form exactly when the registry has one (softplus and
    # gelu have none, as in PyTorch).
    unary = UNARY + [s for s in PARAM if s.name + "_" in REGISTRY_DTYPES]
    compare = [s for s in BINARY if s.name.startswith("logical_")] + COMPARE
    binary = [
        s
        for s in ARITHMETIC + BINARY
        if not s.name.startswith("logical_") and s.name + "_" not in hand_written
    ]
    derived = (
        [inplace_of(s) for s in unary]
        + [inplace_of(s, compare=True) for s in PREDICATES if s.name + "_" in REGISTRY_DTYPES]
        + [inplace_of(s, binary=True) for s in binary]
        + [inplace_of(s, binary=True, compare=True) for s in compare]
    )
    combined = COMBINED + [_inplace_ternary(s) for s in COMBINED]
    unary_composites = {"deg2rad", "rad2deg", "sinc", "sgn"}
    composite_inplace = [
        inplace_of(s, binary=s.name not in unary_composites)
        for s in COMPOSITES
        if s.name + "_" in REGISTRY_DTYPES
    ]
    special_inplace = [
        inplace_of(s, binary=s.name in ("igamma", "igammac", "nextafter", "special_zeta"))
        for s in SPECIAL
        if s.name + "_" in REGISTRY_DTYPES
    ]
    return (
        UNARY + PREDICATES + PARAM + ARITHMETIC + BINARY + COMPARE + LOGICAL + combined + OTHER
        + INPLACE + derived + COMPOSITES + composite_inplace + SPECIAL + special_inplace
        + SPECIAL_COMPOSITES + [inplace_of(s) for s in SPECIAL_COMPOSITES if s.name == "mvlgamma"]
    )  # fmt: skip
