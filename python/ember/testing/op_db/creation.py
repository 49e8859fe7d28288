"""Op-table records of the creation ops: empty, empty_strided, scalar_tensor, zeros, ones, full,
arange, linspace, eye, tensor and the *_like forms of empty, zeros, ones and full.

Ops whose output is not a function of the inputs (empty) have a `check` instead of a reference;
the creation ops are called with the dtype under test (OpSpec.creation)."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    NUMERIC,
    NUMPY_DTYPE,
    ErrorSample,
    OpSpec,
    Sample,
    size_samples,
    to_numpy,
    unary_samples,
)


def _creation_check(expected_fill):
    def check(out, sample, dtype):
        assert out.dtype == dtype
        want = np.full(out.shape, expected_fill).astype(NUMPY_DTYPE.get(dtype, np.float32))
        np.testing.assert_array_equal(to_numpy(out), want.astype(to_numpy(out).dtype))

    return check


def _shape_check(out, sample, dtype):
    assert out.dtype == dtype
    assert tuple(out.shape) == tuple(sample.kwargs["size"])


def _strides_check(out, strides):
    assert tuple(out.stride()) == tuple(strides), (out.stride(), strides)


RECORDS = [
    OpSpec(
        "empty",
        lambda size, dtype: ember.empty(*size, dtype=dtype),
        None,
        ALL + COMPLEX,
        size_samples([(2, 3), (0,), ()]),
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
        ALL + COMPLEX,
        size_samples([(2, 3), (0,), ()]),
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
        ALL + COMPLEX,
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
        ALL + COMPLEX,
        lambda d, r: [Sample((1,), desc="1")],
        grad=False,
        creation=True,
    ),
    OpSpec(
        "ones",
        lambda size, dtype: ember.ones(*size, dtype=dtype),
        None,
        ALL + COMPLEX,
        size_samples([(2, 3), (0,), ()]),
        grad=False,
        check=_creation_check(1),
        creation=True,
    ),
    OpSpec(
        "full",
        lambda size, dtype: ember.full(size, 7, dtype=dtype),
        None,
        ALL + COMPLEX,
        size_samples([(2, 3), ()]),
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
        ALL + COMPLEX,
        lambda d, r: [Sample((), desc="3x4")],
        grad=False,
        creation=True,
    ),
    OpSpec(
        "empty_like",
        lambda x: ember.empty_like(x),
        None,
        ALL + COMPLEX,
        unary_samples(),
        grad=False,
        check=lambda out, s, d: None,
    ),
    OpSpec(
        "zeros_like",
        lambda x: ember.zeros_like(x),
        lambda x: np.zeros_like(x),
        ALL + COMPLEX,
        unary_samples(),
        grad=False,
    ),
    OpSpec(
        "ones_like",
        lambda x: ember.ones_like(x),
        lambda x: np.ones_like(x),
        ALL + COMPLEX,
        unary_samples(),
        grad=False,
    ),
    OpSpec(
        "full_like",
        lambda x: ember.full_like(x, 3),
        lambda x: np.full_like(x, 3),
        ALL + COMPLEX,
        unary_samples(),
        grad=False,
    ),
    OpSpec(
        "tensor",
        lambda dtype: ember.tensor([[1, 2], [3, 4]], dtype=dtype),
        lambda: np.array([[1, 2], [3, 4]]),
        ALL + COMPLEX,
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
]


def _np_window(coeffs):
    def ref(n, periodic=True):
        if n <= 1:
            return np.ones(n)
        m = n + 1 if periodic else n
        k = np.arange(m)
        w = sum((-1) ** i * a * np.cos(2 * np.pi * i * k / (m - 1)) for i, a in enumerate(coeffs))
        return w[:-1] if periodic else w

    return ref


def _np_bartlett(n, periodic=True):
    if n <= 1:
        return np.ones(n)
    m = n + 1 if periodic else n
    w = 1 - np.abs(2 * np.arange(m) / (m - 1) - 1)
    return w[:-1] if periodic else w


def _np_kaiser(n, periodic=True, beta=12.0):
    if n <= 1:
        return np.ones(n)
    m = n + 1 if periodic else n
    w = np.kaiser(m, beta)
    return w[:-1] if periodic else w


def _creation_samples(*cases):
    return lambda d, r: [Sample(args, dict(kw), f"{args} {kw}", grad=False) for args, kw in cases]


# The Python composites of this topic (python/ember/_composites/creation.py).
COMPOSITES = [
    OpSpec(
        "logspace",
        ember.logspace,
        lambda s, e, n, base=10.0: (
            np.trunc(base ** np.linspace(s, e, n)) if False else base ** np.linspace(s, e, n)
        ),
        NUMERIC,
        _creation_samples(((0, 2, 3), {}), ((-1, 1, 5), {"base": 2.0}), ((1, 1, 0), {})),
        grad=False,
        creation=True,
        check=None,
    ),
    OpSpec(
        "tril_indices",
        ember.tril_indices,
        lambda r, c, k=0: np.stack(np.tril_indices(r, k, c)),
        [ember.int32, ember.int64],
        _creation_samples(((3, 3), {}), ((3, 4, 1), {}), ((4, 2, -1), {}), ((0, 3), {})),
        grad=False,
        creation=True,
    ),
    OpSpec(
        "triu_indices",
        ember.triu_indices,
        lambda r, c, k=0: np.stack(np.triu_indices(r, k, c)),
        [ember.int32, ember.int64],
        _creation_samples(((3, 3), {}), ((3, 4, 1), {}), ((4, 2, -1), {})),
        grad=False,
        creation=True,
    ),
] + [
    # The windows, each of length 5 (periodic), 6 (symmetric), 1 and 0.
    OpSpec(
        name,
        getattr(ember, name),
        ref,
        FLOATING,
        _creation_samples(((5,), {}), ((6, False), {}), ((1,), {}), ((0,), {})),
        grad=False,
        creation=True,
    )
    for name, ref in [
        ("hann_window", _np_window([0.5, 0.5])),
        ("hamming_window", _np_window([0.54, 0.46])),
        ("blackman_window", _np_window([0.42, 0.5, 0.08])),
        ("bartlett_window", _np_bartlett),
        ("kaiser_window", _np_kaiser),
    ]
]


def records():
    return RECORDS + COMPOSITES
