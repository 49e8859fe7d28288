"""Op-table records of the reductions: sum, mean, max, min, amax / amin, argmax / argmin, prod,
all, any."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    ErrorSample,
    OpSpec,
    Sample,
    dim_error,
    make_array,
    np_axis,
    reduce_samples,
    sum_ref,
)


def np_min(a, dim=None, keepdim=False):
    if dim is None:
        return np.min(a)
    values = np.min(a, axis=dim, keepdims=keepdim)
    indices = np.argmin(a, axis=dim)
    return values, (np.expand_dims(indices, dim) if keepdim else indices)


def np_amax(f):
    def ref(a, dim=(), keepdim=False):
        return f(a, axis=np_axis(dim) if dim != () else None, keepdims=keepdim)

    return ref


def np_arg(f):
    def ref(a, dim=None, keepdim=False):
        if dim is None:
            out = f(a.reshape(-1))
            return out.reshape((1,) * a.ndim) if keepdim else out
        out = f(a, axis=dim)
        return np.expand_dims(out, dim) if keepdim else out

    return ref


def np_prod(a, dim=None, keepdim=False, dtype=None):
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    return np.prod(a, axis=dim, keepdims=keepdim)


def _np_all_any(f):
    def ref(x, dim=None, keepdim=False):
        axis = tuple(dim) if isinstance(dim, (tuple, list)) else dim
        return f(x, axis=axis, keepdims=keepdim)

    return ref


# ---- samples ---------------------------------------------------------------------------------


def distinct(shape, dtype, rng):
    """Distinct values (no ties, so the max and its gradient are unique)."""
    n = int(np.prod(shape)) if shape else 1
    if dtype in FLOATING:
        vals = rng.permutation(n).astype(np.float64) * 0.25 - 2
    elif dtype == ember.bool:
        vals = rng.random(n) < 0.5
    else:
        vals = rng.permutation(n) % (100 if dtype != ember.uint8 else 200)
    return vals.reshape(shape)


def _min_samples(dtype, rng):
    return [
        Sample((distinct(s.args[0].shape, dtype, rng),), s.kwargs, s.desc)
        for s in max_samples(dtype, rng)
    ]


def _amax_samples(dtype, rng):
    cases = [
        ((5,), {}),
        ((3, 4), {"dim": 0}),
        ((2, 3, 4), {"dim": (0, 2)}),
        ((2, 3, 4), {"dim": -1, "keepdim": True}),
        ((), {}),
        ((0, 3), {"dim": 1}),
    ]
    out = [Sample((distinct(s, dtype, rng),), kw, desc=f"{s} {kw}") for s, kw in cases]
    if dtype in FLOATING:  # ties share the gradient
        out.append(Sample((np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]),), {"dim": 1}, "ties"))
    return out


def _arg_samples(dtype, rng):
    cases = [
        ((5,), {}),
        ((3, 4), {"dim": 0}),
        ((3, 4), {"dim": 1, "keepdim": True}),
        ((2, 3, 4), {}),
        ((2, 3, 4), {"keepdim": True}),
        ((), {}),
        ((0, 3), {"dim": 1}),
    ]
    return [Sample((distinct(s, dtype, rng),), kw, desc=f"{s} {kw}", grad=False) for s, kw in cases]


def _prod_samples(dtype, rng):
    out = []
    for shape, kw in [
        ((5,), {}),
        ((3, 4), {"dim": 0}),
        ((3, 4), {"dim": 1, "keepdim": True}),
        ((2, 3, 4), {"dim": -1}),
        ((), {}),
        ((0, 3), {"dim": 1}),
        ((0, 3), {}),
    ]:
        out.append(Sample((make_array(shape, dtype, rng, 0.5, 1.5),), kw, desc=f"{shape} {kw}"))
    if dtype in FLOATING:
        one_zero = make_array((3, 4), dtype, rng, 0.5, 1.5)
        one_zero[1, 2] = 0
        two_zeros = one_zero.copy()
        two_zeros[1, 0] = 0
        out += [
            Sample((one_zero,), {"dim": 1}, desc="one zero in a row"),
            Sample((two_zeros,), {"dim": 1}, desc="two zeros in a row"),
            Sample((one_zero,), {}, desc="one zero in all"),
            Sample((two_zeros,), {}, desc="two zeros in all"),
        ]
    return out


def _logical_reduce_samples(p_nonzero):
    """The reduction samples with elements zero at random (nonzero with probability p_nonzero),
    so that all() and any() see both answers."""

    def make(dtype, rng):
        out = []
        for s in reduce_samples(dtype, rng):
            x = s.args[0]
            keep = rng.random(np.shape(x)) < p_nonzero
            x = np.where(keep, x if dtype == ember.bool else np.where(x == 0, 1, x), 0)
            out.append(Sample((x.astype(np.asarray(s.args[0]).dtype),), s.kwargs, s.desc, False))
        return out

    return make


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


RECORDS = [
    OpSpec(
        "sum",
        lambda x, **kw: ember.sum(x, **kw),
        sum_ref,
        ALL + COMPLEX,
        reduce_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.sum(d), "sum"),
    ),
    OpSpec(
        "mean",
        lambda x, **kw: ember.mean(x, **kw),
        mean_ref,
        FLOATING + COMPLEX,
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
    OpSpec(
        "min",
        lambda x, **kw: ember.min(x, **kw),
        np_min,
        ALL,
        _min_samples,
        errors=lambda: [
            ErrorSample(lambda: ember.ones(0).min(), RuntimeError, "min", "empty"),
            ErrorSample(lambda: ember.ones(2, 0).min(1), IndexError, "min", "empty dim"),
        ],
    ),
    OpSpec(
        "amax",
        lambda x, **kw: ember.amax(x, **kw),
        np_amax(np.max),
        ALL,
        _amax_samples,
        errors=lambda: [
            ErrorSample(lambda: ember.ones(2, 0).amax(1), IndexError, "amax", "empty dim")
        ],
    ),
    OpSpec(
        "amin",
        lambda x, **kw: ember.amin(x, **kw),
        np_amax(np.min),
        ALL,
        _amax_samples,
        errors=dim_error(lambda x, d: x.amin(d), "amin"),
    ),
    OpSpec(
        "argmax",
        lambda x, **kw: ember.argmax(x, **kw),
        np_arg(np.argmax),
        ALL,
        _arg_samples,
        grad=False,
        errors=lambda: [
            ErrorSample(lambda: ember.ones(0).argmax(), RuntimeError, "argmax", "empty")
        ],
    ),
    OpSpec(
        "argmin",
        lambda x, **kw: ember.argmin(x, **kw),
        np_arg(np.argmin),
        ALL,
        _arg_samples,
        grad=False,
        errors=dim_error(lambda x, d: x.argmin(d), "argmin"),
    ),
    OpSpec(
        "prod",
        lambda x, **kw: ember.prod(x, **kw),
        np_prod,
        ALL + COMPLEX,
        _prod_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.prod(d), "prod"),
    ),
    OpSpec(
        "all",
        lambda x, **kw: ember.all(x, **kw),
        _np_all_any(np.all),
        ALL + COMPLEX,
        _logical_reduce_samples(0.97),
        grad=False,
        errors=dim_error(lambda x, d: x.all(d), "all"),
    ),
    OpSpec(
        "any",
        lambda x, **kw: ember.any(x, **kw),
        _np_all_any(np.any),
        ALL + COMPLEX,
        _logical_reduce_samples(0.03),
        grad=False,
        errors=dim_error(lambda x, d: x.any(d), "any"),
    ),
]


def records():
    return RECORDS
