"""Op-table records of the views and copies: view, reshape, permute, transpose, t, expand,
squeeze, unsqueeze, flatten, narrow, select, slice, contiguous, clone, detach, to, sum_to_size,
as_strided, and the backward helpers select_backward and slice_backward."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    ErrorSample,
    OpSpec,
    Sample,
    dim_error,
    make_array,
    unary_samples,
)


def _view_samples(*cases):
    """cases: (shape, args...) — the op is called as op(x, *args)."""

    def make(dtype, rng):
        return [Sample((make_array(c[0], dtype, rng),) + tuple(c[1:]), desc=f"{c}") for c in cases]

    return make


def _to_op(x, dtype_name):
    return x.to(getattr(ember, dtype_name))


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


RECORDS = [
    OpSpec(
        "view",
        lambda x, s: x.view(*s),
        lambda x, s: x.reshape(s),
        ALL + COMPLEX,
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
        ALL + COMPLEX,
        _view_samples(((2, 6), (3, 4)), ((2, 6), (-1,)), ((), ()), ((0, 3), (-1,))),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(6).reshape(-1, -1), RuntimeError, "reshape", "two -1")
        ],
    ),
    OpSpec(
        "permute",
        lambda x, d: x.permute(*d),
        lambda x, d: np.transpose(x, d),
        ALL + COMPLEX,
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
        ALL + COMPLEX,
        _view_samples(((2, 3, 4), 0, 2), ((2, 3), -1, -2), ((5,), 0, 0)),
        errors=dim_error(lambda x, d: x.transpose(0, d), "transpose"),
    ),
    OpSpec(
        "t",
        lambda x: x.t(),
        lambda x: x.T,
        ALL + COMPLEX,
        _view_samples(((2, 3),), ((4,),), ((),)),
        errors=lambda: [ErrorSample(lambda: ember.ones(2, 2, 2).t(), RuntimeError, "t", "3-d")],
    ),
    OpSpec(
        "expand",
        lambda x, s: x.expand(*s),
        lambda x, s: np.broadcast_to(x, s),
        ALL + COMPLEX,
        _view_samples(((3, 1), (3, 4)), ((4,), (2, 4)), ((), (2, 2)), ((1, 3), (0, 3))),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(3).expand(4), RuntimeError, "expand", "size mismatch")
        ],
    ),
    OpSpec(
        "squeeze",
        lambda x, *d: x.squeeze(*d),
        lambda x, *d: (np.squeeze(x, d[0]) if x.shape[d[0]] == 1 else x) if d else np.squeeze(x),
        ALL + COMPLEX,
        _view_samples(((1, 3, 1),), ((1, 3, 1), 0), ((1, 3, 1), 1), ((),)),
        errors=dim_error(lambda x, d: x.squeeze(d), "squeeze"),
    ),
    OpSpec(
        "unsqueeze",
        lambda x, d: x.unsqueeze(d),
        lambda x, d: np.expand_dims(x, d),
        ALL + COMPLEX,
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
        ALL + COMPLEX,
        _view_samples(((2, 3, 4),), ((2, 3, 4), 1, 2), ((),)),
        errors=dim_error(lambda x, d: x.flatten(d), "flatten"),
    ),
    OpSpec(
        "narrow",
        lambda x, d, s, n: x.narrow(d, s, n),
        lambda x, d, s, n: np.take(x, range(s, s + n), axis=d),
        ALL + COMPLEX,
        _view_samples(((4, 5), 1, 1, 3), ((4, 5), 0, -2, 2), ((4,), 0, 0, 0)),
        errors=lambda: [
            ErrorSample(lambda: ember.ones(4).narrow(0, 2, 5), RuntimeError, "narrow", "too long")
        ],
    ),
    OpSpec(
        "select",
        lambda x, d, i: x.select(d, i),
        lambda x, d, i: np.take(x, i, axis=d),
        ALL + COMPLEX,
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
        ALL + COMPLEX,
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
        ALL + COMPLEX,
        _view_samples(((3, 4),), ((5,),), ((),)),
    ),
    OpSpec("clone", lambda x: x.clone(), lambda x: x.copy(), ALL + COMPLEX, unary_samples()),
    OpSpec("detach", lambda x: x.detach(), lambda x: x, ALL + COMPLEX, unary_samples(), grad=False),
    OpSpec(
        "to",
        _to_op,
        lambda x, name: x.astype(
            {"float64": np.float64, "int64": np.int64, "bool": np.bool_}[name]
        ),
        ALL + COMPLEX,
        lambda d, r: [
            Sample((make_array((3, 4), d, r), n), desc=n, grad=n == "float64")
            for n in ("float64", "int64", "bool")
        ],
    ),
    OpSpec(
        "sum_to_size",
        lambda x, s: x.sum_to_size(*s),
        lambda x, s: _np_sum_to_size(x, s),
        ALL + COMPLEX,
        _view_samples(((2, 3, 4), (3, 1)), ((3, 4), (3, 4)), ((3, 4), ())),
    ),
    OpSpec(
        "as_strided",
        lambda x, size, stride, off: x.as_strided(size, stride, off),
        lambda x, size, stride, off: np.lib.stride_tricks.as_strided(
            x.reshape(-1)[off:], size, [st * x.itemsize for st in stride]
        ).copy(),
        ALL + COMPLEX,
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
        ALL + COMPLEX,
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
        ALL + COMPLEX,
        lambda d, r: [
            Sample((make_array((3, 2), d, r), (3, 5), 1, 1, 5, 2), desc="(3,5) dim 1 1:5:2"),
            Sample((make_array((0, 4), d, r), (2, 4), 0, 2, 2, 1), desc="empty slice"),
        ],
        gradgrad=True,
    ),
]


def records():
    return RECORDS
