"""The op table: one record per op in ember's registry (design.md section 10).

Each OpSpec says how to call the op, a NumPy reference, the dtypes it accepts, sample inputs
(broadcasting, zero-size and 0-d cases among them) and inputs that must raise. The generic tests
in tests/python/test_ops.py run every record: forward against NumPy in float64, gradients against
central finite differences, declared dtypes work and the others raise, non-contiguous inputs agree.
A test fails when an op of the registry has no record here, or a record names no registered op.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Callable, Optional

import numpy as np

import ember

ALL = [
    ember.bool,
    ember.uint8,
    ember.int8,
    ember.int16,
    ember.int32,
    ember.int64,
    ember.float16,
    ember.bfloat16,
    ember.float32,
    ember.float64,
]
FLOATING = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
INTEGRAL = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
NUMERIC = INTEGRAL + FLOATING
# The ops with no 16-bit kernels: the recurrent ops and attention.
FLOAT32_64 = [ember.float32, ember.float64]

NUMPY_DTYPE = {
    ember.bool: np.bool_,
    ember.uint8: np.uint8,
    ember.int8: np.int8,
    ember.int16: np.int16,
    ember.int32: np.int32,
    ember.int64: np.int64,
    ember.float16: np.float16,
    ember.float32: np.float32,
    ember.float64: np.float64,
}


@dataclasses.dataclass
class Sample:
    """Inputs of one call: `args` holds NumPy arrays (they become tensors) and plain values."""

    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    desc: str = ""
    grad: bool = True  # usable for gradcheck (smooth there)


@dataclasses.dataclass
class Fixed:
    """A sample argument that keeps its own dtype whatever dtype the test runs (a bool mask)."""

    array: np.ndarray
    dtype: Any


@dataclasses.dataclass
class ErrorSample:
    """A call that must raise `exc` with `match` (a substring) in the message."""

    make: Callable[[], Any]
    exc: type
    match: str
    desc: str = ""


def error(make, exc, match, desc=""):
    """An ErrorSample described by its match when no desc is given."""
    return ErrorSample(make, exc, match, desc or match)


@dataclasses.dataclass
class OpSpec:
    name: str
    op: Callable  # op(*tensors_and_values, **kwargs) -> Tensor or tuple of Tensors
    ref: Optional[Callable]  # NumPy on float64 / int64 arrays -> array or tuple
    dtypes: Sequence  # dtypes the op accepts
    samples: Callable[[Any, np.random.Generator], list]  # (dtype, rng) -> [Sample]
    grad: bool = True  # check gradients (float64 gradcheck)
    gradgrad: bool = False  # also second derivatives
    errors: Callable[[], list] = lambda: []
    # For ops whose output is not a function of the inputs (random, empty): a custom check.
    check: Optional[Callable[[Any, Sample, Any], None]] = None
    creation: bool = False  # called as op(*args, dtype=dtype, **kwargs): builds a new tensor
    noncontiguous: bool = True  # accepts non-contiguous inputs (view does not, by design)


def make_array(shape, dtype, rng, low=-3.0, high=3.0, away_from_zero=False) -> np.ndarray:
    """Random values representable in `dtype`, as float64 (or int64 / bool) NumPy arrays."""
    if dtype == ember.bool:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in INTEGRAL:
        lo = 0 if dtype == ember.uint8 else int(low)
        hi = max(int(high), lo + 1)
        return np.asarray(rng.integers(lo, hi + 1, size=shape), dtype=np.int64)
    a = np.asarray(rng.uniform(low, high, size=shape))
    if away_from_zero:
        a = np.where(np.abs(a) < 0.2, np.sign(a + 1e-9) * 0.2 + a, a)
    return a


def to_tensor(a, dtype, noncontiguous: bool = False):
    """The array as an ember tensor of `dtype`; with noncontiguous, same values, strided memory."""
    if isinstance(a, Fixed):
        return to_tensor(a.array, a.dtype, noncontiguous)
    if not isinstance(a, np.ndarray):
        return a
    if dtype == ember.bfloat16:
        return to_tensor(a, ember.float32, noncontiguous).to(ember.bfloat16)
    arr = np.asarray(a).astype(NUMPY_DTYPE[dtype])
    if not noncontiguous or arr.size <= 1:
        return ember.from_numpy(np.array(arr, order="C")).clone()  # keeps 0-d arrays 0-d
    if arr.ndim >= 2:
        t = ember.from_numpy(np.ascontiguousarray(np.swapaxes(arr, -1, -2))).clone()
        return t.transpose(-1, -2)
    wide = np.repeat(arr, 2, axis=-1)  # every other element is the real one
    return ember.from_numpy(np.ascontiguousarray(wide)).clone()[::2]


def to_numpy(t) -> np.ndarray:
    """A tensor's values in float64 (floating), int64 (integers) or bool."""
    t = t.detach()
    if t.is_floating_point():
        return t.double().numpy()
    if t.dtype == ember.bool:
        return t.numpy()
    return t.long().numpy()


def rounded(a, dtype):
    """What the array holds after conversion to dtype, back in float64/int64: the reference
    runs on exactly the values the op saw."""
    if isinstance(a, Fixed):
        return rounded(a.array, a.dtype)
    if not isinstance(a, np.ndarray):
        return a
    return to_numpy(to_tensor(a, dtype))


# ---- sample builders ---------------------------------------------------------------------------

SHAPES_UNARY = [(5,), (3, 4), (2, 3, 4), (), (0, 3)]


def unary_samples(low=-3.0, high=3.0, away_from_zero=False):
    def make(dtype, rng):
        return [
            Sample((make_array(s, dtype, rng, low, high, away_from_zero),), desc=f"shape{s}")
            for s in SHAPES_UNARY
        ]

    return make


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


# ---- references ------------------------------------------------------------------------------


def as_float(f):
    """A ref for ops that compute in floating point whatever the input (ints and bools too)."""
    return lambda x: f(np.asarray(x, dtype=np.float64))


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_sign(x):
    # PyTorch's sign(NaN) is 0 (NumPy's is NaN).
    return x.copy() if x.dtype == np.bool_ else np.where(np.isnan(x), 0, np.sign(x))


def promote_ref(f):
    """Wraps a NumPy binary ref so Python scalars keep weak (PyTorch) semantics: NumPy would
    otherwise promote float16 data with a float scalar to float64, which changes nothing for
    float64 comparison but keeps integer results integer."""

    def g(a, b):
        return f(a, b)

    return g


def np_true_divide(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(np.asarray(a, dtype=np.float64), b)


def np_pow(a, b):
    return np.power(a, b)


def sum_ref(a, dim=None, keepdim=False, dtype=None):
    axis = None if dim is None else (tuple(dim) if isinstance(dim, (tuple, list)) else dim)
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    return np.sum(a, axis=axis, keepdims=keepdim)


def mean_ref(a, dim=None, keepdim=False, dtype=None):
    axis = None if dim is None else (tuple(dim) if isinstance(dim, (tuple, list)) else dim)
    with np.errstate(invalid="ignore"):
        return np.mean(a, axis=axis, keepdims=keepdim)


def max_ref(a, dim=None, keepdim=False):
    if dim is None:
        return np.max(a)
    values = np.max(a, axis=dim, keepdims=keepdim)
    indices = np.argmax(a, axis=dim)
    if keepdim:
        indices = np.expand_dims(indices, dim)
    return values, indices


# ---- error samples ---------------------------------------------------------------------------


def broadcast_error(fn, name):
    return lambda: [
        ErrorSample(
            lambda: fn(ember.ones(2, 3), ember.ones(4)), RuntimeError, name, "shapes [2, 3] and [4]"
        ),
    ]


def error_list(*samples):
    """An OpSpec's `errors` for a fixed list of ErrorSamples."""
    return lambda: list(samples)


def dim_error_sample(fn, name):
    """fn(x, dim) on a (2, 3) tensor with dim 5 must raise IndexError naming the op."""
    return ErrorSample(lambda: fn(ember.ones(2, 3), 5), IndexError, name, "dim 5")


def dim_error(fn, name):
    return error_list(dim_error_sample(fn, name))


# ---- shared by several topics -----------------------------------------------------------------


def np_axis(dim):
    """A dim argument as NumPy's axis: a list of dims becomes a tuple."""
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def index_tensor(*values):
    return ember.tensor(list(values), dtype=ember.int64)


def nan_mask(line):
    return np.isnan(line) if line.dtype.kind == "f" else np.zeros(line.shape, dtype=bool)


# (shape, dim): every dim of 1-d, 2-d and 3-d inputs, a 0-d input, zero-size lines and a long one.
LINES = [
    ((5,), -1),
    ((3, 4), 0),
    ((3, 4), 1),
    ((2, 3, 4), 1),
    ((), 0),
    ((0, 3), 1),
    ((3, 0), 1),
    ((4, 300), 1),
]


def with_nan(dtype, rng, shape=(3, 5)):
    x = make_array(shape, dtype, rng)
    x[0, 1] = x[2, 3] = x[2, 0] = np.nan
    return x


def ntuple(v, nd):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd


def as_batched(x, nd):
    return (x, True) if x.ndim == nd + 2 else (x[None], False)


def adaptive_windows(ins, outs):
    for o in np.ndindex(*outs):
        axes = [
            range(o[i] * ins[i] // outs[i], -(-(o[i] + 1) * ins[i] // outs[i]))
            for i in range(len(ins))
        ]
        grid = np.meshgrid(*axes, indexing="ij")
        yield o, np.ravel_multi_index(grid, ins).reshape(-1)


def adaptive_sizes(x, output_size, nd):
    sizes = ntuple(output_size, nd)
    return tuple(x.shape[-nd + i] if v is None else v for i, v in enumerate(sizes))


def np_adaptive_avg(nd):
    def ref(x, output_size):
        xb, batched = as_batched(x, nd)
        ins, outs = xb.shape[2:], adaptive_sizes(x, output_size, nd)
        flat = xb.reshape(*xb.shape[:2], math.prod(xb.shape[2:]))
        out = np.empty((*xb.shape[:2], *outs))
        for o, pos in adaptive_windows(ins, outs):
            out[(slice(None), slice(None), *o)] = flat[:, :, pos].mean(axis=2)
        return out if batched else out[0]

    return ref


def input_cases(*cases):
    """cases: (shape, args, kwargs[, grad]): one input array, then plain args."""

    def make(dtype, rng):
        out = []
        for c in cases:
            shape, args, kw = c[:3]
            grad = c[3] if len(c) > 3 else True
            x = make_array(shape, dtype, rng)
            out.append(Sample((x, *args), dict(kw), f"{shape} {args} {kw}", grad))
        return out

    return make


# ---- the table -------------------------------------------------------------------------------


def _unary(name, fn, ref, dtypes, low=-3.0, high=3.0, away=False, gradgrad=True, grad=True):
    return OpSpec(
        name,
        fn,
        ref,
        dtypes,
        unary_samples(low, high, away),
        grad=grad,
        gradgrad=gradgrad,
    )


def _binary(name, fn, ref, dtypes, gradgrad=True, grad=True, **kw):
    return OpSpec(
        name,
        fn,
        ref,
        dtypes,
        binary_samples(**kw),
        grad=grad,
        gradgrad=gradgrad,
        errors=broadcast_error(fn, name),
    )


def _compare(name, ref):
    return OpSpec(
        name,
        getattr(ember, name),
        ref,
        ALL,
        binary_samples(scalars=(1, 0.5)),
        grad=False,
        errors=broadcast_error(getattr(ember, name), name),
    )


def _creation_check(expected_fill):
    def check(out, sample, dtype):
        assert out.dtype == dtype
        want = np.full(out.shape, expected_fill).astype(NUMPY_DTYPE.get(dtype, np.float32))
        np.testing.assert_array_equal(to_numpy(out), want.astype(to_numpy(out).dtype))

    return check


def _random_check(low, high, integral=False):
    def check(out, sample, dtype):
        assert out.dtype == dtype
        v = to_numpy(out)
        assert v.shape == tuple(out.shape)
        if v.size:
            assert v.min() >= low and v.max() < high, (v.min(), v.max())
            if integral:
                assert np.all(v == np.round(v))

    return check


def _shape_check(out, sample, dtype):
    assert out.dtype == dtype
    assert tuple(out.shape) == tuple(sample.kwargs["size"])


def _strides_check(out, strides):
    assert tuple(out.stride()) == tuple(strides), (out.stride(), strides)


def _randn_check(out, sample, dtype):
    assert out.dtype == dtype
    v = to_numpy(out)
    assert np.all(np.isfinite(v))


def _shape_samples(shapes):
    return lambda dtype, rng: [Sample((), {"size": s}, desc=f"size{s}", grad=False) for s in shapes]


def _view_samples(*cases):
    """cases: (shape, args...) — the op is called as op(x, *args)."""

    def make(dtype, rng):
        return [Sample((make_array(c[0], dtype, rng),) + tuple(c[1:]), desc=f"{c}") for c in cases]

    return make


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


def _matmul_samples(dtype, rng):
    cases = [
        ((4,), (4,)),
        ((3, 4), (4,)),
        ((4,), (4, 2)),
        ((3, 4), (4, 2)),
        ((2, 3, 4), (4, 2)),
        ((2, 3, 4), (4,)),
        ((4,), (2, 4, 3)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((0, 4), (4, 2)),
        ((3, 0), (0, 2)),
    ]
    return [
        Sample(
            (make_array(a, dtype, rng, -2, 2), make_array(b, dtype, rng, -2, 2)), desc=f"{a}@{b}"
        )
        for a, b in cases
    ]


def _mm_samples(dtype, rng):
    return [
        Sample(
            (make_array(a, dtype, rng, -2, 2), make_array(b, dtype, rng, -2, 2)), desc=f"{a}@{b}"
        )
        for a, b in [((3, 4), (4, 2)), ((1, 5), (5, 1)), ((0, 3), (3, 2)), ((3, 0), (0, 2))]
    ]


def _bmm_samples(dtype, rng):
    return [
        Sample(
            (make_array(a, dtype, rng, -2, 2), make_array(b, dtype, rng, -2, 2)), desc=f"{a}@{b}"
        )
        for a, b in [((2, 3, 4), (2, 4, 5)), ((1, 2, 2), (1, 2, 2)), ((0, 3, 4), (0, 4, 2))]
    ]


def reduce_samples(dtype, rng):
    out = []
    for shape, kw in [
        ((5,), {}),
        ((3, 4), {}),
        ((3, 4), {"dim": 0}),
        ((3, 4), {"dim": 1}),
        ((2, 3, 4), {"dim": (0, 2)}),
        ((2, 3, 4), {"dim": -1, "keepdim": True}),
        ((), {}),
        ((0, 3), {"dim": 1}),
        ((0, 3), {}),
        ((40, 300), {"dim": 0}),
        ((1000,), {}),
        ((257,), {}),  # pairwise blocks of 256 plus a tail
        ((40_000,), {}),  # more than one chunk of a full reduction (32768 elements)
        ((64, 70), {"dim": 1}),
    ]:
        out.append(Sample((make_array(shape, dtype, rng),), kw, desc=f"{shape} {kw}"))
    return out


def max_samples(dtype, rng):
    out = []
    for shape, kw in [
        ((5,), {}),
        ((3, 4), {}),
        ((3, 4), {"dim": 0}),
        ((3, 4), {"dim": 1}),
        ((2, 3, 4), {"dim": -1, "keepdim": True}),
        ((), {}),
        ((), {"dim": 0}),
        ((0, 3), {"dim": 1}),
    ]:
        # Distinct values so the max (and its gradient) is unique.
        n = int(np.prod(shape)) if shape else 1
        if dtype in FLOATING:
            vals = rng.permutation(n).astype(np.float64) * 0.25 - 2
        elif dtype == ember.bool:
            vals = rng.random(n) < 0.5
        else:
            vals = rng.permutation(n) % (100 if dtype != ember.uint8 else 200)
        out.append(Sample((vals.reshape(shape),), kw, desc=f"{shape} {kw}"))
    return out


def _to_op(x, dtype_name):
    return x.to(getattr(ember, dtype_name))


OPS: list[OpSpec] = [
    # ---- creation ----
    OpSpec(
        "empty",
        lambda size, dtype: ember.empty(*size, dtype=dtype),
        None,
        ALL,
        _shape_samples([(2, 3), (0,), ()]),
        grad=False,
        check=_shape_check,
        errors=lambda: [
            ErrorSample(lambda: ember.empty(2, -1), RuntimeError, "empty", "negative size")
        ],
        creation=True,
    ),
    OpSpec(
        "zeros",
        lambda size, dtype: ember.zeros(*size, dtype=dtype),
        None,
        ALL,
        _shape_samples([(2, 3), (0,), ()]),
        grad=False,
        check=_creation_check(0),
        errors=lambda: [
            ErrorSample(lambda: ember.zeros(-2), RuntimeError, "zeros", "negative size")
        ],
        creation=True,
    ),
    OpSpec(
        "empty_strided",
        lambda size, stride, dtype: ember.empty_strided(size, stride, dtype=dtype),
        None,
        ALL,
        lambda d, r: [Sample(((2, 3), (1, 2)), desc="(2,3) strides (1,2)", grad=False)],
        grad=False,
        check=lambda out, s, d: (
            _shape_check(out, Sample((), {"size": s.args[0]}), d),
            _strides_check(out, s.args[1]),
        ),
        creation=True,
    ),
    OpSpec(
        "scalar_tensor",
        lambda v, dtype: ember.scalar_tensor(v, dtype=dtype),
        lambda v: np.array(v),
        ALL,
        lambda d, r: [Sample((1,), desc="1")],
        grad=False,
        creation=True,
    ),
    OpSpec(
        "ones",
        lambda size, dtype: ember.ones(*size, dtype=dtype),
        None,
        ALL,
        _shape_samples([(2, 3), (0,), ()]),
        grad=False,
        check=_creation_check(1),
        creation=True,
    ),
    OpSpec(
        "full",
        lambda size, dtype: ember.full(size, 7, dtype=dtype),
        None,
        ALL,
        _shape_samples([(2, 3), ()]),
        grad=False,
        check=_creation_check(7),
        creation=True,
    ),
    OpSpec(
        "arange",
        lambda dtype: ember.arange(1, 11, 3, dtype=dtype),
        lambda: np.arange(1, 11, 3),
        NUMERIC,
        lambda d, r: [Sample((), desc="1..11 step 3")],
        grad=False,
        errors=lambda: [
            ErrorSample(lambda: ember.arange(0, 5, 0), RuntimeError, "step", "zero step"),
            ErrorSample(lambda: ember.arange(5, 0, 1), RuntimeError, "arange", "wrong direction"),
        ],
        creation=True,
    ),
    OpSpec(
        "linspace",
        lambda dtype: ember.linspace(-2, 10, 7, dtype=dtype),
        lambda: np.linspace(-2, 10, 7),
        NUMERIC,
        lambda d, r: [Sample((), desc="-2..10 x7")],
        grad=False,
        errors=lambda: [
            ErrorSample(lambda: ember.linspace(0, 1, -1), RuntimeError, "steps", "negative steps")
        ],
        creation=True,
    ),
    OpSpec(
        "eye",
        lambda dtype: ember.eye(3, 4, dtype=dtype),
        lambda: np.eye(3, 4),
        ALL,
        lambda d, r: [Sample((), desc="3x4")],
        grad=False,
        creation=True,
    ),
    OpSpec(
        "rand",
        lambda size, dtype: ember.rand(*size, dtype=dtype),
        None,
        FLOATING,
        _shape_samples([(1000,), (0,), ()]),
        grad=False,
        check=_random_check(0, 1),
        errors=lambda: [
            ErrorSample(
                lambda: ember.rand(3, dtype=ember.int64), RuntimeError, "rand", "integer dtype"
            )
        ],
        creation=True,
    ),
    OpSpec(
        "randn",
        lambda size, dtype: ember.randn(*size, dtype=dtype),
        None,
        FLOATING,
        _shape_samples([(1000,), (0,), ()]),
        grad=False,
        check=_randn_check,
        creation=True,
    ),
    OpSpec(
        "randint",
        lambda size, dtype: ember.randint(0, 5, size, dtype=dtype),
        None,
        NUMERIC,
        _shape_samples([(1000,), (0,)]),
        grad=False,
        check=_random_check(0, 5, True),
        errors=lambda: [
            ErrorSample(lambda: ember.randint(5, 5, (3,)), RuntimeError, "randint", "low >= high")
        ],
        creation=True,
    ),
    OpSpec(
        "randperm",
        lambda size, dtype: ember.randperm(size[0], dtype=dtype),
        None,
        NUMERIC,
        _shape_samples([(50,), (0,)]),
        grad=False,
        check=lambda out, s, d: np.testing.assert_array_equal(
            np.sort(to_numpy(out)), np.arange(s.kwargs["size"][0])
        ),
        creation=True,
    ),
    OpSpec(
        "empty_like",
        lambda x: ember.empty_like(x),
        None,
        ALL,
        unary_samples(),
        grad=False,
        check=lambda out, s, d: None,
    ),
    OpSpec(
        "zeros_like",
        lambda x: ember.zeros_like(x),
        lambda x: np.zeros_like(x),
        ALL,
        unary_samples(),
        grad=False,
    ),
    OpSpec(
        "ones_like",
        lambda x: ember.ones_like(x),
        lambda x: np.ones_like(x),
        ALL,
        unary_samples(),
        grad=False,
    ),
    OpSpec(
        "full_like",
        lambda x: ember.full_like(x, 3),
        lambda x: np.full_like(x, 3),
        ALL,
        unary_samples(),
        grad=False,
    ),
    OpSpec(
        "rand_like",
        lambda x: ember.rand_like(x),
        None,
        FLOATING,
        unary_samples(),
        grad=False,
        check=_random_check(0, 1),
    ),
    OpSpec(
        "randn_like",
        lambda x: ember.randn_like(x),
        None,
        FLOATING,
        unary_samples(),
        grad=False,
        check=_randn_check,
    ),
    OpSpec(
        "randint_like",
        lambda x: ember.randint_like(x, 0, 4),
        None,
        NUMERIC,
        unary_samples(),
        grad=False,
        check=_random_check(0, 4, True),
    ),
    OpSpec(
        "tensor",
        lambda dtype: ember.tensor([[1, 2], [3, 4]], dtype=dtype),
        lambda: np.array([[1, 2], [3, 4]]),
        ALL,
        lambda d, r: [Sample((), desc="2x2")],
        grad=False,
        errors=lambda: [
            ErrorSample(
                lambda: ember.tensor([[1, 2], [3]]),
                ValueError,
                "expected sequence of length 2",
                "ragged",
            )
        ],
        creation=True,
    ),
    # ---- views and copies ----
    OpSpec(
        "view",
        lambda x, s: x.view(*s),
        lambda x, s: x.reshape(s),
        ALL,
        _view_samples(
            ((2, 6), (3, 4)), ((2, 6), (-1,)), ((12,), (2, -1, 3)), ((), (1,)), ((0, 3), (3, 0))
        ),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(2, 3).view(4), RuntimeError, "view", "wrong numel"),
            ErrorSample(lambda: ember.ones(2, 3).t().view(6), RuntimeError, "view", "non-viewable"),
        ],
        noncontiguous=False,
    ),
    OpSpec(
        "reshape",
        lambda x, s: x.reshape(*s),
        lambda x, s: x.reshape(s),
        ALL,
        _view_samples(((2, 6), (3, 4)), ((2, 6), (-1,)), ((), ()), ((0, 3), (-1,))),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(6).reshape(-1, -1), RuntimeError, "reshape", "two -1")
        ],
    ),
    OpSpec(
        "permute",
        lambda x, d: x.permute(*d),
        lambda x, d: np.transpose(x, d),
        ALL,
        _view_samples(((2, 3, 4), (2, 0, 1)), ((2, 3), (1, 0)), ((), ())),
        errors=lambda: [
            ErrorSample(
                lambda: ember.ones(2, 3).permute(0, 0), RuntimeError, "permute", "repeated dim"
            )
        ],
    ),
    OpSpec(
        "transpose",
        lambda x, a, b: x.transpose(a, b),
        lambda x, a, b: np.swapaxes(x, a, b),
        ALL,
        _view_samples(((2, 3, 4), 0, 2), ((2, 3), -1, -2), ((5,), 0, 0)),
        errors=dim_error(lambda x, d: x.transpose(0, d), "transpose"),
    ),
    OpSpec(
        "t",
        lambda x: x.t(),
        lambda x: x.T,
        ALL,
        _view_samples(((2, 3),), ((4,),), ((),)),
        errors=lambda: [ErrorSample(lambda: ember.ones(2, 2, 2).t(), RuntimeError, "t", "3-d")],
    ),
    OpSpec(
        "expand",
        lambda x, s: x.expand(*s),
        lambda x, s: np.broadcast_to(x, s),
        ALL,
        _view_samples(((3, 1), (3, 4)), ((4,), (2, 4)), ((), (2, 2)), ((1, 3), (0, 3))),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(3).expand(4), RuntimeError, "expand", "size mismatch")
        ],
    ),
    OpSpec(
        "squeeze",
        lambda x, *d: x.squeeze(*d),
        lambda x, *d: (np.squeeze(x, d[0]) if x.shape[d[0]] == 1 else x) if d else np.squeeze(x),
        ALL,
        _view_samples(((1, 3, 1),), ((1, 3, 1), 0), ((1, 3, 1), 1), ((),)),
        errors=dim_error(lambda x, d: x.squeeze(d), "squeeze"),
    ),
    OpSpec(
        "unsqueeze",
        lambda x, d: x.unsqueeze(d),
        lambda x, d: np.expand_dims(x, d),
        ALL,
        _view_samples(((2, 3), 0), ((2, 3), -1), ((), 0)),
        errors=dim_error(lambda x, d: x.unsqueeze(d), "unsqueeze"),
    ),
    OpSpec(
        "flatten",
        lambda x, *a: x.flatten(*a),
        lambda x, *a: (
            x.reshape(
                x.shape[: a[0]] + (-1,) + x.shape[a[1] + 1 :]
                if a[1] != -1
                else x.shape[: a[0]] + (-1,)
            )
            if a
            else x.reshape(-1)
        ),
        ALL,
        _view_samples(((2, 3, 4),), ((2, 3, 4), 1, 2), ((),)),
        errors=dim_error(lambda x, d: x.flatten(d), "flatten"),
    ),
    OpSpec(
        "narrow",
        lambda x, d, s, n: x.narrow(d, s, n),
        lambda x, d, s, n: np.take(x, range(s, s + n), axis=d),
        ALL,
        _view_samples(((4, 5), 1, 1, 3), ((4, 5), 0, -2, 2), ((4,), 0, 0, 0)),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(4).narrow(0, 2, 5), RuntimeError, "narrow", "too long")
        ],
    ),
    OpSpec(
        "select",
        lambda x, d, i: x.select(d, i),
        lambda x, d, i: np.take(x, i, axis=d),
        ALL,
        _view_samples(((4, 5), 1, 2), ((4, 5), 0, -1), ((3,), 0, 1)),
        errors=lambda: [
            ErrorSample(
                lambda: ember.ones(4).select(0, 4), IndexError, "select", "index out of range"
            )
        ],
    ),
    OpSpec(
        "slice",
        lambda x, s: x[s],
        lambda x, s: x[s],
        ALL,
        _view_samples(
            ((10,), slice(1, 8, 3)),
            ((4, 5), (slice(None), slice(1, None, 2))),
            ((4, 5), (1, slice(None, -1))),
            ((4, 5), (None, Ellipsis, 2)),
            ((6,), slice(-100, 100)),
        ),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(4)[::-1], ValueError, "step", "negative step"),
            ErrorSample(lambda: ember.ones(4)[1, 2], IndexError, "too many", "too many indices"),
        ],
    ),
    OpSpec(
        "contiguous",
        lambda x: x.t().contiguous() if x.dim() == 2 else x.contiguous(),
        lambda x: x.T.copy() if x.ndim == 2 else x,
        ALL,
        _view_samples(((3, 4),), ((5,),), ((),)),
    ),
    OpSpec("clone", lambda x: x.clone(), lambda x: x.copy(), ALL, unary_samples()),
    OpSpec("detach", lambda x: x.detach(), lambda x: x, ALL, unary_samples(), grad=False),
    OpSpec(
        "to",
        _to_op,
        lambda x, name: x.astype(
            {"float64": np.float64, "int64": np.int64, "bool": np.bool_}[name]
        ),
        ALL,
        lambda d, r: [
            Sample((make_array((3, 4), d, r), n), desc=n, grad=n == "float64")
            for n in ("float64", "int64", "bool")
        ],
    ),
    OpSpec(
        "sum_to_size",
        lambda x, s: x.sum_to_size(*s),
        lambda x, s: _np_sum_to_size(x, s),
        ALL,
        _view_samples(((2, 3, 4), (3, 1)), ((3, 4), (3, 4)), ((3, 4), ())),
    ),
    OpSpec(
        "as_strided",
        lambda x, size, stride, off: x.as_strided(size, stride, off),
        lambda x, size, stride, off: np.lib.stride_tricks.as_strided(
            x.reshape(-1)[off:], size, [st * x.itemsize for st in stride]
        ).copy(),
        ALL,
        _view_samples(
            ((4, 5), (3, 3), (5, 1), 1), ((4, 5), (4,), (6,), 0), ((6,), (2, 2), (0, 1), 2)
        ),
        grad=False,
        noncontiguous=False,  # it reads storage, which a strided copy lays out differently
        errors=lambda: [
            ErrorSample(
                lambda: ember.ones(4).as_strided((3,), (2,)),
                RuntimeError,
                "as_strided",
                "out of bounds",
            ),
            ErrorSample(
                lambda: ember.ones(4, requires_grad=True).as_strided((2,), (1,)),
                RuntimeError,
                "as_strided",
                "no backward yet",
            ),
        ],
    ),
    OpSpec(
        "select_backward",
        lambda g, sizes, dim, index: ember._C._select_backward(g, sizes, dim, index),
        lambda g, sizes, dim, index: _np_select_backward(g, sizes, dim, index),
        ALL,
        lambda d, r: [
            Sample((make_array((3, 5), d, r), (3, 4, 5), 1, 2), desc="(3,4,5) dim 1 index 2"),
            Sample((make_array((), d, r), (4,), 0, -1), desc="(4,) dim 0 index -1"),
        ],
        gradgrad=True,
    ),
    OpSpec(
        "slice_backward",
        lambda g, sizes, dim, a, b, step: ember._C._slice_backward(g, sizes, dim, a, b, step),
        lambda g, sizes, dim, a, b, step: _np_slice_backward(g, sizes, dim, a, b, step),
        ALL,
        lambda d, r: [
            Sample((make_array((3, 2), d, r), (3, 5), 1, 1, 5, 2), desc="(3,5) dim 1 1:5:2"),
            Sample((make_array((0, 4), d, r), (2, 4), 0, 2, 2, 1), desc="empty slice"),
        ],
        gradgrad=True,
    ),
    # ---- elementwise: unary ----
    _unary("neg", ember.neg, np.negative, NUMERIC),
    _unary("abs", ember.abs, np.abs, NUMERIC, away=True),
    _unary("sign", ember.sign, np_sign, ALL, grad=False),
    _unary("exp", ember.exp, as_float(np.exp), ALL),
    _unary("log", ember.log, as_float(np.log), ALL, low=0.1, high=4.0),
    _unary("sqrt", ember.sqrt, as_float(np.sqrt), ALL, low=0.1, high=4.0),
    _unary("tanh", ember.tanh, as_float(np.tanh), ALL),
    _unary("sigmoid", ember.sigmoid, as_float(np_sigmoid), ALL),
    _unary("relu", ember.relu, lambda x: np.maximum(x, 0), NUMERIC, away=True),
    # ---- elementwise: binary ----
    _binary("add", ember.add, np.add, ALL),
    _binary("sub", ember.sub, np.subtract, NUMERIC),
    _binary("mul", ember.mul, np.multiply, ALL),
    _binary("div", ember.div, np_true_divide, ALL, b_away_from_zero=True, b_low=0.5, b_high=3.0),
    _binary(
        "pow", ember.pow, np_pow, NUMERIC, low=0.5, high=2.0, b_low=0, b_high=3, scalars=(2, 0.5)
    ),
    _compare("eq", np.equal),
    _compare("ne", np.not_equal),
    _compare("lt", np.less),
    _compare("le", np.less_equal),
    _compare("gt", np.greater),
    _compare("ge", np.greater_equal),
    OpSpec(
        "where",
        ember.where,
        lambda c, a, b: np.where(c, a, b),
        ALL,
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
    # ---- in place ----
    _inplace("add_", "add_", np.add, ALL),
    _inplace("sub_", "sub_", np.subtract, NUMERIC),
    _inplace("mul_", "mul_", np.multiply, ALL),
    dataclasses.replace(_inplace("div_", "div_", np_true_divide, FLOATING), errors=_int_div_error),
    OpSpec(
        "zero_",
        lambda x: x.clone().zero_(),
        lambda x: np.zeros_like(x),
        ALL,
        unary_samples(),
    ),
    OpSpec(
        "fill_",
        lambda x: x.clone().fill_(1),
        lambda x: np.ones_like(x),
        ALL,
        unary_samples(),
    ),
    OpSpec(
        "copy_",
        lambda x, y: x.clone().copy_(y),
        lambda x, y: np.broadcast_to(y, x.shape),
        ALL,
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
    # ---- reductions ----
    OpSpec(
        "sum",
        lambda x, **kw: ember.sum(x, **kw),
        sum_ref,
        ALL,
        reduce_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.sum(d), "sum"),
    ),
    OpSpec(
        "mean",
        lambda x, **kw: ember.mean(x, **kw),
        mean_ref,
        FLOATING,
        reduce_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.ones(3, dtype=ember.int64).mean(),
                RuntimeError,
                "mean",
                "integer input",
            ),
            ErrorSample(lambda: ember.ones(2, 3).mean(2), IndexError, "mean", "dim 2"),
        ],
    ),
    OpSpec(
        "max",
        lambda x, **kw: ember.max(x, **kw),
        max_ref,
        ALL,
        max_samples,
        errors=lambda: [
            ErrorSample(lambda: ember.ones(0).max(), RuntimeError, "max", "empty"),
            ErrorSample(lambda: ember.ones(2, 0).max(1), IndexError, "max", "empty dim"),
        ],
    ),
    # ---- linear algebra ----
    OpSpec(
        "mm",
        ember.mm,
        np.matmul,
        NUMERIC,
        _mm_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.mm(ember.ones(2, 3), ember.ones(4, 5)),
                RuntimeError,
                "(2x3 and 4x5)",
                "inner mismatch",
            ),
            ErrorSample(
                lambda: ember.mm(ember.ones(3), ember.ones(3, 2)), RuntimeError, "mm", "1-d"
            ),
        ],
    ),
    OpSpec(
        "bmm",
        ember.bmm,
        np.matmul,
        NUMERIC,
        _bmm_samples,
        errors=lambda: [
            ErrorSample(
                lambda: ember.bmm(ember.ones(2, 2, 3), ember.ones(3, 3, 2)),
                RuntimeError,
                "bmm",
                "batch mismatch",
            )
        ],
    ),
    OpSpec(
        "matmul",
        ember.matmul,
        np.matmul,
        NUMERIC,
        _matmul_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.matmul(ember.ones(2, 3), ember.ones(4)),
                RuntimeError,
                "matmul",
                "inner mismatch",
            ),
            ErrorSample(
                lambda: ember.matmul(ember.ones(2, 3, dtype=ember.float64), ember.ones(3, 2)),
                RuntimeError,
                "same dtype",
                "dtype mismatch",
            ),
            ErrorSample(
                lambda: ember.matmul(ember.ones(()), ember.ones(3)),
                RuntimeError,
                "at least 1-D",
                "0-d operand",
            ),
        ],
    ),
]


def _np_select_backward(g, sizes, dim, index):
    out = np.zeros(sizes, dtype=g.dtype)
    idx = [slice(None)] * len(sizes)
    idx[dim] = index
    out[tuple(idx)] = g
    return out


def _np_slice_backward(g, sizes, dim, start, end, step):
    out = np.zeros(sizes, dtype=g.dtype)
    idx = [slice(None)] * len(sizes)
    idx[dim] = slice(start, end, step)
    out[tuple(idx)] = g
    return out


def _np_sum_to_size(x, shape):
    if x.dtype == np.bool_:
        x = x.astype(np.int64)
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1
    )
    return np.sum(x, axis=axes, keepdims=True).reshape(shape) if axes else x.reshape(shape)


# The records beyond the foundation's live in modules by topic, which import the
# helpers above: hence the import here, at the end, once they exist.
from ember.testing.op_db import (  # noqa: E402
    elementwise,
    indexing,
    linalg,
    nn_attention,
    nn_conv,
    nn_dropout,
    nn_embedding,
    nn_loss,
    nn_norm,
    nn_pool,
    nn_resample,
    nn_rnn,
    random,
    reduce,
    scan,
    softmax,
    sort,
    statistics,
)
from ember.testing.op_db import shape as shape_ops  # noqa: E402  (`shape` is a loop name above)

for _topic in (
    linalg, random, elementwise, reduce, statistics, softmax, shape_ops, indexing, sort, scan,
    nn_conv, nn_pool, nn_resample, nn_norm, nn_dropout, nn_loss, nn_embedding, nn_rnn, nn_attention,
):  # fmt: skip
    OPS += _topic.records()
OP_DB = {spec.name: spec for spec in OPS}
