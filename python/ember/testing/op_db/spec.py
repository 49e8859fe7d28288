"""The op table's building blocks: the record types (OpSpec, Sample, Fixed, ErrorSample), the
dtype lists, the conversions between NumPy arrays and tensors, and the helpers that several topic
modules share (sample makers, references, error samples).

Each OpSpec says how to call the op, a NumPy reference, the dtypes it accepts, sample inputs
(broadcasting, zero-size and 0-d cases among them) and inputs that must raise. The generic tests
in tests/python/test_ops.py run every record: forward against NumPy in float64, gradients against
central finite differences, declared dtypes work and the others raise, non-contiguous inputs agree.

A helper that one topic alone uses lives in that topic's module; this module imports no topic."""

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
COMPLEX = [ember.complex64, ember.complex128]
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
    ember.complex64: np.complex64,
    ember.complex128: np.complex128,
}


def complex_partner(a: np.ndarray) -> np.ndarray:
    """The complex values a record's real sample stands for in a complex dtype: a + i cos(3a), so
    that the imaginary parts vary as the real ones do, smoothly (for finite differences)."""
    a = np.asarray(a, dtype=np.float64)
    return a + 1j * np.cos(3.0 * a)


@dataclasses.dataclass
class Sample:
    """Inputs of one call: `args` holds NumPy arrays (they become tensors) and plain values."""

    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    desc: str = ""
    grad: bool = True  # usable for gradcheck (smooth there)
    gradgrad: bool = True  # and for gradgradcheck, when its spec checks second derivatives


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


@dataclasses.dataclass
class OpSpec:
    """One record of the table (the module's docstring says how the tests use it)."""

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
    # (rtol, atol) per output dtype where the test's defaults are too tight for the op: the
    # factorisations in float32 lose about cond(A) * eps.
    tol: Optional[dict] = None


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
    if dtype in COMPLEX and not np.iscomplexobj(a):
        a = complex_partner(a)
    arr = np.asarray(a).astype(NUMPY_DTYPE[dtype])
    if not noncontiguous or arr.size <= 1:
        return ember.from_numpy(np.array(arr, order="C")).clone()  # keeps 0-d arrays 0-d
    if arr.ndim >= 2:
        t = ember.from_numpy(np.ascontiguousarray(np.swapaxes(arr, -1, -2))).clone()
        return t.transpose(-1, -2)
    wide = np.repeat(arr, 2, axis=-1)  # every other element is the real one
    return ember.from_numpy(np.ascontiguousarray(wide)).clone()[::2]


def to_numpy(t) -> np.ndarray:
    """A tensor's values in float64 (floating), complex128 (complex), int64 (integers) or bool."""
    t = t.detach()
    if t.is_complex():
        return t.to(ember.complex128).numpy()
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


# ---- sample makers ----------------------------------------------------------------------------


SHAPES_UNARY = [(5,), (3, 4), (2, 3, 4), (), (0, 3)]


def unary_samples(low=-3.0, high=3.0, away_from_zero=False):
    """One input of each shape of SHAPES_UNARY (creation's *_like, view, elementwise)."""

    def make(dtype, rng):
        return [
            Sample((make_array(s, dtype, rng, low, high, away_from_zero),), desc=f"shape{s}")
            for s in SHAPES_UNARY
        ]

    return make


def size_samples(shapes):
    """The factories' `size` keyword, one sample a shape (creation, random)."""
    return lambda dtype, rng: [Sample((), {"size": s}, desc=f"size{s}", grad=False) for s in shapes]


def reduce_samples(dtype, rng):
    """One input reduced over everything, one dim, several dims; 0-d, zero-size and long inputs
    (reduce, statistics)."""
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


def input_cases(*cases):
    """cases: (shape, args, kwargs[, grad]): one input array, then plain args (nn_pool,
    nn_resample)."""

    def make(dtype, rng):
        out = []
        for c in cases:
            shape, args, kw = c[:3]
            grad = c[3] if len(c) > 3 else True
            x = make_array(shape, dtype, rng)
            out.append(Sample((x, *args), dict(kw), f"{shape} {args} {kw}", grad))
        return out

    return make


def array_cases(*cases, low=-3.0, high=3.0, make=None):
    """cases: (shapes, args, kwargs[, grad]): one array per shape, then plain args (shape,
    linalg, indexing). `make(shape, dtype, rng)` replaces make_array when values must be
    special (exact in every dtype)."""

    def samples(dtype, rng):
        out = []
        for c in cases:
            shapes, args, kw = c[:3]
            grad = c[3] if len(c) > 3 else True
            arrays = tuple(
                make(s, dtype, rng) if make else make_array(s, dtype, rng, low, high)
                for s in shapes
            )
            out.append(Sample(arrays + tuple(args), dict(kw), f"{shapes} {args} {kw}", grad))
        return out

    return samples


# (shape, dim): every dim of 1-d, 2-d and 3-d inputs, a 0-d input, zero-size lines and a long one
# (sort, scan).
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
    """An input with NaN in three places (sort, scan)."""
    x = make_array(shape, dtype, rng)
    x[0, 1] = x[2, 3] = x[2, 0] = np.nan
    return x


# ---- references ------------------------------------------------------------------------------


def np_axis(dim):
    """A dim argument as NumPy's axis: a list of dims becomes a tuple (reduce, statistics)."""
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def sum_ref(a, dim=None, keepdim=False, dtype=None):
    """sum's reference; bools count as ints (reduce's sum, statistics' nansum)."""
    axis = None if dim is None else (tuple(dim) if isinstance(dim, (tuple, list)) else dim)
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    return np.sum(a, axis=axis, keepdims=keepdim)


def nan_mask(line):
    """Where a line holds NaN; nowhere for integers (sort's medians, scan's cummax / cummin)."""
    return np.isnan(line) if line.dtype.kind == "f" else np.zeros(line.shape, dtype=bool)


# The window references that nn_pool and nn_resample share: interpolate's mode "area" is adaptive
# average pooling, unfold batches its input as pooling does.


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


# ---- error samples ---------------------------------------------------------------------------


def error(make, exc, match, desc=""):
    """An ErrorSample described by its match when no desc is given."""
    return ErrorSample(make, exc, match, desc or match)


def error_list(*samples):
    """An OpSpec's `errors` for a fixed list of ErrorSamples."""
    return lambda: list(samples)


def dim_error_sample(fn, name):
    """fn(x, dim) on a (2, 3) tensor with dim 5 must raise IndexError naming the op."""
    return ErrorSample(lambda: fn(ember.ones(2, 3), 5), IndexError, name, "dim 5")


def dim_error(fn, name):
    """An OpSpec's `errors`: dim_error_sample alone."""
    return error_list(dim_error_sample(fn, name))


def index_tensor(*values):
    """An int64 tensor of the values (the error samples of nn_loss and nn_embedding)."""
    return ember.tensor(list(values), dtype=ember.int64)


# The dtypes of every registered op, by name (the registry gives (name, kind, dtypes,
# differentiable, topic) tuples). A derived in-place record takes its dtypes from here, and an op
# with parameters has one only where the registry has its in-place form: neither is restated by
# hand.
REGISTRY_DTYPES = {name: dtypes for name, _, dtypes, *_ in ember._op_registry()}


def inplace_dtypes(spec):
    """The dtypes self may have in spec's in-place form: those whose result self can hold, as the
    registry declares them. An op that computes in floating point for any input (exp takes every
    dtype) takes floating self only (exp_); test_undeclared_dtypes_raise then checks that exp_
    refuses the others. An in-place form missing from the registry keeps spec's dtypes, so that
    test_every_registered_op_has_a_record names it instead of this module failing to import."""
    return REGISTRY_DTYPES.get(spec.name + "_", spec.dtypes)


def inplace_of(spec, binary=False, compare=False):
    """The record of spec's in-place form, self.<name>_(...): the same samples (those whose result
    fits self), the same reference; compare: a bool result, cast to self's dtype. Any topic's
    module derives its in-place records with it."""
    name = spec.name + "_"

    def fn(x, *args, **kwargs):
        out = x.clone()
        result = getattr(out, name)(*args, **kwargs)
        assert result is out, f"{name} must return self"
        return out

    def samples(dtype, rng):
        out = []
        for s in spec.samples(dtype, rng):
            if binary and len(s.args) == 2:
                a, b = s.args
                if isinstance(b, np.ndarray):
                    # self does not grow: only operands that broadcast to self's shape.
                    if np.broadcast_shapes(np.shape(a), np.shape(b)) != np.shape(a):
                        continue
                elif not compare:
                    # A number whose category is above self's would change self's dtype.
                    if isinstance(b, float) and dtype not in FLOATING:
                        continue
                    if not isinstance(b, bool) and dtype == ember.bool:
                        continue
            if spec.name == "clamp" and len(s.args) > 2:
                continue  # clamp's tensor bounds: no in-place form with tensors here
            if len(s.args) > 2 and np.shape(spec.ref(*s.args, **s.kwargs)) != np.shape(s.args[0]):
                continue  # self does not grow (addmm's broadcast input)
            float_kwarg = any(isinstance(v, float) for v in s.kwargs.values())
            if spec.name == "clamp" and dtype not in FLOATING and float_kwarg:
                continue  # a float bound would make an integer self float
            out.append(s)
        return out

    def errors():
        if not spec.grad or compare:
            # Ops on integers (or with bool results): self may not grow by broadcasting.
            dt = FLOATING[-1] if compare else spec.dtypes[0]
            if not binary:
                return []
            return [
                ErrorSample(
                    lambda: getattr(ember.ones(3, dtype=dt), name)(ember.ones(2, 3, dtype=dt)),
                    RuntimeError,
                    "doesn't match the broadcast shape",
                    "self would grow",
                )
            ]
        first = samples(ember.float64, np.random.default_rng(0))[0]
        args = tuple(to_tensor(a, ember.float64) for a in first.args[1:])
        leaf = to_tensor(first.args[0], ember.float64).requires_grad_()
        return [
            ErrorSample(
                lambda: getattr(leaf, name)(*args, **first.kwargs),
                RuntimeError,
                "leaf",
                "in-place on a leaf that requires grad",
            )
        ]

    return OpSpec(
        name,
        fn,
        spec.ref,
        inplace_dtypes(spec),
        samples,
        grad=spec.grad and not compare,
        gradgrad=False,
        errors=errors,
    )
