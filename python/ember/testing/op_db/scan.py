"""Op-table records of the scans: cumsum, cumprod, cummax, cummin, logcumsumexp.

The references order NaN above every number and equal values by position (a stable sort), which
is ember's documented order, so indices are compared exactly even with ties."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    FLOATING,
    LINES,
    NUMERIC,
    REGISTRY_DTYPES,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    dim_error,
    dim_error_sample,
    error_list,
    inplace_of,
    make_array,
    nan_mask,
    with_nan,
)

# ---- references ------------------------------------------------------------------------------


def _scan(f):
    def ref(a, dim, dtype=None):
        if a.dtype == np.bool_:
            a = a.astype(np.int64)
        if a.ndim == 0:
            return a.copy()
        return f(a, axis=dim)

    return ref


def _cum_extreme(is_max):
    def ref(a, dim):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        x = np.moveaxis(a, dim, -1)
        vals = np.empty_like(x)
        idx = np.zeros(x.shape, np.int64)
        for pos in np.ndindex(*x.shape[:-1]):
            line, nan = x[pos], nan_mask(x[pos])
            best, at = None, 0
            for j in range(line.size):
                v = line[j]
                if j == 0 or (
                    nan[j] or (not _isnan(best) and (v >= best if is_max else v <= best))
                ):
                    best, at = v, j
                vals[pos + (j,)] = best
                idx[pos + (j,)] = at
        return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)

    return ref


def _isnan(v):
    return bool(v != v)


def np_logcumsumexp(a, dim):
    if a.ndim == 0:
        return a.copy()
    return np.logaddexp.accumulate(a, axis=dim)


# ---- samples ---------------------------------------------------------------------------------


def _scan_samples(low=-3.0, high=3.0, with_dtype=True):
    def make(dtype, rng):
        out = [
            Sample((make_array(s, dtype, rng, low, high),), {"dim": d}, f"{s} dim {d}")
            for s, d in LINES
        ]
        out.append(Sample((make_array((3, 4), dtype, rng, low, high),), {"dim": -1}, "dim -1"))
        if with_dtype:
            x = make_array((3, 4), dtype, rng, low, high)
            out.append(Sample((x,), {"dim": 1, "dtype": ember.float64}, "dtype float64"))
        return out

    return make


def _cumsum_samples(dtype, rng):
    out = _scan_samples()(dtype, rng)
    if dtype in FLOATING:
        x = with_nan(dtype, rng)
        out.append(Sample((x,), {"dim": 1}, "nan", grad=False))
    return out


def _cumprod_samples(dtype, rng):
    out = _scan_samples(0.5, 1.5)(dtype, rng)
    if dtype in FLOATING:
        one = make_array((3, 5), dtype, rng, 0.5, 1.5)
        one[0, 1] = one[1, 4] = one[2, 0] = 0
        two = one.copy()
        two[0, 3] = two[2, 2] = 0
        three = two.copy()
        three[0, 4] = 0
        out += [
            Sample((one,), {"dim": 1}, "one zero a line"),
            Sample((two,), {"dim": 1}, "two zeros a line"),
            Sample((three,), {"dim": 1}, "three zeros in a line"),
            Sample((two.T.copy(),), {"dim": 0}, "two zeros, dim 0"),
            Sample((np.zeros((2, 4)),), {"dim": 1}, "all zeros"),
        ]
    return out


def _cum_extreme_samples(dtype, rng):
    out = [Sample((make_array(s, dtype, rng),), {"dim": d}, f"{s} dim {d}") for s, d in LINES]
    ties = np.array([[2, 1, 2, 0, 2, 3], [1, 1, 1, 0, 0, 0]])
    out.append(Sample((ties,), {"dim": 1}, "ties", grad=False))
    if dtype in FLOATING:
        x = with_nan(dtype, rng)
        out.append(Sample((x,), {"dim": 1}, "nan", grad=False))
    return out


def _logcumsumexp_samples(dtype, rng):
    out = _scan_samples(with_dtype=False)(dtype, rng)
    if dtype in FLOATING:
        big = np.array([[800.0, 799.0, -np.inf, 5.0], [-np.inf, -np.inf, 0.0, 1.0]])
        out.append(Sample((big,), {"dim": 1}, "large and -inf", grad=False))
    return out


RECORDS = [
    OpSpec(
        "cumsum",
        lambda x, **kw: ember.cumsum(x, **kw),
        _scan(np.cumsum),
        ALL,
        _cumsum_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.cumsum(d), "cumsum"),
    ),
    OpSpec(
        "cumprod",
        lambda x, **kw: ember.cumprod(x, **kw),
        _scan(np.cumprod),
        ALL,
        _cumprod_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.cumprod(d), "cumprod"),
    ),
    OpSpec(
        "cummax",
        lambda x, **kw: ember.cummax(x, **kw),
        _cum_extreme(True),
        ALL,
        _cum_extreme_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.cummax(d), "cummax"),
    ),
    OpSpec(
        "cummin",
        lambda x, **kw: ember.cummin(x, **kw),
        _cum_extreme(False),
        ALL,
        _cum_extreme_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: ember.cummin(x, d), "cummin"),
    ),
    OpSpec(
        "logcumsumexp",
        lambda x, **kw: ember.logcumsumexp(x, **kw),
        np_logcumsumexp,
        FLOATING,
        _logcumsumexp_samples,
        gradgrad=True,
        errors=error_list(
            ErrorSample(
                lambda: ember.logcumsumexp(ember.ones(3, dtype=ember.int64), 0),
                TypeError,
                "logcumsumexp",
            ),
            dim_error_sample(lambda x, d: x.logcumsumexp(d), "logcumsumexp"),
        ),
    ),
]


def _np_diff(x, n=1, dim=-1, prepend=None, append=None):
    kw = {}
    if prepend is not None:
        kw["prepend"] = prepend
    if append is not None:
        kw["append"] = append
    return np.diff(x, n=n, axis=dim, **kw)


def _np_trapezoid(y, x=None, dx=None, dim=-1):
    y = np.asarray(y, dtype=np.float64)
    return np.trapezoid(y, x=x, dx=1.0 if dx is None else dx, axis=dim)


def _np_cumulative_trapezoid(y, x=None, dx=None, dim=-1):
    y = np.moveaxis(np.asarray(y, dtype=np.float64), dim, -1)
    step = np.diff(x) if x is not None else (1.0 if dx is None else dx)
    out = np.cumsum((y[..., 1:] + y[..., :-1]) / 2 * step, axis=-1)
    return np.moveaxis(out, -1, dim)


def _scan_cases(*cases):
    def make(dtype, rng):
        out = []
        for shapes, kw in cases:
            arrays = [make_array(s, dtype, rng) for s in shapes]
            kw = dict(kw)
            for key in ("prepend", "append", "x"):
                if key in kw:
                    kw[key] = (
                        Fixed(make_array(kw[key], dtype, rng), dtype)
                        if key != "x"
                        else Fixed(np.sort(make_array(kw[key], dtype, rng, 0, 3)), dtype)
                    )
            out.append(Sample(tuple(arrays), kw, f"{shapes} {kw}"))
        return out

    return make


# The Python composites of this topic (python/ember/_composites/scan.py).
COMPOSITES = [
    OpSpec(
        "diff",
        ember.diff,
        _np_diff,
        ALL,
        _scan_cases(
            (((6,),), {}),
            (((3, 5),), {"dim": 0}),
            (((3, 5),), {"n": 2}),
            (((2, 4),), {"n": 3, "dim": 1}),
            (((0, 3),), {}),
            (((2, 3),), {"prepend": (2, 2), "append": (2, 1)}),
        ),
    ),
    OpSpec(
        "trapezoid",
        ember.trapezoid,
        _np_trapezoid,
        NUMERIC,
        _scan_cases(
            (((6,),), {}),
            (((3, 5),), {"dim": 0}),
            (((3, 5),), {"dx": 0.5}),
            (((2, 4),), {"x": (4,)}),
        ),
    ),
    OpSpec("trapz", ember.trapz, _np_trapezoid, NUMERIC, _scan_cases((((3, 5),), {}))),
    OpSpec(
        "cumulative_trapezoid",
        ember.cumulative_trapezoid,
        _np_cumulative_trapezoid,
        FLOATING,
        _scan_cases(
            (((6,),), {}),
            (((3, 5),), {"dim": 0}),
            (((2, 4),), {"dx": 2.0}),
            (((2, 4),), {"x": (4,)}),
        ),
    ),
]


def records():
    """The records, with the in-place forms the registry lists (cumsum_, cumprod_)."""
    inplace = [inplace_of(s) for s in RECORDS if s.name + "_" in REGISTRY_DTYPES]
    return RECORDS + inplace + COMPOSITES
