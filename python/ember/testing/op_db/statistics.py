"""Op-table records of the statistics: nansum, count_nonzero, var / std (and with the mean),
logsumexp, the vector and matrix norms and norm."""

from __future__ import annotations

import builtins

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    NUMERIC,
    REGISTRY_DTYPES,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    dim_error,
    inplace_of,
    input_cases,
    make_array,
    np_axis,
    reduce_samples,
    sum_ref,
)


def np_var(a, dim=None, unbiased=None, keepdim=False, correction=None):
    c = correction if correction is not None else (0 if unbiased is False else 1)
    axis = np_axis(dim)
    n = a.size if axis is None else np.prod([a.shape[d] for d in np.atleast_1d(axis)])
    m = np.mean(a, axis=axis, keepdims=True)
    return np.sum((a - m) ** 2, axis=axis, keepdims=keepdim) / max(0, n - c)


def np_std(*args, **kw):
    return np.sqrt(np_var(*args, **kw))


def np_var_mean(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return np_var(a, dim, unbiased, keepdim, correction), np.mean(
        a, axis=np_axis(dim), keepdims=keepdim
    )


def np_std_mean(a, dim=None, unbiased=None, keepdim=False, correction=None):
    v, m = np_var_mean(a, dim, unbiased, keepdim, correction)
    return np.sqrt(v), m


def np_logsumexp(a, dim, keepdim=False):
    a = np.asarray(a, dtype=np.float64)
    m = np.max(a, axis=np_axis(dim), keepdims=True) if a.size else 0.0
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(a - m), axis=np_axis(dim), keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=np_axis(dim))


def np_vector_norm(a, ord=2, dim=None, keepdim=False):
    axis = np_axis(dim) if dim not in (None, ()) else None
    x = np.abs(a)
    if ord == np.inf:
        return np.max(x, axis=axis, keepdims=keepdim)
    if ord == -np.inf:
        return np.min(x, axis=axis, keepdims=keepdim)
    if ord == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdim).astype(np.float64)
    return np.sum(x**ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)


def np_matrix_norm(a, ord="fro", dim=(-2, -1), keepdim=False):
    out = np.linalg.norm(a, ord=ord, axis=tuple(dim), keepdims=keepdim)
    return out


# ---- samples ---------------------------------------------------------------------------------


def _nan_samples(dtype, rng):
    out = reduce_samples(dtype, rng)[:9]
    if dtype in FLOATING:
        x = make_array((3, 4), dtype, rng)
        x[0, 1] = x[2, 3] = np.nan
        out.append(Sample((x,), {"dim": 1}, desc="nan", grad=False))
    return out


def _var_samples(dtype, rng):
    out = []
    for shape, kw in [
        ((5,), {}),
        ((3, 4), {"dim": 0}),
        ((3, 4), {"dim": 1, "keepdim": True}),
        ((2, 3, 4), {"dim": (0, 2)}),
        ((3, 4), {"correction": 0}),
        ((3, 4), {"dim": 1, "unbiased": False}),
        ((3, 4), {"correction": 2.5}),
        ((40, 300), {"dim": 0}),
        ((1000,), {}),
    ]:
        out.append(Sample((make_array(shape, dtype, rng) + 100,), kw, desc=f"{shape} {kw}"))
    return out


def _logsumexp_samples(dtype, rng):
    cases = [
        ((5,), {"dim": 0}),
        ((3, 4), {"dim": 1}),
        ((3, 4), {"dim": (0, 1), "keepdim": True}),
        ((2, 3, 4), {"dim": -1}),
        ((), {"dim": 0}),
        ((0, 3), {"dim": 1}),
    ]
    out = [Sample((make_array(s, dtype, rng),), kw, desc=f"{s} {kw}") for s, kw in cases]
    if dtype in FLOATING:
        out.append(
            Sample((np.array([[800.0, 799.0], [-np.inf, -np.inf]]),), {"dim": 1}, "big", grad=False)
        )
    return out


def _norm_samples(dtype, rng):
    out = []
    for shape, kw in [
        ((5,), {}),
        ((3, 4), {"ord": 1, "dim": 1}),
        ((3, 4), {"ord": 3.0}),
        ((2, 3, 4), {"ord": np.inf, "dim": (0, 2)}),
        ((3, 4), {"ord": -np.inf, "dim": 0}),
        ((3, 4), {"ord": 0, "dim": 1}),
        ((3, 4), {"dim": 1, "keepdim": True}),
        ((), {}),
        ((0, 3), {"dim": 1}),
    ]:
        grad = kw.get("ord", 2) != 0
        out.append(
            Sample((make_array(shape, dtype, rng, away_from_zero=True),), kw, f"{shape} {kw}", grad)
        )
    return out


def _matrix_norm_samples(dtype, rng):
    out = []
    for shape, kw in [
        ((3, 4), {}),
        ((2, 3, 4), {"ord": 1}),
        ((3, 4), {"ord": np.inf, "keepdim": True}),
        ((2, 3, 4), {"ord": -1, "dim": (0, 2)}),
        ((3, 4), {"ord": -np.inf}),
    ]:
        out.append(
            Sample((make_array(shape, dtype, rng, away_from_zero=True),), kw, f"{shape} {kw}")
        )
    if dtype in (ember.float32, ember.float64):
        # The singular-value norms (LAPACK's SVD: float32 and float64 only).
        for shape, kw in [
            ((3, 4), {"ord": "nuc"}),
            ((2, 3, 4), {"ord": 2}),
            ((3, 4), {"ord": -2, "keepdim": True}),
            ((2, 3, 4), {"ord": "nuc", "dim": (0, 2)}),
        ]:
            out.append(Sample((make_array(shape, dtype, rng),), kw, f"{shape} {kw}"))
    return out


def _float_only_error(fn, name):
    return lambda: [
        ErrorSample(lambda: fn(ember.ones(3, dtype=ember.int64)), TypeError, name, "integer input")
    ]


RECORDS = [
    OpSpec(
        "nansum",
        lambda x, **kw: ember.nansum(x, **kw),
        lambda a, dim=None, keepdim=False: sum_ref(
            np.where(np.isnan(a), 0, a) if a.dtype.kind == "f" else a, dim, keepdim
        ),
        ALL,
        _nan_samples,
        gradgrad=True,
    ),
    OpSpec(
        "count_nonzero",
        lambda x, **kw: ember.count_nonzero(x, **kw),
        lambda a, dim=None: np.count_nonzero(a, axis=np_axis(dim)),
        ALL + COMPLEX,
        lambda dt, rng: [
            Sample(s.args, {k: v for k, v in s.kwargs.items() if k != "keepdim"}, s.desc, False)
            for s in reduce_samples(dt, rng)
        ],
        grad=False,
    ),
    OpSpec(
        "var",
        lambda x, **kw: ember.var(x, **kw),
        np_var,
        FLOATING,
        _var_samples,
        gradgrad=True,
        errors=_float_only_error(ember.var, "var"),
    ),
    OpSpec(
        "std",
        lambda x, **kw: ember.std(x, **kw),
        np_std,
        FLOATING,
        _var_samples,
        gradgrad=True,
        errors=_float_only_error(ember.std, "std"),
    ),
    OpSpec(
        "var_mean", lambda x, **kw: ember.var_mean(x, **kw), np_var_mean, FLOATING, _var_samples
    ),
    OpSpec(
        "std_mean", lambda x, **kw: ember.std_mean(x, **kw), np_std_mean, FLOATING, _var_samples
    ),
    OpSpec(
        "logsumexp",
        lambda x, **kw: ember.logsumexp(x, **kw),
        np_logsumexp,
        ALL,
        _logsumexp_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.logsumexp(d), "logsumexp"),
    ),
    OpSpec(
        "linalg.vector_norm",
        lambda x, **kw: ember.linalg.vector_norm(x, **kw),
        np_vector_norm,
        FLOATING + COMPLEX,
        _norm_samples,
        gradgrad=True,
        errors=_float_only_error(ember.linalg.vector_norm, "vector_norm"),
    ),
    OpSpec(
        "linalg.matrix_norm",
        lambda x, **kw: ember.linalg.matrix_norm(x, **kw),
        np_matrix_norm,
        FLOATING + COMPLEX,
        _matrix_norm_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.linalg.matrix_norm(ember.ones(3, 3), "max"),
                RuntimeError,
                "not supported",
                "unknown ord",
            ),
            ErrorSample(
                lambda: ember.linalg.matrix_norm(ember.ones(3)),
                RuntimeError,
                "2 or more dims",
                "1-d",
            ),
        ],
    ),
    OpSpec(
        "norm",
        lambda x, p="fro", **kw: ember.norm(x, p, **kw),
        lambda a, p="fro", dim=None, keepdim=False: np_vector_norm(
            a, 2 if p == "fro" else p, dim, keepdim
        ),
        FLOATING + COMPLEX,
        lambda dt, rng: [
            Sample(
                s.args, {("p" if k == "ord" else k): v for k, v in s.kwargs.items()}, s.desc, s.grad
            )
            for s in _norm_samples(dt, rng)
        ],
        gradgrad=True,
    ),
]


def _np_quantile(x, q, dim=None, keepdim=False, interpolation="linear", nan=False):
    f = np.nanquantile if nan else np.quantile
    return f(x, q, axis=dim, keepdims=keepdim, method=interpolation)


def _np_histc(x, bins=100, min=0, max=0):
    lo, hi = (x.min(), x.max()) if min == max and x.size else (min, max)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(x, bins=bins, range=(lo, hi))[0]


def _np_cov(x, correction=1, fweights=None, aweights=None):
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


def _with_nans(make):
    def samples(dtype, rng):
        out = []
        if not dtype.is_floating_point:
            return out
        for s in make(dtype, rng):
            a = s.args[0].copy()
            if a.size > 2:
                a.reshape(-1)[[0, -2]] = np.nan
            out.append(Sample((a, *s.args[1:]), s.kwargs, s.desc + " with NaNs", grad=False))
        return out

    return samples


_QUANTILE_CASES = input_cases(
    ((7,), (0.3,), {}, True),
    ((3, 5), (0.5,), {"dim": 1}, True),
    # gradcheck would move q out of [0, 1]
    ((3, 5), (Fixed(np.array([0.0, 0.25, 1.0]), ember.float64),), {"dim": 0}, False),
    ((3, 4), (0.75,), {"dim": -1, "keepdim": True, "interpolation": "lower"}, False),
    ((3, 4), (0.4,), {"interpolation": "higher"}, False),
    ((6,), (0.5,), {"interpolation": "midpoint"}, False),
    ((6,), (0.7,), {"interpolation": "nearest"}, False),
    ((2, 3), (0.2,), {"keepdim": True}, True),
)


def _quantile_op(name):
    def op(x, q, **kw):
        if isinstance(q, ember.Tensor):
            q = q.to(x.dtype)
        return getattr(ember, name)(x, q, **kw)

    return op


def _np_renorm(x, p, dim, maxnorm):
    dim %= x.ndim
    others = tuple(k for k in range(x.ndim) if k != dim)
    norms = (np.abs(x) ** p).sum(axis=others, keepdims=True) ** (1.0 / p)
    return x * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def _np_histogram(x, bins=100, range=None):
    lo, hi = range if range is not None else (x.min(), x.max())
    return np.histogram(x, bins=bins, range=(lo, hi))


# The Python composites of this topic (python/ember/_composites/statistics.py).
COMPOSITES = [
    OpSpec(
        "renorm",
        ember.renorm,
        _np_renorm,
        FLOATING,
        input_cases(
            ((3, 4), (2, 0, 1.5), {}, True),
            ((3, 4), (1, 1, 2.0), {}, True),
            ((2, 3, 2), (3, -1, 1.0), {}, True),
        ),
    ),
    OpSpec(
        "histogram",
        ember.histogram,
        _np_histogram,
        [ember.float32, ember.float64],
        input_cases(((40,), (5,), {}, False), ((4, 5), (3,), {"range": (-1.0, 1.0)}, False)),
        grad=False,
    ),
    OpSpec(
        "cov",
        ember.cov,
        _np_cov,
        FLOATING,
        lambda d, r: [
            Sample((make_array((3, 5), d, r),), desc="3 variables"),
            Sample((make_array((6,), d, r),), desc="one variable"),
            Sample((make_array((2, 4), d, r),), {"correction": 0}, "correction 0"),
            Sample(
                (make_array((2, 4), d, r),),
                {"fweights": Fixed(np.array([1, 2, 1, 3]), ember.int64)},
                "fweights",
            ),
            Sample(
                (make_array((2, 4), d, r),),
                {"aweights": Fixed(np.array([0.5, 1.0, 2.0, 1.5]), d)},
                "aweights",
            ),
        ],
    ),
    OpSpec(
        "corrcoef",
        ember.corrcoef,
        np.corrcoef,
        FLOATING,
        lambda d, r: [Sample((make_array((3, 6), d, r),), desc="3 variables")],
    ),
    OpSpec(
        "quantile",
        _quantile_op("quantile"),
        _np_quantile,
        [ember.float32, ember.float64],
        _QUANTILE_CASES,
    ),
    OpSpec(
        "nanquantile",
        _quantile_op("nanquantile"),
        lambda *a, **k: _np_quantile(*a, nan=True, **k),
        [ember.float32, ember.float64],
        lambda d, r: _QUANTILE_CASES(d, r) + _with_nans(_QUANTILE_CASES)(d, r),
    ),
    OpSpec(
        "nanmean",
        ember.nanmean,
        lambda x, dim=None, keepdim=False: np.nanmean(x, axis=np_axis(dim), keepdims=keepdim),
        FLOATING,
        lambda d, r: (
            reduce_samples(d, r)[:6] + _with_nans(lambda d, r: reduce_samples(d, r)[:6])(d, r)
        ),
    ),
    OpSpec(
        "histc",
        ember.histc,
        _np_histc,
        [ember.float32, ember.float64],
        input_cases(
            ((50,), (), {"bins": 5, "min": -2, "max": 2}, False),
            ((4, 5), (), {"bins": 7}, False),
            ((10,), (), {"bins": 3, "min": 5, "max": 9}, False),
        ),
        grad=False,
    ),
    OpSpec(
        "bincount",
        ember.bincount,
        lambda x, weights=None, minlength=0: np.bincount(x, weights, minlength),
        [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64],
        lambda d, r: [
            Sample((np.abs(make_array((12,), d, r)),), desc="12 values", grad=False),
            Sample((np.abs(make_array((5,), d, r)),), {"minlength": 9}, "minlength", grad=False),
            Sample((np.zeros(0, dtype=np.int64),), desc="empty", grad=False),
            Sample(
                (np.abs(make_array((6,), d, r)),),
                {"weights": Fixed(np.linspace(0, 1, 6), ember.float64)},
                "weights",
                grad=False,
            ),
        ],
        grad=False,
    ),
    OpSpec(
        "aminmax",
        ember.aminmax,
        lambda x, dim=None, keepdim=False: (
            np.amin(x, axis=dim, keepdims=keepdim),
            np.amax(x, axis=dim, keepdims=keepdim),
        ),
        NUMERIC,
        input_cases(
            ((3, 4), (), {}, False),
            ((3, 4), (), {"dim": 1}, False),
            ((2, 3, 4), (), {"dim": -1, "keepdim": True}, False),
        ),
        grad=False,
    ),
]


def _np_histogramdd(a, bins=10, range=None, weight=None, density=False):
    pts = a.reshape(-1, a.shape[-1])
    rng = (
        None
        if range is None
        else [(range[2 * i], range[2 * i + 1]) for i in builtins.range(a.shape[-1])]
    )
    hist, edges = np.histogramdd(pts, bins, range=rng, density=density)
    return (hist, *edges)


def _histogramdd(x, bins=10, **kw):
    hist, edges = ember.histogramdd(x, bins, **kw)
    return (hist, *edges)


def _np_mode(a, dim=-1, keepdim=False):
    x = np.moveaxis(np.asarray(a), dim, -1)
    flat = x.reshape(-1, x.shape[-1])
    vals, idxs = [], []
    for row in flat:
        uniq, counts = np.unique(row, return_counts=True)
        v = uniq[np.argmax(counts)]  # the smallest of the most frequent
        vals.append(v)
        idxs.append(np.nonzero(row == v)[0].max())
    vals = np.array(vals).reshape(x.shape[:-1])
    idxs = np.array(idxs).reshape(x.shape[:-1])
    if keepdim:
        vals, idxs = np.expand_dims(vals, dim), np.expand_dims(idxs, dim)
    return vals, idxs


def _mode_samples(dtype, rng):
    out = []
    for shape, kw in [((3, 7), {}), ((4, 5), {"dim": 0}), ((2, 3, 6), {"dim": 1, "keepdim": True})]:
        a = rng.integers(0, 3, size=shape).astype(np.float64)
        out.append(Sample((a,), kw, f"{shape} {kw}", grad=False))
    return out


def _gradient(x, **kw):
    return ember.gradient(x, **kw)


def _np_gradient(a, spacing=1, dim=None, edge_order=1):
    axes = (
        tuple(builtins.range(a.ndim))
        if dim is None
        else ((dim,) if isinstance(dim, int) else tuple(dim))
    )
    if isinstance(spacing, (int, float)):
        spacing = [spacing] * len(axes)
    spacing = [
        np.asarray(h.numpy() if hasattr(h, "numpy") else h, dtype=np.float64) for h in spacing
    ]
    out = np.gradient(a, *spacing, axis=axes, edge_order=edge_order)
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def _gradient_samples(dtype, rng):
    return [
        Sample((make_array((6,), dtype, rng),), {}, "1-d"),
        Sample((make_array((4, 5), dtype, rng),), {"spacing": 0.5}, "2-d spacing"),
        Sample((make_array((4, 5), dtype, rng),), {"dim": 1, "edge_order": 2}, "edge_order=2"),
        Sample(
            (make_array((5, 3), dtype, rng),),
            {"spacing": [ember.tensor([0.0, 0.5, 1.5, 1.75, 3.0], dtype=ember.float64)], "dim": 0},
            "coordinates",
        ),
    ]


COMPOSITES += [
    OpSpec(
        "histogramdd",
        _histogramdd,
        _np_histogramdd,
        [ember.float32, ember.float64],
        lambda d, r: [
            Sample((make_array((40, 2), d, r),), {"bins": [3, 4]}, "bins list", grad=False),
            Sample(
                (make_array((30, 3), d, r),),
                {"bins": 2, "range": [-2.0, 2.0] * 3},
                "range",
                grad=False,
            ),
            Sample(
                (make_array((30, 2), d, r),), {"bins": 3, "density": True}, "density", grad=False
            ),
        ],
        grad=False,
    ),
    OpSpec("mode", ember.mode, _np_mode, NUMERIC, _mode_samples, grad=False),
    OpSpec("gradient", _gradient, _np_gradient, FLOATING, _gradient_samples),
]


def records():
    return (
        RECORDS
        + COMPOSITES
        + [inplace_of(s) for s in COMPOSITES if s.name + "_" in REGISTRY_DTYPES]
    )
