"""Op-table records of the indexing ops: index_select, gather, scatter and its reductions, the
index_add family, masks, take, nonzero, searchsorted and advanced indexing (index, index_put).
Index arguments are `Fixed` int64 (or bool) arrays, so they keep their dtype whatever dtype a
test runs."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    NUMERIC,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    array_cases,
    inplace_of,
    make_array,
)


def idx(a):
    return Fixed(np.asarray(a, dtype=np.int64), ember.int64)


def mask(a):
    return Fixed(np.asarray(a, dtype=np.bool_), ember.bool)


def _lead(dim, ndim):
    return (slice(None),) * (dim % max(ndim, 1))


def _grid(index, dim):
    """Full coordinate tuples for scatter-like updates: index's own coords, `dim` replaced."""
    coords = list(np.indices(index.shape))
    coords[dim] = index
    return tuple(coords)


def _part(src, shape):
    return src[tuple(slice(0, s) for s in shape)]


# ---- references ------------------------------------------------------------------------------


def np_index_select(a, dim, index):
    if a.ndim == 0:
        return a.copy()
    return np.take(a, np.atleast_1d(index), axis=dim)


def np_scatter(a, dim, index, src):
    out = a.copy()
    if np.ndim(src) == 0:
        out[_grid(index, dim)] = src
    else:
        out[_grid(index, dim)] = _part(src, index.shape)
    return out


def np_scatter_add(a, dim, index, src):
    out = a.copy()
    np.add.at(out, _grid(index, dim), _part(src, index.shape))
    return out


_UFUNC = {
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "amax": np.maximum,
    "amin": np.minimum,
}
_IDENTITY = {"sum": 0, "mean": 0, "prod": 1}


def np_scatter_reduce(a, dim, index, src, reduce, include_self=True):
    out = a.copy()
    where = _grid(index, dim)
    vals = _part(src, index.shape)
    if not include_self:
        if reduce in _IDENTITY:
            out[where] = _IDENTITY[reduce]
        else:  # start from one of the scattered values: the reduction of src alone
            hit = np.zeros(a.shape, dtype=bool)
            hit[where] = True
            first = np.full(a.shape, np.nan if a.dtype.kind == "f" else 0, dtype=a.dtype)
            first[where] = vals
            out = np.where(hit, first, out)
    _UFUNC[reduce].at(out, where, vals)
    if reduce == "mean":
        count = np.full(a.shape, 1 if include_self else 0)
        np.add.at(count, where, 1)
        count = np.maximum(count, 1)
        out = out / count if a.dtype.kind == "f" else out // count
    return out


def np_index_add(a, dim, index, src, alpha=1):
    out = a.copy()
    np.add.at(out, _lead(dim, a.ndim) + (index,), alpha * src)
    return out


def np_index_copy(a, dim, index, src):
    out = a.copy()
    out[_lead(dim, a.ndim) + (index,)] = src
    return out


def np_index_fill(a, dim, index, value):
    out = a.copy()
    out[_lead(dim, a.ndim) + (index,)] = value
    return out


def np_masked_select(a, m):
    a, m = np.broadcast_arrays(a, m)
    return a[m]


def np_masked_scatter(a, m, src):
    out = a.copy()
    m = np.broadcast_to(m, a.shape)
    out[m] = src.reshape(-1)[: int(m.sum())]
    return out


def np_searchsorted(seq, values, right=False, out_int32=False):
    side = "right" if right else "left"
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side)
    out = np.empty(values.shape, dtype=np.int64)
    for i in np.ndindex(seq.shape[:-1]):
        out[i] = np.searchsorted(seq[i], values[i], side=side)
    return out


def np_index_put(a, indices, values, accumulate=False):
    out = a.copy()
    key = tuple(slice(None) if i is None else i for i in indices)
    if accumulate:
        np.add.at(out, key, np.broadcast_to(values, out[key].shape))
    else:
        out[key] = values
    return out


# ---- samples ---------------------------------------------------------------------------------


def _unique_rows(rng, shape, size, dim):
    """An index of `shape` whose lines along dim have no repeats (values < size)."""
    out = np.empty(shape, dtype=np.int64)
    moved = np.moveaxis(out, dim, -1)
    for i in np.ndindex(moved.shape[:-1]):
        moved[i] = rng.permutation(size)[: moved.shape[-1]]
    return out


def _quarters(shape, dtype, rng):
    """Multiples of 1/4: sums of a few of them are exact in every floating dtype."""
    a = make_array(shape, dtype, rng)
    return np.round(a * 4) / 4 if dtype in FLOATING else a


def _index_select_samples(dtype, rng):
    return [
        Sample((make_array((5, 3), dtype, rng), 0, idx([4, 0, 2, 2])), desc="dim 0, repeats"),
        Sample((make_array((3, 4), dtype, rng), 1, idx([3, 1])), desc="dim 1"),
        Sample((make_array((2, 3, 4), dtype, rng), -1, idx([0])), desc="dim -1"),
        Sample((make_array((5,), dtype, rng), 0, idx(3)), desc="0-d index"),
        Sample((make_array((4, 3), dtype, rng), 0, idx(np.zeros(0))), desc="empty index"),
        Sample((make_array((), dtype, rng), 0, idx([0])), desc="0-d input"),
    ]


def _gather_samples(dtype, rng):
    return [
        Sample((make_array((3, 4), dtype, rng), 1, idx([[0, 3], [2, 2], [1, 0]])), desc="dim 1"),
        Sample((make_array((3, 4), dtype, rng), 0, idx([[2, 0, 1, 1]])), desc="dim 0, smaller"),
        Sample(
            (make_array((2, 3, 4), dtype, rng), -2, idx(rng.integers(0, 3, (2, 2, 4)))), desc="3-d"
        ),
        Sample((make_array((4,), dtype, rng), 0, idx([3, 3, 0])), desc="1-d"),
        Sample((make_array((3, 2), dtype, rng), 1, idx(np.zeros((3, 0)))), desc="empty"),
    ]


def _scatter_samples(dtype, rng):
    return [
        Sample(
            (
                make_array((3, 5), dtype, rng),
                1,
                idx(_unique_rows(rng, (3, 2), 5, 1)),
                make_array((3, 4), dtype, rng),
            ),
            desc="dim 1, src larger",
        ),
        Sample(
            (
                make_array((4, 3), dtype, rng),
                0,
                idx(_unique_rows(rng, (2, 3), 4, 0)),
                make_array((2, 3), dtype, rng),
            ),
            desc="dim 0",
        ),
        Sample(
            (make_array((5,), dtype, rng), 0, idx([4, 1]), make_array((3,), dtype, rng)), desc="1-d"
        ),
    ]


def _scatter_value_samples(dtype, rng):
    value = True if dtype == ember.bool else 2
    return [
        Sample(
            (make_array((3, 5), dtype, rng), 1, idx([[0, 4], [1, 1], [2, 0]]), value), desc="value"
        ),
        Sample((make_array((4,), dtype, rng), 0, idx([3]), value), desc="1-d value"),
    ]


def _scatter_add_samples(dtype, rng):
    return [
        Sample(
            (
                make_array((3, 5), dtype, rng),
                1,
                idx([[0, 4, 0], [1, 1, 1], [2, 0, 3]]),
                make_array((3, 3), dtype, rng),
            ),
            desc="dim 1 with repeats",
        ),
        Sample(
            (
                _quarters((4, 3), dtype, rng),
                0,
                idx(rng.integers(0, 4, (5, 2))),
                _quarters((5, 3), dtype, rng),
            ),
            desc="dim 0, more rows than self",
        ),
    ]


def _scatter_reduce_samples(dtype, rng):
    out = []
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            a = make_array((3, 4), dtype, rng, 0.5, 2.0)
            src = (
                make_array((3, 3), dtype, rng, 0.5, 2.0)
                if dtype in FLOATING
                else make_array((3, 3), dtype, rng)
            )
            if dtype in FLOATING:  # distinct values: the max and min are unique
                a = rng.permutation(12).reshape(3, 4) * 0.25 + 0.5
                src = rng.permutation(9).reshape(3, 3) * 0.25 + 0.625
            index = idx([[0, 3, 0], [1, 1, 2], [2, 0, 3]])
            out.append(
                Sample(
                    (a, 1, index, src, reduce),
                    {"include_self": include_self},
                    desc=f"{reduce} include_self={include_self}",
                )
            )
    return out


def _index_add_samples(dtype, rng):
    return [
        Sample(
            (make_array((5, 3), dtype, rng), 0, idx([4, 0, 4]), make_array((3, 3), dtype, rng)),
            desc="repeats",
        ),
        Sample(
            (make_array((3, 4), dtype, rng), 1, idx([3, 1]), make_array((3, 2), dtype, rng)),
            desc="dim 1",
        ),
        Sample(
            (make_array((4,), dtype, rng), 0, idx([1]), make_array((1,), dtype, rng)), desc="1-d"
        ),
    ]


def _index_copy_samples(dtype, rng):
    return [
        Sample(
            (make_array((5, 3), dtype, rng), 0, idx([4, 0, 2]), make_array((3, 3), dtype, rng)),
            desc="dim 0",
        ),
        Sample(
            (make_array((3, 4), dtype, rng), -1, idx([3, 1]), make_array((3, 2), dtype, rng)),
            desc="dim -1",
        ),
    ]


def _index_fill_samples(dtype, rng):
    value = True if dtype == ember.bool else 3
    return [
        Sample((make_array((5, 3), dtype, rng), 0, idx([4, 0, 4]), value), desc="dim 0"),
        Sample((make_array((3, 4), dtype, rng), 1, idx([2]), value), desc="dim 1"),
    ]


def _masked_fill_samples(dtype, rng):
    value = True if dtype == ember.bool else 5
    return [
        Sample(
            (make_array((3, 4), dtype, rng), mask(rng.random((3, 4)) < 0.5), value),
            desc="same shape",
        ),
        Sample(
            (make_array((3, 4), dtype, rng), mask(rng.random((4,)) < 0.5), value), desc="broadcast"
        ),
        Sample((make_array((0, 4), dtype, rng), mask(np.zeros((0, 4))), value), desc="empty"),
    ]


def _masked_select_samples(dtype, rng):
    return [
        Sample((make_array((3, 4), dtype, rng), mask(rng.random((3, 4)) < 0.5)), desc="same shape"),
        Sample(
            (make_array((4,), dtype, rng), mask(rng.random((3, 4)) < 0.5)), desc="both broadcast"
        ),
        Sample((make_array((3, 4), dtype, rng), mask(np.zeros((3, 4)))), desc="nothing"),
    ]


def _masked_scatter_samples(dtype, rng):
    return [
        Sample(
            (
                make_array((3, 4), dtype, rng),
                mask(rng.random((3, 4)) < 0.5),
                make_array((12,), dtype, rng),
            ),
            desc="same",
        ),
        Sample(
            (
                make_array((3, 4), dtype, rng),
                mask(rng.random((4,)) < 0.5),
                make_array((4, 4), dtype, rng),
            ),
            desc="bcast",
        ),
    ]


def _take_samples(dtype, rng):
    return [
        Sample(
            (make_array((3, 4), dtype, rng), idx([[0, 11], [-1, 5]])), desc="2-d index, negative"
        ),
        Sample((make_array((5,), dtype, rng), idx(2)), desc="0-d index"),
    ]


def _take_along_dim_samples(dtype, rng):
    return [
        Sample((make_array((3, 4), dtype, rng), idx([[0, 3], [2, 2], [1, -1]]), 1), desc="dim 1"),
        Sample((make_array((3, 4), dtype, rng), idx([[2, 0, 1, 1]]), 0), desc="broadcast"),
        Sample((make_array((3, 4), dtype, rng), idx([5, 0])), desc="flattened"),
    ]


def _nonzero_samples(dtype, rng):
    out = []
    for shape in [(5,), (3, 4), (2, 3, 4), (0, 3)]:
        a = make_array(shape, dtype, rng) * (rng.random(shape) < 0.5)
        out.append(
            Sample(
                (a.astype(np.asarray(make_array((1,), dtype, rng)).dtype),),
                desc=f"{shape}",
                grad=False,
            )
        )
    return out


def _searchsorted_samples(dtype, rng):
    seq = np.sort(make_array((6,), dtype, rng, 0, 20))
    seq2 = np.sort(make_array((2, 5), dtype, rng, 0, 20), axis=-1)
    vals = make_array((3, 4), dtype, rng, 0, 20)
    vals2 = make_array((2, 3), dtype, rng, 0, 20)
    return [
        Sample((seq, vals), desc="1-d sequence", grad=False),
        Sample((seq, vals), {"right": True}, desc="right", grad=False),
        Sample((seq2, vals2), desc="row-wise", grad=False),
        Sample((seq, seq), {"right": True}, desc="exact hits", grad=False),
    ]


def _bucketize_samples(dtype, rng):
    return [
        Sample(
            (make_array((3, 4), dtype, rng, 0, 20), np.sort(make_array((5,), dtype, rng, 0, 20))),
            desc="b",
            grad=False,
        ),
        Sample(
            (make_array((6,), dtype, rng, 0, 20), np.sort(make_array((5,), dtype, rng, 0, 20))),
            {"right": True},
            grad=False,
        ),
    ]


def _index_cases(rng):
    return [
        ((5, 3), [idx([4, 0, 4])], "one int index"),
        ((3, 4), [idx([[0], [2]]), idx([1, 3])], "two broadcast"),
        ((3, 4, 5), [None, idx([1, 3]), idx([0, 4])], "adjacent after a slice"),
        ((3, 4, 5), [idx([0, 2]), None, idx([1, 3])], "separated: to the front"),
        ((3, 4), [mask(rng.random((3, 4)) < 0.5)], "mask"),
        ((3, 4, 2), [None, mask(rng.random((4,)) < 0.5)], "mask on dim 1"),
        ((4, 3), [idx([-1, 0])], "negative"),
    ]


def _index_samples(dtype, rng):
    return [Sample((make_array(s, dtype, rng), *i), desc=d) for s, i, d in _index_cases(rng)]


def _index_put_samples(dtype, rng):
    out = []
    for s, i, d in _index_cases(rng):
        a = make_array(s, dtype, rng)
        key = tuple(slice(None) if k is None else k.array for k in i)
        shape = a[key].shape
        if d == "one int index":
            # Repeated indices: the last write wins, and the gradient of the values overwritten
            # is not theirs (as in PyTorch): a unique index for writes, repeats to accumulate.
            unique = (idx([4, 0, 2]),)
            out.append(Sample((a, make_array(shape, dtype, rng), *unique), desc="unique"))
        else:
            out.append(Sample((a, make_array(shape, dtype, rng), *i), desc=d))
        if d == "one int index" and dtype != ember.bool:
            v = make_array(shape, dtype, rng)
            out.append(Sample((a, v, *i), {"accumulate": True}, desc="accumulate"))
    return out


# Index tensors are separate arguments (None for a whole dim) so that the harness converts them.
def _call_index(x, *indices):
    return ember._C._index(x, list(indices))


def _call_index_put(x, values, *indices, **kw):
    return ember.index_put(x, indices, values, **kw)


def _index_put_inplace(x, values, *indices, **kw):
    out = x.clone()
    assert out.index_put_(indices, values, **kw) is out
    return out


def np_index(a, *indices):
    return a[tuple(slice(None) if k is None else k for k in indices)]


def np_index_put_ref(a, values, *indices, accumulate=False):
    return np_index_put(a, indices, values, accumulate)


def _inplace(method):
    def fn(x, *args, **kw):
        out = x.clone()
        result = getattr(out, method)(*args, **kw)
        assert result is out, f"{method} must return self"
        return out

    return fn


def _bounds_error(fn, name):
    return lambda: [ErrorSample(fn, IndexError, "out of bounds", f"{name}: index past the end")]


RECORDS = [
    OpSpec(
        "index_select",
        ember.index_select,
        np_index_select,
        ALL + COMPLEX,
        _index_select_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.index_select(ember.ones(3), 0, ember.tensor([3])),
                IndexError,
                "out of bounds",
                "3 >= 3",
            ),
            ErrorSample(
                lambda: ember.index_select(ember.ones(3), 0, ember.tensor([[0]])),
                RuntimeError,
                "1 or 0 dimensions",
                "2-d",
            ),
            ErrorSample(
                lambda: ember.index_select(ember.ones(()), 0, ember.tensor([0, 0])),
                IndexError,
                "0-d",
                "0-d self",
            ),
        ],
    ),
    OpSpec(
        "gather",
        ember.gather,
        lambda a, d, i: np.take_along_axis(a, i, axis=d),
        ALL,
        _gather_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.gather(ember.ones(3, 2), 1, ember.tensor([[2]])),
                IndexError,
                "out of bounds",
                "2 >= 2",
            ),
            ErrorSample(
                lambda: ember.gather(ember.ones(3, 2), 1, ember.tensor([[0]]).int()),
                RuntimeError,
                "int64",
                "int32",
            ),
            ErrorSample(
                lambda: ember.gather(ember.ones(3, 2), 1, ember.tensor([0])),
                RuntimeError,
                "same number of dimensions",
                "rank",
            ),
        ],
    ),
    OpSpec(
        "scatter",
        lambda x, d, i, s, **kw: ember.scatter(x, d, i, s, **kw),
        np_scatter,
        ALL,
        lambda dt, rng: _scatter_samples(dt, rng) + _scatter_value_samples(dt, rng),
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.scatter(ember.ones(3), 0, ember.tensor([0]), ember.ones(1).long()),
                RuntimeError,
                "same dtype",
                "src dtype",
            )
        ],
    ),
    OpSpec(
        "scatter_",
        _inplace("scatter_"),
        np_scatter,
        ALL,
        lambda dt, rng: _scatter_samples(dt, rng) + _scatter_value_samples(dt, rng),
    ),
    OpSpec(
        "scatter_add",
        ember.scatter_add,
        np_scatter_add,
        ALL,
        _scatter_add_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.scatter_add(
                    ember.ones(3, 2), 0, ember.tensor([[0, 1], [1, 0]]), ember.ones(1, 2)
                ),
                RuntimeError,
                "no larger than src",
                "src too small",
            )
        ],
    ),
    OpSpec("scatter_add_", _inplace("scatter_add_"), np_scatter_add, ALL, _scatter_add_samples),
    OpSpec(
        "scatter_reduce",
        lambda x, d, i, s, r, **kw: ember.scatter_reduce(x, d, i, s, r, **kw),
        np_scatter_reduce,
        NUMERIC,
        _scatter_reduce_samples,
        errors=lambda: [
            ErrorSample(
                lambda: ember.scatter_reduce(
                    ember.ones(3), 0, ember.tensor([0]), ember.ones(1), "max"
                ),
                ValueError,
                "reduce argument",
                "unknown reduction",
            )
        ],
    ),
    OpSpec(
        "scatter_reduce_",
        _inplace("scatter_reduce_"),
        np_scatter_reduce,
        NUMERIC,
        _scatter_reduce_samples,
    ),
    OpSpec(
        "index_add",
        lambda x, d, i, s, **kw: ember.index_add(x, d, i, s, **kw),
        np_index_add,
        ALL + COMPLEX,
        _index_add_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.index_add(ember.ones(3, 2), 0, ember.tensor([0]), ember.ones(2, 2)),
                RuntimeError,
                "expected source of shape",
                "source rows",
            )
        ],
    ),
    OpSpec("index_add_", _inplace("index_add_"), np_index_add, ALL + COMPLEX, _index_add_samples),
    OpSpec(
        "index_copy",
        ember.index_copy,
        np_index_copy,
        ALL + COMPLEX,
        _index_copy_samples,
        gradgrad=True,
        errors=_bounds_error(
            lambda: ember.index_copy(ember.ones(3), 0, ember.tensor([3]), ember.ones(1)),
            "index_copy",
        ),
    ),
    OpSpec(
        "index_copy_", _inplace("index_copy_"), np_index_copy, ALL + COMPLEX, _index_copy_samples
    ),
    OpSpec(
        "index_fill",
        ember.index_fill,
        np_index_fill,
        ALL + COMPLEX,
        _index_fill_samples,
        gradgrad=True,
        errors=_bounds_error(
            lambda: ember.index_fill(ember.ones(3), 0, ember.tensor([-1]), 1), "index_fill"
        ),
    ),
    OpSpec(
        "index_fill_", _inplace("index_fill_"), np_index_fill, ALL + COMPLEX, _index_fill_samples
    ),
    OpSpec(
        "masked_fill",
        ember.masked_fill,
        lambda a, m, v: np.where(m, v, a),
        ALL + COMPLEX,
        _masked_fill_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.masked_fill(ember.ones(3), ember.ones(3), 1),
                RuntimeError,
                "bool mask",
                "float mask",
            ),
            ErrorSample(
                lambda: ember.masked_fill(ember.ones(3), ember.ones(2, 3).bool(), 1),
                RuntimeError,
                "cannot be broadcast",
                "mask larger than self",
            ),
        ],
    ),
    OpSpec(
        "masked_fill_",
        _inplace("masked_fill_"),
        lambda a, m, v: np.where(m, v, a),
        ALL + COMPLEX,
        _masked_fill_samples,
    ),
    OpSpec(
        "masked_select",
        ember.masked_select,
        np_masked_select,
        ALL + COMPLEX,
        _masked_select_samples,
        gradgrad=True,
    ),
    OpSpec(
        "masked_scatter",
        ember.masked_scatter,
        np_masked_scatter,
        ALL + COMPLEX,
        _masked_scatter_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.masked_scatter(ember.ones(3), ember.ones(3).bool(), ember.ones(2)),
                RuntimeError,
                "only 2 elements",
                "source too small",
            )
        ],
    ),
    OpSpec(
        "masked_scatter_",
        _inplace("masked_scatter_"),
        np_masked_scatter,
        ALL + COMPLEX,
        _masked_scatter_samples,
    ),
    OpSpec(
        "take",
        ember.take,
        lambda a, i: np.take(a, i),
        ALL + COMPLEX,
        _take_samples,
        gradgrad=True,
        errors=_bounds_error(lambda: ember.take(ember.ones(2, 2), ember.tensor([4])), "take"),
    ),
    OpSpec(
        "take_along_dim",
        lambda x, i, d=None: ember.take_along_dim(x, i, d),
        lambda a, i, d=None: (
            np.take(a, i)
            if d is None
            else np.take_along_axis(a, np.where(i < 0, i + a.shape[d], i), axis=d)
        ),
        ALL,
        _take_along_dim_samples,
        gradgrad=True,
    ),
    OpSpec("nonzero", ember.nonzero, np.argwhere, ALL, _nonzero_samples, grad=False),
    OpSpec("argwhere", ember.argwhere, np.argwhere, ALL, _nonzero_samples, grad=False),
    OpSpec(
        "searchsorted",
        lambda s, v, **kw: ember.searchsorted(s, v, **kw),
        np_searchsorted,
        NUMERIC,
        _searchsorted_samples,
        grad=False,
        errors=lambda: [
            ErrorSample(
                lambda: ember.searchsorted(ember.ones(2, 3), ember.ones(3, 3)),
                RuntimeError,
                "same leading dims",
                "rows",
            )
        ],
    ),
    OpSpec(
        "bucketize",
        lambda x, b, **kw: ember.bucketize(x, b, **kw),
        lambda x, b, right=False: np.searchsorted(b, x, side="right" if right else "left"),
        NUMERIC,
        _bucketize_samples,
        grad=False,
        errors=lambda: [
            ErrorSample(
                lambda: ember.bucketize(ember.ones(2), ember.ones(2, 2)),
                RuntimeError,
                "1 dimension",
                "2-d boundaries",
            )
        ],
    ),
    OpSpec(
        "index",
        _call_index,
        np_index,
        ALL + COMPLEX,
        _index_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.ones(3)[ember.tensor([3])], IndexError, "out of bounds", "x[3]"
            ),
            ErrorSample(
                lambda: ember.ones(3)[ember.tensor([True])], IndexError, "shape of the mask", "mask"
            ),
        ],
    ),
    OpSpec(
        "index_put",
        _call_index_put,
        np_index_put_ref,
        ALL + COMPLEX,
        _index_put_samples,
        gradgrad=True,
    ),
    OpSpec("index_put_", _index_put_inplace, np_index_put_ref, ALL + COMPLEX, _index_put_samples),
]


def _np_select_scatter(x, src, dim, index):
    out = x.copy()
    idx = [slice(None)] * x.ndim
    idx[dim] = index
    out[tuple(idx)] = src
    return out


def _np_slice_scatter(x, src, dim=0, start=None, end=None, step=1):
    out = x.copy()
    idx = [slice(None)] * x.ndim
    idx[dim] = slice(start, end, step)
    out[tuple(idx)] = src
    return out


def _np_diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    out = x.copy()
    view = np.diagonal(out, offset, dim1, dim2)
    view.setflags(write=True)
    view[...] = src
    return out


def _np_put(x, index, source, accumulate=False):
    out = x.copy().reshape(-1)
    if accumulate:
        np.add.at(out, index, source)
    else:
        out[index] = source
    return out.reshape(x.shape)


def _np_nonzero_static(x, size, fill_value=-1):
    idx = np.argwhere(x)[:size]
    pad = np.full((size - len(idx), x.ndim), fill_value)
    return np.concatenate([idx, pad]).astype(np.int64)


# The Python composites of this topic (python/ember/_composites/indexing.py).
COMPOSITES = [
    OpSpec(
        "select_scatter",
        ember.select_scatter,
        _np_select_scatter,
        ALL,
        array_cases((((3, 4), (4,)), (0, 1), {}), (((3, 4), (3,)), (1, -1), {})),
    ),
    OpSpec(
        "slice_scatter",
        ember.slice_scatter,
        _np_slice_scatter,
        ALL,
        array_cases(
            (((5, 3), (2, 3)), (), {"start": 1, "end": 3}), (((3, 6), (3, 3)), (1, 0, None, 2), {})
        ),
    ),
    OpSpec(
        "diagonal_scatter",
        ember.diagonal_scatter,
        _np_diagonal_scatter,
        ALL,
        array_cases(
            (((3, 4), (3,)), (), {}),
            (((3, 4), (3,)), (1,), {}),
            (((2, 3, 3), (3, 2)), (0, 0, 2), {}),
        ),
    ),
    OpSpec(
        "put",
        ember.put,
        _np_put,
        ALL,
        lambda d, r: [
            Sample(
                (
                    make_array((3, 4), d, r),
                    Fixed(np.array([0, 5, -1]), ember.int64),
                    make_array((3,), d, r),
                ),
                desc="3 positions",
            ),
            Sample(
                (
                    make_array((3, 4), d, r),
                    Fixed(np.array([1, 1, 2]), ember.int64),
                    make_array((3,), d, r),
                    True,
                ),
                desc="accumulate",
                grad=False,
            ),
        ],
    ),
    OpSpec(
        "nonzero_static",
        ember.nonzero_static,
        _np_nonzero_static,
        ALL,
        lambda d, r: [
            Sample((make_array((3, 4), d, r),), {"size": 20}, "padded", grad=False),
            Sample((make_array((3, 4), d, r),), {"size": 2, "fill_value": 7}, "cut", grad=False),
        ],
        grad=False,
    ),
]


def _np_index_reduce(a, dim, index, source, reduce, include_self=True):
    index = np.asarray(getattr(index, "array", index))
    res = np.moveaxis(np.array(a, dtype=np.float64), dim, 0)
    src = np.moveaxis(source, dim, 0)
    groups = {}
    for i, j in enumerate(index):
        groups.setdefault(int(j), []).append(src[i])
    for j, items in groups.items():
        stack = np.stack(items + ([res[j]] if include_self else []))
        if reduce == "prod":
            res[j] = stack.prod(0)
        elif reduce == "mean":
            res[j] = stack.mean(0)
        elif reduce == "amax":
            res[j] = stack.max(0)
        else:
            res[j] = stack.min(0)
    return np.moveaxis(res, 0, dim)


def _index_reduce_samples(dtype, rng):
    out = []
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            a = make_array((4, 3), dtype, rng, 1, 3)
            src = make_array((5, 3), dtype, rng, 1, 3)
            out.append(
                Sample(
                    (a, 0, idx([0, 2, 0, 3, 2]), src, reduce),
                    {"include_self": include_self},
                    f"{reduce} include_self={include_self}",
                    grad=reduce in ("prod", "mean"),
                )
            )
    a, src = make_array((2, 4), dtype, rng, 1, 3), make_array((2, 2), dtype, rng, 1, 3)
    out.append(Sample((a, 1, idx([3, 0]), src, "amax"), {}, "dim 1", grad=False))
    return out


COMPOSITES += [
    OpSpec(
        "index_reduce",
        lambda a, dim, index, source, reduce, **kw: ember.index_reduce(
            a, dim, index, source, reduce, **kw
        ),
        _np_index_reduce,
        NUMERIC,
        _index_reduce_samples,
        errors=lambda: [
            ErrorSample(
                lambda: ember.ones(2).index_reduce(0, ember.tensor([0]), ember.ones(1), "sum"),
                RuntimeError,
                "prod, mean, amax or amin",
                "reduce",
            )
        ],
    ),
]


def records():
    return RECORDS + COMPOSITES + [inplace_of(s) for s in COMPOSITES if s.name == "index_reduce"]
