"""Op-table records of sorting and selection: sort, argsort, topk, kthvalue, median, nanmedian,
unique, unique_consecutive.

The references order NaN above every number and equal values by position (a stable sort), which
is ember's documented order, so indices are compared exactly even with ties."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    LINES,
    NUMERIC,
    ErrorSample,
    OpSpec,
    Sample,
    dim_error,
    dim_error_sample,
    error_list,
    make_array,
    nan_mask,
    with_nan,
)

# ---- references ------------------------------------------------------------------------------


def _order(a, dim, descending=False):
    """Indices of a stable sort along dim: NaN last ascending, first descending."""
    if a.dtype == np.bool_:
        a = a.astype(np.int64)
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    nan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, dtype=bool)
    return np.lexsort((-np.where(nan, 0, a), ~nan), axis=dim)


def _take(a, idx, dim):
    return np.take_along_axis(a, idx, axis=dim)


def np_sort(a, dim=-1, descending=False, stable=False):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = _order(a, dim, descending)
    return _take(a, idx, dim), idx


def np_argsort(a, dim=-1, descending=False, stable=False):
    return np_sort(a, dim, descending)[1]


def np_topk(a, k, dim=-1, largest=True, sorted=True):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = np.take(_order(a, dim, largest), np.arange(k), axis=dim)
    return _take(a, idx, dim), idx


def _line_select(a, dim, keepdim, pick):
    """Applies pick(line) -> index to every line along dim; values and indices."""
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    x = np.moveaxis(a, dim, -1)
    idx = np.zeros(x.shape[:-1], np.int64)
    for pos in np.ndindex(*x.shape[:-1]):
        idx[pos] = pick(x[pos])
    vals = np.take_along_axis(x, idx[..., None], axis=-1)[..., 0]
    if keepdim:
        return np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return vals, idx


def _median_pick(line):
    nan = nan_mask(line)
    if nan.any():
        return int(np.argmax(nan))
    return int(_order(line, 0)[(line.size - 1) // 2])


def _nanmedian_pick(line):
    m = int((~nan_mask(line)).sum())
    if m == 0:
        return 0
    return int(_order(line, 0)[(m - 1) // 2])


def np_kthvalue(a, k, dim=-1, keepdim=False):
    return _line_select(a, dim, keepdim, lambda line: int(_order(line, 0)[k - 1]))


def _median_ref(pick):
    def ref(a, dim=None, keepdim=False):
        if dim is None:
            if a.size == 0:
                return np.array(np.nan)
            flat = a.reshape(-1)
            return flat[pick(flat)]
        return _line_select(a, dim, keepdim, pick)

    return ref


def np_unique(a, sorted=True, return_inverse=False, return_counts=False):
    out = np.unique(
        a, return_inverse=True, return_counts=True, **({"equal_nan": False} if a.size else {})
    )
    res = [out[0]]
    if return_inverse:
        res.append(out[1].reshape(a.shape))
    if return_counts:
        res.append(out[2])
    return tuple(res) if len(res) > 1 else res[0]


def np_unique_consecutive(a, return_inverse=False, return_counts=False):
    flat = a.reshape(-1)
    if flat.size:
        new = np.concatenate([[True], flat[1:] != flat[:-1]])
    else:
        new = np.zeros(0, dtype=bool)
    group = np.cumsum(new) - 1
    res = [flat[new]]
    if return_inverse:
        res.append(group.reshape(a.shape))
    if return_counts:
        res.append(np.bincount(group, minlength=int(new.sum())) if flat.size else group)
    return tuple(res) if len(res) > 1 else res[0]


# ---- samples ---------------------------------------------------------------------------------


def _sort_samples(dtype, rng):
    out = []
    for shape, dim in LINES:
        x = make_array(shape, dtype, rng)
        out.append(Sample((x,), {"dim": dim}, f"{shape} dim {dim}"))
        out.append(Sample((x,), {"dim": dim, "descending": True}, f"{shape} dim {dim} desc"))
    out.append(Sample((make_array((3, 4), dtype, rng),), {}, "default dim"))
    out.append(Sample((make_array((3, 4), dtype, rng),), {"stable": True}, "stable"))
    ties = np.array([[2, 1, 2, 0, 1, 2], [1, 1, 1, 0, 0, 0]])
    out.append(Sample((ties,), {"dim": 1, "stable": True}, "ties", grad=False))
    out.append(Sample((ties,), {"dim": 1, "descending": True}, "ties desc", grad=False))
    if dtype in FLOATING:
        x = with_nan(dtype, rng)
        out.append(Sample((x,), {"dim": 1}, "nan", grad=False))
        out.append(Sample((x,), {"dim": 1, "descending": True}, "nan desc", grad=False))
        inf = np.array([np.inf, np.nan, -np.inf, 1.0, np.inf, np.nan])
        out.append(Sample((inf,), {"descending": True}, "inf and nan", grad=False))
    return out


def _argsort_samples(dtype, rng):
    return [Sample(s.args, s.kwargs, s.desc, False) for s in _sort_samples(dtype, rng)]


def _topk_samples(dtype, rng):
    out = []
    for shape, dim, k, kw in [
        ((5,), -1, 2, {}),
        ((3, 4), 0, 3, {"largest": False}),
        ((3, 4), 1, 1, {}),
        ((3, 4), 1, 4, {}),
        ((2, 3, 4), 1, 2, {"largest": False}),
        ((3, 4), 1, 0, {}),
        ((), 0, 1, {}),
        ((0, 3), 1, 2, {}),
        ((4, 300), 1, 250, {}),
        ((4, 300), 1, 7, {"largest": False}),
    ]:
        out.append(
            Sample((make_array(shape, dtype, rng),), {"k": k, "dim": dim, **kw}, f"{shape} k {k}")
        )
    ties = np.array([[2, 1, 2, 0, 1, 2], [1, 1, 1, 0, 0, 0]])
    out.append(Sample((ties,), {"k": 4}, "ties", grad=False))
    out.append(Sample((ties,), {"k": 4, "largest": False}, "ties smallest", grad=False))
    if dtype in FLOATING:
        out.append(Sample((with_nan(dtype, rng),), {"k": 3}, "nan", grad=False))
        out.append(Sample((with_nan(dtype, rng),), {"k": 3, "largest": False}, "nan", grad=False))
    return out


def _kth_samples(dtype, rng):
    out = []
    for shape, dim, k, kw in [
        ((5,), -1, 2, {}),
        ((3, 4), 0, 3, {"keepdim": True}),
        ((3, 4), 1, 1, {}),
        ((3, 4), 1, 4, {}),
        ((2, 3, 4), 1, 2, {}),
        ((2, 3, 4), -1, 3, {"keepdim": True}),
        ((), 0, 1, {}),
        ((0, 3), 1, 2, {}),
        ((4, 301), 1, 150, {}),
    ]:
        x = make_array(shape, dtype, rng)
        out.append(Sample((x,), {"k": k, "dim": dim, **kw}, f"{shape} k {k} {kw}"))
    ties = np.array([[2, 1, 2, 0, 1, 2], [1, 1, 1, 0, 0, 0]])
    out.append(Sample((ties,), {"k": 4}, "ties", grad=False))
    if dtype in FLOATING:
        out.append(Sample((with_nan(dtype, rng),), {"k": 4}, "nan", grad=False))
    return out


def _median_samples(dtype, rng):
    out = []
    for shape, kw in [
        ((5,), {}),
        ((3, 4), {"dim": 0}),
        ((3, 4), {"dim": 1, "keepdim": True}),
        ((2, 3, 4), {"dim": -1}),
        ((2, 3, 4), {}),
        ((), {}),
        ((), {"dim": 0}),
        ((0, 3), {"dim": 1}),
        ((4, 301), {"dim": 1}),
        ((4, 300), {"dim": 1}),
    ]:
        out.append(Sample((make_array(shape, dtype, rng),), kw, f"{shape} {kw}"))
    ties = np.array([[2, 1, 2, 0, 1, 2], [1, 1, 1, 0, 0, 0]])
    out.append(Sample((ties,), {"dim": 1}, "ties", grad=False))
    if dtype in FLOATING:
        x = with_nan(dtype, rng, (4, 5))
        x[3] = np.nan  # a line of NaN only
        out.append(Sample((x,), {"dim": 1}, "nan", grad=False))
        out.append(Sample((x,), {}, "nan, all", grad=False))
        out.append(Sample((x[:1],), {}, "one nan, all", grad=False))
        out.append(Sample((np.zeros((0, 2)),), {}, "empty, all", grad=False))
    return out


def _unique_samples(dtype, rng):
    out = []
    for shape in [(8,), (3, 4), (2, 3, 4), (), (0, 3)]:
        x = make_array(shape, dtype, rng, -2, 2)
        for kw in [{}, {"return_inverse": True}, {"return_counts": True}]:
            out.append(Sample((x,), kw, f"{shape} {kw}", grad=False))
        out.append(
            Sample((x,), {"return_inverse": True, "return_counts": True}, f"{shape} both", False)
        )
    out.append(
        Sample((make_array((3, 4), dtype, rng, -2, 2),), {"sorted": False}, "unsorted", False)
    )
    if dtype in FLOATING:
        x = np.array([[1.0, np.nan, 0.0], [np.nan, 1.0, -0.0]])
        out.append(Sample((x,), {"return_inverse": True, "return_counts": True}, "nan", False))
    return out


def _unique_consecutive_samples(dtype, rng):
    out = []
    for s in _unique_samples(dtype, rng):
        if "sorted" in s.kwargs:
            continue
        out.append(s)
    runs = np.array([[1, 1, 2, 2], [2, 0, 0, 1]])
    out.append(Sample((runs,), {"return_inverse": True, "return_counts": True}, "runs", False))
    return out


RECORDS = [
    OpSpec(
        "sort",
        lambda x, **kw: ember.sort(x, **kw),
        np_sort,
        ALL,
        _sort_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.sort(d), "sort"),
    ),
    OpSpec(
        "argsort",
        lambda x, **kw: ember.argsort(x, **kw),
        np_argsort,
        ALL,
        _argsort_samples,
        grad=False,
        errors=dim_error(lambda x, d: ember.argsort(x, d), "argsort"),
    ),
    OpSpec(
        "topk",
        lambda x, **kw: ember.topk(x, **kw),
        np_topk,
        NUMERIC,
        _topk_samples,
        gradgrad=True,
        errors=error_list(
            ErrorSample(
                lambda: ember.topk(ember.ones(3), 4), RuntimeError, "selected index k out of range"
            ),
            ErrorSample(
                lambda: ember.ones(3).topk(-1), RuntimeError, "selected index k out of range"
            ),
            dim_error_sample(lambda x, d: x.topk(1, d), "topk"),
        ),
    ),
    OpSpec(
        "kthvalue",
        lambda x, **kw: ember.kthvalue(x, **kw),
        np_kthvalue,
        NUMERIC,
        _kth_samples,
        gradgrad=True,
        errors=error_list(
            ErrorSample(
                lambda: ember.kthvalue(ember.ones(3), 0),
                RuntimeError,
                "selected index k out of range",
            ),
            ErrorSample(
                lambda: ember.ones(3).kthvalue(4), RuntimeError, "selected index k out of range"
            ),
            ErrorSample(
                lambda: ember.ones(2, 0).kthvalue(1, 1), IndexError, "kthvalue", "empty dim"
            ),
            dim_error_sample(lambda x, d: x.kthvalue(1, d), "kthvalue"),
        ),
    ),
    OpSpec(
        "median",
        lambda x, **kw: ember.median(x, **kw),
        _median_ref(_median_pick),
        NUMERIC,
        _median_samples,
        gradgrad=True,
        errors=error_list(
            ErrorSample(lambda: ember.ones(2, 0).median(1), IndexError, "median", "empty dim"),
            dim_error_sample(lambda x, d: x.median(d), "median"),
        ),
    ),
    OpSpec(
        "nanmedian",
        lambda x, **kw: ember.nanmedian(x, **kw),
        _median_ref(_nanmedian_pick),
        NUMERIC,
        _median_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.nanmedian(d), "nanmedian"),
    ),
    OpSpec(
        "unique",
        lambda x, **kw: ember.unique(x, **kw),
        np_unique,
        ALL,
        _unique_samples,
        grad=False,
        errors=error_list(
            ErrorSample(lambda: ember.ones(2, 3).unique(dim=0), NotImplementedError, "dim")
        ),
    ),
    OpSpec(
        "unique_consecutive",
        lambda x, **kw: ember.unique_consecutive(x, **kw),
        np_unique_consecutive,
        ALL + COMPLEX,
        _unique_consecutive_samples,
        grad=False,
        errors=error_list(
            ErrorSample(
                lambda: ember.unique_consecutive(ember.ones(2, 3), dim=1),
                NotImplementedError,
                "dim",
            )
        ),
    ),
]


# The Python composites of this topic (python/ember/_composites/sort.py).
COMPOSITES = [
    OpSpec(
        "msort",
        ember.msort,
        lambda x: np.sort(x, axis=0),
        NUMERIC,
        lambda d, r: [Sample((make_array(s, d, r),), desc=f"{s}") for s in [(5,), (3, 4)]],
    ),
    OpSpec(
        "isin",
        ember.isin,
        lambda a, b, invert=False: np.isin(a, b, invert=invert),
        ALL,
        lambda d, r: [
            Sample((make_array((3, 4), d, r), make_array((5,), d, r)), desc="3x4 in 5", grad=False),
            Sample(
                (make_array((6,), d, r), make_array((2, 2), d, r)),
                {"invert": True},
                "invert",
                grad=False,
            ),
            Sample((make_array((4,), d, r), make_array((0,), d, r)), desc="in nothing", grad=False),
        ],
        grad=False,
    ),
]


def records():
    return RECORDS + COMPOSITES
