"""Op-table records of the reductions beyond the foundation's sum, mean and max: min, amax /
amin, argmax / argmin, prod, nansum, count_nonzero, var / std (and with the mean), logsumexp,
norms, softmax. Imported at the end of op_db.py, whose helpers it uses."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing import op_db as base
from ember.testing.op_db import ALL, FLOATING, ErrorSample, OpSpec, Sample, make_array


def _axis(dim):
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def np_min(a, dim=None, keepdim=False):
    if dim is None:
        return np.min(a)
    values = np.min(a, axis=dim, keepdims=keepdim)
    indices = np.argmin(a, axis=dim)
    return values, (np.expand_dims(indices, dim) if keepdim else indices)


def np_amax(f):
    def ref(a, dim=(), keepdim=False):
        return f(a, axis=_axis(dim) if dim != () else None, keepdims=keepdim)

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


def np_var(a, dim=None, unbiased=None, keepdim=False, correction=None):
    c = correction if correction is not None else (0 if unbiased is False else 1)
    axis = _axis(dim)
    n = a.size if axis is None else np.prod([a.shape[d] for d in np.atleast_1d(axis)])
    m = np.mean(a, axis=axis, keepdims=True)
    return np.sum((a - m) ** 2, axis=axis, keepdims=keepdim) / max(0, n - c)


def np_std(*args, **kw):
    return np.sqrt(np_var(*args, **kw))


def np_var_mean(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return np_var(a, dim, unbiased, keepdim, correction), np.mean(
        a, axis=_axis(dim), keepdims=keepdim
    )


def np_std_mean(a, dim=None, unbiased=None, keepdim=False, correction=None):
    v, m = np_var_mean(a, dim, unbiased, keepdim, correction)
    return np.sqrt(v), m


def np_logsumexp(a, dim, keepdim=False):
    a = np.asarray(a, dtype=np.float64)
    m = np.max(a, axis=_axis(dim), keepdims=True) if a.size else 0.0
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(a - m), axis=_axis(dim), keepdims=True)) + m
    return out if keepdim else np.squeeze(out, axis=_axis(dim))


def np_vector_norm(a, ord=2, dim=None, keepdim=False):
    axis = _axis(dim) if dim not in (None, ()) else None
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


def np_softmax(a, dim, log=False):
    if a.ndim == 0:
        return np.zeros_like(a) if log else np.ones_like(a)
    m = np.max(a, axis=dim, keepdims=True) if a.size else 0
    e = np.exp(a - m)
    s = np.sum(e, axis=dim, keepdims=True)
    return (a - m - np.log(s)) if log else e / s


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
        for s in base._max_samples(dtype, rng)
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


def _nan_samples(dtype, rng):
    out = base._reduce_samples(dtype, rng)[:9]
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
    return out


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


def _float_only_error(fn, name):
    return lambda: [
        ErrorSample(lambda: fn(ember.ones(3, dtype=ember.int64)), TypeError, name, "integer input")
    ]


RECORDS = [
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
        errors=base.dim_error(lambda x, d: x.amin(d), "amin"),
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
        errors=base.dim_error(lambda x, d: x.argmin(d), "argmin"),
    ),
    OpSpec(
        "prod",
        lambda x, **kw: ember.prod(x, **kw),
        np_prod,
        ALL,
        _prod_samples,
        gradgrad=True,
        errors=base.dim_error(lambda x, d: x.prod(d), "prod"),
    ),
    OpSpec(
        "nansum",
        lambda x, **kw: ember.nansum(x, **kw),
        lambda a, dim=None, keepdim=False: base.sum_ref(
            np.where(np.isnan(a), 0, a) if a.dtype.kind == "f" else a, dim, keepdim
        ),
        ALL,
        _nan_samples,
        gradgrad=True,
    ),
    OpSpec(
        "count_nonzero",
        lambda x, **kw: ember.count_nonzero(x, **kw),
        lambda a, dim=None: np.count_nonzero(a, axis=_axis(dim)),
        ALL,
        lambda dt, rng: [
            Sample(s.args, {k: v for k, v in s.kwargs.items() if k != "keepdim"}, s.desc, False)
            for s in base._reduce_samples(dt, rng)
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
        errors=base.dim_error(lambda x, d: x.logsumexp(d), "logsumexp"),
    ),
    OpSpec(
        "linalg.vector_norm",
        lambda x, **kw: ember.linalg.vector_norm(x, **kw),
        np_vector_norm,
        FLOATING,
        _norm_samples,
        gradgrad=True,
        errors=_float_only_error(ember.linalg.vector_norm, "vector_norm"),
    ),
    OpSpec(
        "linalg.matrix_norm",
        lambda x, **kw: ember.linalg.matrix_norm(x, **kw),
        np_matrix_norm,
        FLOATING,
        _matrix_norm_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.linalg.matrix_norm(ember.ones(3, 3), "nuc"),
                NotImplementedError,
                "singular value",
                "nuc",
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
        FLOATING,
        lambda dt, rng: [
            Sample(
                s.args, {("p" if k == "ord" else k): v for k, v in s.kwargs.items()}, s.desc, s.grad
            )
            for s in _norm_samples(dt, rng)
        ],
        gradgrad=True,
    ),
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
        errors=base.dim_error(lambda x, d: x.log_softmax(d), "log_softmax"),
    ),
]


def records():
    return RECORDS
