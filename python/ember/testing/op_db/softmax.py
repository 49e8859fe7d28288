"""Op-table records of softmax and log_softmax."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    FLOATING,
    ErrorSample,
    OpSpec,
    Sample,
    dim_error,
    make_array,
)


def np_softmax(a, dim, log=False):
    if a.ndim == 0:
        return np.zeros_like(a) if log else np.ones_like(a)
    m = np.max(a, axis=dim, keepdims=True) if a.size else 0
    e = np.exp(a - m)
    s = np.sum(e, axis=dim, keepdims=True)
    return (a - m - np.log(s)) if log else e / s


def _softmax_samples(dtype, rng):
    cases = [
        ((5,), 0),
        ((3, 4), 1),
        ((3, 4), 0),
        ((2, 3, 4), -1),
        ((2, 3, 4), 1),
        ((), 0),
        ((0, 3), 1),
        ((4, 1000), 1),
    ]
    out = [Sample((make_array(s, dtype, rng),), {"dim": d}, desc=f"{s} dim {d}") for s, d in cases]
    if dtype in FLOATING:
        big = np.array([[1000.0, 999.0, -np.inf], [-np.inf, 0.0, 1.0]])
        out.append(Sample((big,), {"dim": 1}, desc="large and -inf", grad=False))
    return out


RECORDS = [
    OpSpec(
        "softmax",
        lambda x, **kw: ember.softmax(x, **kw),
        np_softmax,
        FLOATING,
        _softmax_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.softmax(ember.ones(3, dtype=ember.int64), 0),
                TypeError,
                "softmax",
                "int",
            ),
            ErrorSample(lambda: ember.softmax(ember.ones(3), 1), IndexError, "softmax", "dim 1"),
        ],
    ),
    OpSpec(
        "log_softmax",
        lambda x, **kw: ember.log_softmax(x, **kw),
        lambda a, dim: np_softmax(a, dim, log=True),
        FLOATING,
        _softmax_samples,
        gradgrad=True,
        errors=dim_error(lambda x, d: x.log_softmax(d), "log_softmax"),
    ),
]


def records():
    return RECORDS
