"""Op-table records of the neural-network ops: the losses (cross_entropy, nll, mse, ...).

Class indices are Fixed int64 arrays (they keep their dtype and take no gradient). Weights
(`weight`, `pos_weight`) go in kwargs as NumPy arrays: PyTorch refuses weights that require grad,
and the gradient tests mark every floating tensor argument as requiring grad, so the op makes
them tensors of the input's dtype itself. Their values are multiples of 0.25, exact in every
floating dtype, so the float64 reference sees what the op saw."""

from __future__ import annotations

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db.spec import (
    FLOATING,
    Fixed,
    OpSpec,
    Sample,
    error,
    index_tensor,
    make_array,
)

REDUCTIONS = ("none", "mean", "sum")

# ---- references ----------------------------------------------------------------------------------


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.sum(loss)
    return np.mean(loss) if loss.size else np.float64(np.nan)


def _lines(x):
    """Logits with the class dim last, as [lines, C] ((C) is one line)."""
    if x.ndim == 1:
        return x[None, :]
    return np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])


def _log_softmax(z):
    m = np.max(z, axis=1, keepdims=True) if z.size else 0
    return z - m - np.log(np.sum(np.exp(z - m), axis=1, keepdims=True))


def np_nll(logp, t, weight=None, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    """nll_loss of log-probabilities [lines, C] (with cross_entropy's smoothing term)."""
    c = logp.shape[1]
    tt = np.asarray(t).reshape(-1)
    w = np.ones(c) if weight is None else np.asarray(weight, dtype=np.float64)
    valid = tt != ignore_index
    ts = np.where(valid, tt, 0)
    wt = np.where(valid, w[ts], 0.0)
    picked = logp[np.arange(len(ts)), ts] if c else np.zeros(len(ts))
    loss = np.where(valid, -wt * picked, 0.0)
    if label_smoothing > 0:
        smooth = np.where(valid, -(logp * w).sum(axis=1), 0.0)
        loss = (1 - label_smoothing) * loss + label_smoothing / c * smooth
    if reduction == "none":
        return loss.reshape(np.shape(t))
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


def np_cross_entropy(x, t, weight=None, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    if np.shape(x) == np.shape(t):  # class probabilities
        cdim = 0 if x.ndim == 1 else 1
        c = x.shape[cdim]
        logp = np.moveaxis(
            _log_softmax(_lines(x)).reshape(np.moveaxis(x, cdim, -1).shape), -1, cdim
        )
        y = t * (1 - label_smoothing) + label_smoothing / c
        shape = [1] * x.ndim
        shape[cdim] = c
        w = np.ones(shape) if weight is None else np.asarray(weight).reshape(shape)
        per = -(logp * y * w).sum(axis=cdim)
        if reduction == "none":
            return per
        return per.sum() if reduction == "sum" else per.sum() / (x.size / c)
    logp = _log_softmax(_lines(x))
    out = np_nll(logp, t, weight, reduction, ignore_index, label_smoothing)
    return out.reshape(()) if reduction == "none" and x.ndim == 1 else out


def np_nll_loss(x, t, weight=None, reduction="mean", ignore_index=-100):
    out = np_nll(_lines(x), t, weight, reduction, ignore_index)
    return out.reshape(()) if reduction == "none" and x.ndim == 1 else out


def np_bce(x, t, weight=None, reduction="mean"):
    with np.errstate(divide="ignore"):
        loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log(1 - x), -100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def np_bce_logits(x, t, weight=None, reduction="mean", pos_weight=None):
    sp = np.logaddexp(0, -x)  # -log(sigmoid(x))
    lw = 1 if pos_weight is None else 1 + (pos_weight - 1) * t
    loss = (1 - t) * x + lw * sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def np_kl_div(x, t, reduction="mean", log_target=False):
    if log_target:
        loss = np.exp(t) * (t - x)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.where(t == 0, 0.0, t * np.log(t)) - t * x
    if reduction == "batchmean":
        s = loss.sum()
        return s / x.shape[0] if x.ndim else s
    return _reduce(loss, reduction)


def np_mse(x, t, reduction="mean", weight=None):
    loss = (x - t) ** 2
    if weight is not None:
        loss = loss * weight
        if reduction == "mean":
            return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def np_l1(x, t, reduction="mean", weight=None):
    loss = np.abs(x - t)
    if weight is not None:
        loss = loss * weight
        if reduction == "mean":
            return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def np_smooth_l1(x, t, reduction="mean", beta=1.0):
    d = np.abs(x - t)
    loss = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, reduction)


def np_huber(x, t, reduction="mean", delta=1.0, weight=None):
    d = np.abs(x - t)
    loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def np_poisson_nll(x, t, log_input=True, full=False, eps=1e-8, reduction="mean"):
    loss = np.exp(x) - t * x if log_input else x - t * np.log(x + eps)
    if full:
        ts = np.where(t > 1, t, 2.0)
        loss = loss + np.where(t > 1, ts * np.log(ts) - ts + 0.5 * np.log(2 * np.pi * ts), 0.0)
    return _reduce(loss, reduction)


def np_gaussian_nll(x, t, var, full=False, eps=1e-6, reduction="mean"):
    v = np.asarray(var)
    if v.shape != x.shape and v.shape == x.shape[:-1]:
        v = v[..., None]
    v = np.maximum(v, eps)
    loss = 0.5 * (np.log(v) + (x - t) ** 2 / v)
    if full:
        loss = loss + 0.5 * np.log(2 * np.pi)
    return _reduce(loss, reduction)


def np_soft_margin(x, t, reduction="mean"):
    return _reduce(np.logaddexp(0, -t * x), reduction)


def np_multi_margin(x, t, p=1, margin=1.0, weight=None, reduction="mean"):
    x2 = np.atleast_2d(x).reshape(-1, x.shape[-1] if x.ndim else 1)
    tt = np.asarray(t).reshape(-1)
    c = x2.shape[1]
    z = np.maximum(margin - x2[np.arange(len(tt)), tt][:, None] + x2, 0) ** p
    if weight is not None:
        z = z * np.asarray(weight)[tt][:, None]
    z[np.arange(len(tt)), tt] = 0
    per = z.sum(axis=1) / c
    if reduction == "none":
        return per if x.ndim == 2 else per.reshape(np.shape(t))
    return _reduce(per, reduction)


def np_cosine_embedding(a, b, t, margin=0.0, reduction="mean"):
    eps = 1e-12
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + eps) * ((b * b).sum(-1) + eps))
    loss = np.where(t == 1, 1 - cos, 0.0) + np.where(t == -1, np.maximum(cos - margin, 0), 0.0)
    return _reduce(loss, reduction)


def np_margin_ranking(a, b, t, margin=0.0, reduction="mean"):
    return _reduce(np.maximum(-t * (a - b) + margin, 0), reduction)


def np_hinge_embedding(x, t, margin=1.0, reduction="mean"):
    loss = np.where(t != 1, np.maximum(margin - x, 0), 0.0) + np.where(t != -1, x, 0.0)
    return _reduce(loss, reduction)


def np_triplet(a, p_, n, margin=1.0, p=2, eps=1e-6, swap=False, reduction="mean"):
    def dist(u, v):
        d = u - v + eps
        return np.abs(d) if d.ndim == 0 else np.linalg.norm(d, ord=p, axis=-1)

    dn = dist(a, n)
    if swap:
        dn = np.minimum(dn, dist(p_, n))
    return _reduce(np.maximum(margin + dist(a, p_) - dn, 0), reduction)


# ---- samples -------------------------------------------------------------------------------------


def _classes(rng, shape, c, ignore=None):
    t = rng.integers(0, c, size=shape)
    if ignore is not None and t.size:
        t.reshape(-1)[::3] = ignore
    return Fixed(np.asarray(t, dtype=np.int64), ember.int64)


def _weights(rng, n):
    return rng.integers(1, 9, size=n) * 0.25  # exact in every floating dtype


def _tensors(x, kw, *names):
    """The kwargs with the named NumPy arrays made tensors of x's dtype."""
    kw = dict(kw)
    for n in names:
        if isinstance(kw.get(n), np.ndarray):
            kw[n] = ember.from_numpy(np.ascontiguousarray(kw[n])).to(x.dtype)
    return kw


def _ce_samples(dtype, rng):
    a = lambda s: make_array(s, dtype, rng)  # noqa: E731
    w5 = _weights(rng, 5)
    out = [
        Sample((a((4, 5)), _classes(rng, (4,), 5)), {}, "(4, 5) mean"),
        Sample(
            (a((4, 5)), _classes(rng, (4,), 5, -100)),
            {"weight": w5, "reduction": "none"},
            "weight, ignore, none",
        ),
        Sample(
            (a((4, 5)), _classes(rng, (4,), 5, 2)),
            {"weight": w5, "ignore_index": 2, "label_smoothing": 0.2},
            "weight, ignore_index=2, smoothing, mean",
        ),
        Sample(
            (a((2, 3, 2, 2)), _classes(rng, (2, 2, 2), 3)),
            {"reduction": "sum", "label_smoothing": 0.1},
            "spatial sum",
        ),
        Sample((a((5,)), _classes(rng, (), 5)), {"reduction": "none"}, "one sample (C)"),
        Sample(
            (a((3, 4)), np.abs(a((3, 4)))),
            {"label_smoothing": 0.3, "weight": _weights(rng, 4)},
            "probabilities",
        ),
        Sample(
            (a((2, 3, 2)), np.abs(a((2, 3, 2)))), {"reduction": "none"}, "probabilities spatial"
        ),
        Sample((a((0, 5)), _classes(rng, (0,), 5)), {}, "empty batch (NaN mean)", grad=False),
        Sample(
            (a((4, 5)), Fixed(np.full(4, -100, np.int64), ember.int64)),
            {},
            "all ignored (NaN)",
            grad=False,
        ),
        Sample(
            (a((3, 40)), _classes(rng, (3,), 40)),
            {"label_smoothing": 0.1},
            "C = 40 (vector loops)",
            grad=False,
        ),
    ]
    return out


def _nll_samples(dtype, rng):
    a = lambda s: make_array(s, dtype, rng)  # noqa: E731
    return [
        Sample((a((4, 5)), _classes(rng, (4,), 5)), {}, "(4, 5) mean"),
        Sample(
            (a((4, 5)), _classes(rng, (4,), 5, -100)),
            {"weight": _weights(rng, 5), "reduction": "none"},
            "weight, ignore, none",
        ),
        Sample(
            (a((4, 5)), _classes(rng, (4,), 5, 1)),
            {"weight": _weights(rng, 5), "ignore_index": 1},
            "weighted mean",
        ),
        Sample((a((2, 3, 2, 2)), _classes(rng, (2, 2, 2), 3)), {"reduction": "sum"}, "spatial sum"),
        Sample((a((5,)), _classes(rng, (), 5)), {"reduction": "none"}, "one sample (C)"),
        Sample((a((0, 5)), _classes(rng, (0,), 5)), {}, "empty batch (NaN mean)", grad=False),
    ]


def _pair_samples(low=-3.0, high=3.0, t_low=None, t_high=None, kwargs_list=({},)):
    """(input, target) of the same shapes, a broadcast pair, 0-d and zero-size, each reduction."""

    def make(dtype, rng):
        tl = low if t_low is None else t_low
        th = high if t_high is None else t_high
        x = lambda s: make_array(s, dtype, rng, low, high)  # noqa: E731
        t = lambda s: make_array(s, dtype, rng, tl, th)  # noqa: E731
        out = []
        for kw in kwargs_list:
            for red in REDUCTIONS:
                out.append(Sample((x((3, 4)), t((3, 4))), dict(kw, reduction=red), f"{kw} {red}"))
        out += [
            Sample((x((2, 3)), t((3,))), dict(kwargs_list[0]), "broadcast target"),
            Sample((x(()), t(())), dict(kwargs_list[0], reduction="none"), "0-d"),
            Sample((x((0, 3)), t((0, 3))), dict(kwargs_list[0]), "empty (NaN mean)", grad=False),
        ]
        return out

    return make


def _same_shape_samples(low, high, t_low, t_high, kwargs_list, weight=None):
    """(input, target) of one shape (binary_cross_entropy refuses broadcasting)."""

    def make(dtype, rng):
        x = lambda s: make_array(s, dtype, rng, low, high)  # noqa: E731
        t = lambda s: make_array(s, dtype, rng, t_low, t_high)  # noqa: E731
        out = []
        for kw in kwargs_list:
            for red in REDUCTIONS:
                out.append(Sample((x((3, 4)), t((3, 4))), dict(kw, reduction=red), f"{kw} {red}"))
        if weight:
            out.append(Sample((x((3, 4)), t((3, 4))), {weight: _weights(rng, 4)}, f"{weight} (4)"))
        out += [
            Sample((x(()), t(())), {"reduction": "none"}, "0-d"),
            Sample((x((0, 3)), t((0, 3))), {}, "empty (NaN mean)", grad=False),
        ]
        return out

    return make


def _x(*shape):
    return ember.randn(*shape)


# ---- records -------------------------------------------------------------------------------------


def _ce_op(x, t, **kw):
    return F.cross_entropy(x, t, **_tensors(x, kw, "weight"))


def _nll_op(x, t, **kw):
    return F.nll_loss(x, t, **_tensors(x, kw, "weight"))


def _ce_errors():
    return [
        error(
            lambda: F.cross_entropy(_x(3, 5), index_tensor(0, 5, 1)),
            IndexError,
            "Target 5 is out of bounds",
        ),
        error(
            lambda: F.cross_entropy(_x(3, 5), index_tensor(0, -1, 1)),
            IndexError,
            "Target -1 is out of bounds",
        ),
        error(
            lambda: F.cross_entropy(_x(3, 5), index_tensor(0, 1)),
            ValueError,
            "batch_size (3) to match target batch_size (2)",
        ),
        error(
            lambda: F.cross_entropy(_x(3, 5), index_tensor(0, 1, 2).int()),
            RuntimeError,
            "int64 or uint8",
        ),
        error(
            lambda: F.cross_entropy(_x(3, 5), index_tensor(0, 1, 2), label_smoothing=1.5),
            RuntimeError,
            "label_smoothing",
        ),
        error(
            lambda: F.cross_entropy(_x(3, 5), index_tensor(0, 1, 2), weight=ember.ones(4)),
            RuntimeError,
            "one entry per class (5)",
        ),
        error(
            lambda: F.cross_entropy(_x(3, 5), index_tensor(0, 1, 2), reduction="avg"),
            ValueError,
            "avg is not a valid value for reduction",
        ),
        error(
            lambda: F.cross_entropy(
                _x(3, 5), index_tensor(0, 1, 2), weight=ember.ones(5, requires_grad=True)
            ),
            RuntimeError,
            "not differentiable with respect to weight",
        ),
        error(
            lambda: F.cross_entropy(_x(3, 5), ember.rand(3, 5), ignore_index=1),
            RuntimeError,
            "ignore_index is not supported",
        ),
        error(
            lambda: F.cross_entropy(_x(2, 3, 4), ember.zeros(2, 5, dtype=ember.int64)),
            RuntimeError,
            "expected a target of shape [2, 4]",
        ),
        error(
            lambda: F.cross_entropy(ember.tensor(1.0), ember.tensor(0)),
            ValueError,
            "1 or more dims",
        ),
        error(lambda: F.cross_entropy(_x(5), index_tensor(1, 2)), ValueError, "must have size 1"),
        error(
            lambda: F.cross_entropy(_x(3, 5).int(), index_tensor(0, 1, 2)),
            TypeError,
            "floating-point input",
        ),
    ]


def _nll_errors():
    return [
        error(
            lambda: F.nll_loss(_x(3, 5), index_tensor(0, 7, 1)),
            IndexError,
            "Target 7 is out of bounds",
        ),
        error(
            lambda: F.nll_loss(_x(3, 5), index_tensor(0, 1)),
            ValueError,
            "to match target batch_size",
        ),
        error(
            lambda: F.nll_loss(_x(3, 5), ember.zeros(3, 1, dtype=ember.int64)),
            RuntimeError,
            "expected a target of shape [3]",
        ),
        error(
            lambda: F.nll_loss(
                _x(3, 5), index_tensor(0, 1, 2), weight=ember.ones(5, dtype=ember.float64)
            ),
            RuntimeError,
            "expected weight of dtype float32",
        ),
    ]


def _bce_op(x, t, **kw):
    return F.binary_cross_entropy(x, t, **_tensors(x, kw, "weight"))


def _bcel_op(x, t, **kw):
    return F.binary_cross_entropy_with_logits(x, t, **_tensors(x, kw, "weight", "pos_weight"))


def _bce_errors():
    p = ember.rand(3, 4)
    return [
        error(lambda: F.binary_cross_entropy(p, p[0]), ValueError, "different to the input size"),
        error(
            lambda: F.binary_cross_entropy(p * 3, p),
            RuntimeError,
            "input should be between 0 and 1",
        ),
        error(
            lambda: F.binary_cross_entropy(p, p * 3),
            RuntimeError,
            "target should be between 0 and 1",
        ),
        error(
            lambda: F.binary_cross_entropy(p, p, weight=ember.ones(5)),
            RuntimeError,
            "does not broadcast",
        ),
        error(
            lambda: F.binary_cross_entropy(p, p.double()),
            RuntimeError,
            "expected a target of dtype float32",
        ),
    ]


def _bcel_errors():
    p = ember.rand(3, 4)
    return [
        error(
            lambda: F.binary_cross_entropy_with_logits(p, p[0]),
            ValueError,
            "must be the same as input size",
        ),
        error(
            lambda: F.binary_cross_entropy_with_logits(p, p, pos_weight=ember.ones(5)),
            RuntimeError,
            "does not broadcast",
        ),
        error(
            lambda: F.binary_cross_entropy_with_logits(
                p, p, weight=ember.ones(4, requires_grad=True)
            ),
            RuntimeError,
            "not differentiable",
        ),
    ]


def _kl_samples(dtype, rng):
    a = lambda s, lo=-3.0, hi=3.0: make_array(s, dtype, rng, lo, hi)  # noqa: E731
    out = [
        Sample((a((3, 4)), a((3, 4), 0.1, 1.0)), {"reduction": r}, r)
        for r in REDUCTIONS + ("batchmean",)
    ]
    out += [
        Sample(
            (a((3, 4)), a((3, 4), -2.0, 0.5)),
            {"log_target": True, "reduction": "sum"},
            "log_target",
        ),
        Sample((a((4,)), a((4,), 0.1, 1.0)), {"reduction": "batchmean"}, "1-d batchmean"),
        Sample((a(()), a((), 0.1, 1.0)), {"reduction": "batchmean"}, "0-d batchmean (the sum)"),
        Sample((a((3,)), np.array([0.0, 0.5, 1.0])), {"reduction": "none"}, "target 0", grad=False),
    ]
    return out


def _mm_op(x, t, **kw):
    return F.multi_margin_loss(x, t, **_tensors(x, kw, "weight"))


def _mm_samples(dtype, rng):
    a = lambda s: make_array(s, dtype, rng)  # noqa: E731
    out = [Sample((a((3, 4)), _classes(rng, (3,), 4)), {"reduction": r}, r) for r in REDUCTIONS]
    out += [
        Sample(
            (a((3, 4)), _classes(rng, (3,), 4)),
            {"p": 2, "margin": 0.5, "weight": _weights(rng, 4)},
            "p=2, weight",
        ),
        Sample((a((4,)), _classes(rng, (), 4)), {"reduction": "none"}, "one sample (C)"),
        Sample((a((4,)), _classes(rng, (1,), 4)), {"reduction": "none"}, "(C) with target (1)"),
    ]
    return out


def _mm_errors():
    return [
        error(
            lambda: F.multi_margin_loss(_x(3, 4), index_tensor(0, 4, 1)),
            RuntimeError,
            "target out of range",
        ),
        error(
            lambda: F.multi_margin_loss(_x(3, 4), index_tensor(0, 1)),
            RuntimeError,
            "one class per sample",
        ),
        error(
            lambda: F.multi_margin_loss(_x(3, 4), index_tensor(0, 1, 2), p=3),
            ValueError,
            "only p == 1 and p == 2",
        ),
        error(
            lambda: F.multi_margin_loss(_x(3, 4), index_tensor(0, 1, 2), weight=ember.ones(3)),
            RuntimeError,
            "inconsistent weight size",
        ),
        error(
            lambda: F.multi_margin_loss(_x(2, 3, 4), index_tensor(0, 1)),
            RuntimeError,
            "non-empty vector or matrix",
        ),
    ]


def _mse_op(x, t, **kw):
    return F.mse_loss(x, t, **_tensors(x, kw, "weight"))


def _l1_op(x, t, **kw):
    return F.l1_loss(x, t, **_tensors(x, kw, "weight"))


def _huber_op(x, t, **kw):
    return F.huber_loss(x, t, **_tensors(x, kw, "weight"))


def _quiet(fn):
    """The op with PyTorch's size-mismatch warning silenced (the broadcast samples trigger it)."""

    def op(*args, **kw):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return fn(*args, **kw)

    return op


def _weighted_samples(dtype, rng):
    a = lambda s: make_array(s, dtype, rng)  # noqa: E731
    return [
        Sample(
            (a((3, 4)), a((3, 4))), {"weight": _weights(rng, (3, 4)), "reduction": r}, f"weight {r}"
        )
        for r in REDUCTIONS
    ]


def _concat(*makers):
    return lambda dtype, rng: [s for m in makers for s in m(dtype, rng)]


def _gauss_samples(dtype, rng):
    a = lambda s, lo=-3.0, hi=3.0: make_array(s, dtype, rng, lo, hi)  # noqa: E731
    return [
        Sample(
            (a((3, 4)), a((3, 4)), a((3, 4), 0.5, 2.0)), {"reduction": r}, f"heteroscedastic {r}"
        )
        for r in REDUCTIONS
    ] + [
        Sample(
            (a((3, 4)), a((3, 4)), a((3,), 0.5, 2.0)), {"full": True}, "var one dim short, full"
        ),
        Sample((a((3, 4)), a((3, 4)), a((3, 1), 0.5, 2.0)), {"reduction": "none"}, "var (3, 1)"),
        Sample(
            (a((3, 4)), a((3, 4)), np.array([1e-9, 0.5, 2.0])),
            {"eps": 1e-3, "reduction": "none"},
            "var below eps",
            grad=False,
        ),
    ]


def _gauss_errors():
    x = _x(3, 4)
    return [
        error(lambda: F.gaussian_nll_loss(x, x, -ember.ones(3, 4)), ValueError, "var has negative"),
        error(
            lambda: F.gaussian_nll_loss(x, x, ember.ones(4)), ValueError, "var is of incorrect size"
        ),
        error(lambda: F.gaussian_nll_loss(x, x, -1.0), ValueError, "var has negative"),
        error(
            lambda: F.gaussian_nll_loss(x, x, ember.ones(3, 4), reduction="x"),
            ValueError,
            "not a valid value",
        ),
    ]


def _sign_target(rng, shape, zeros=False):
    """+-1 (and 0) labels as Fixed int64: the losses read them through comparisons only."""
    vals = [-1, 1, 0] if zeros else [-1, 1]
    return Fixed(np.asarray(rng.choice(vals, size=shape), dtype=np.int64), ember.int64)


def _signs(rng, shape):
    """+-1 as a plain array: margin_ranking_loss multiplies by the target, which has a gradient."""
    return rng.choice([-1.0, 1.0], size=shape)


def _ranking_samples(kind):
    def make(dtype, rng):
        a = lambda s: make_array(s, dtype, rng)  # noqa: E731
        if kind == "cosine":
            return [
                Sample(
                    (a((3, 4)), a((3, 4)), _sign_target(rng, (3,), True)),
                    {"margin": 0.2, "reduction": r},
                    r,
                )
                for r in REDUCTIONS
            ] + [
                Sample(
                    (a((4,)), a((4,)), Fixed(np.array(-1), ember.int64)),
                    {"reduction": "none", "margin": -0.9},
                    "1-d inputs, 0-d target",
                ),
            ]
        if kind == "ranking":
            return [
                Sample(
                    (a((3, 4)), a((3, 4)), _signs(rng, (3, 4))), {"margin": 0.5, "reduction": r}, r
                )
                for r in REDUCTIONS
            ] + [
                Sample(
                    (a((2, 3)), a((1, 3)), _signs(rng, (2, 3))), {"reduction": "none"}, "broadcast"
                ),
                Sample((a(()), a(()), np.array(1.0)), {"margin": 1.0}, "0-d"),
            ]
        # hinge
        return [
            Sample((a((3, 4)), _sign_target(rng, (3, 4), True)), {"margin": 0.5, "reduction": r}, r)
            for r in REDUCTIONS
        ] + [
            Sample((a((2, 3)), _sign_target(rng, (3,))), {"reduction": "none"}, "broadcast target"),
        ]

    return make


def _triplet_samples(dtype, rng):
    a = lambda s: make_array(s, dtype, rng)  # noqa: E731
    return [
        Sample((a((3, 4)), a((3, 4)), a((3, 4))), {"margin": 2.0, "reduction": r}, r)
        for r in REDUCTIONS
    ] + [
        Sample(
            (a((3, 4)), a((3, 4)), a((3, 4))), {"margin": 2.0, "p": 1, "swap": True}, "p=1, swap"
        ),
        Sample(
            (a((2, 2, 3)), a((2, 2, 3)), a((1, 2, 3))),
            {"margin": 1.5, "p": 3, "reduction": "none"},
            "3-d, p=3, broadcast",
        ),
        Sample((a((4,)), a((4,)), a((4,))), {"margin": 3.0}, "1-d"),
    ]


def _regression_errors(fn, name):
    x = _x(3, 4)
    return lambda: [
        error(
            lambda: fn(x, x, reduction="avg"), ValueError, "avg is not a valid value for reduction"
        ),
        error(lambda: fn(x.long(), x.long()), TypeError, "floating-point input"),
        error(lambda: _quiet(fn)(x, _x(2, 4)), RuntimeError, "cannot be broadcast"),
    ]


def _spec(name, op, ref, samples, errors=None, gradgrad=True, dtypes=FLOATING):
    return OpSpec(
        name, op, ref, dtypes, samples, grad=True, gradgrad=gradgrad, errors=errors or (lambda: [])
    )


def records():
    return [
        _spec("nn.functional.cross_entropy", _ce_op, np_cross_entropy, _ce_samples, _ce_errors),
        _spec("nn.functional.nll_loss", _nll_op, np_nll_loss, _nll_samples, _nll_errors),
        _spec(
            "nn.functional.binary_cross_entropy",
            _bce_op,
            np_bce,
            _same_shape_samples(0.05, 0.95, 0.0, 1.0, ({},), weight="weight"),
            _bce_errors,
        ),
        _spec(
            "nn.functional.binary_cross_entropy_with_logits",
            _bcel_op,
            np_bce_logits,
            _concat(
                _same_shape_samples(-3.0, 3.0, 0.0, 1.0, ({},), weight="weight"),
                lambda dtype, rng: [
                    Sample(
                        (make_array((3, 4), dtype, rng), make_array((3, 4), dtype, rng, 0.0, 1.0)),
                        {"pos_weight": _weights(rng, 4), "weight": _weights(rng, (3, 1))},
                        "pos_weight and weight",
                    )
                ],
            ),
            _bcel_errors,
        ),
        _spec(
            "nn.functional.kl_div",
            _quiet(F.kl_div),
            np_kl_div,
            _kl_samples,
            lambda: [
                error(
                    lambda: F.kl_div(_x(3), _x(3), reduction="avg"), ValueError, "not a valid value"
                )
            ],
        ),
        _spec("nn.functional.multi_margin_loss", _mm_op, np_multi_margin, _mm_samples, _mm_errors),
        _spec(
            "nn.functional.soft_margin_loss",
            F.soft_margin_loss,
            np_soft_margin,
            _pair_samples(),
            _regression_errors(F.soft_margin_loss, "soft_margin_loss"),
        ),
        _spec(
            "nn.functional.mse_loss",
            _quiet(_mse_op),
            np_mse,
            _concat(_pair_samples(), _weighted_samples),
            _regression_errors(F.mse_loss, "mse_loss"),
        ),
        _spec(
            "nn.functional.l1_loss",
            _quiet(_l1_op),
            np_l1,
            _concat(_pair_samples(), _weighted_samples),
            _regression_errors(F.l1_loss, "l1_loss"),
        ),
        _spec(
            "nn.functional.smooth_l1_loss",
            _quiet(F.smooth_l1_loss),
            np_smooth_l1,
            _pair_samples(kwargs_list=({"beta": 1.5}, {"beta": 0.0})),
            lambda: (
                _regression_errors(F.smooth_l1_loss, "smooth_l1_loss")()
                + [
                    error(
                        lambda: F.smooth_l1_loss(_x(2), _x(2), beta=-1.0),
                        RuntimeError,
                        "negative values for beta",
                    )
                ]
            ),
        ),
        _spec(
            "nn.functional.huber_loss",
            _quiet(_huber_op),
            np_huber,
            _concat(_pair_samples(kwargs_list=({"delta": 0.7},)), _weighted_samples),
            lambda: [
                error(
                    lambda: F.huber_loss(_x(2), _x(2), delta=0.0),
                    RuntimeError,
                    "non-positive values for delta",
                ),
                error(
                    lambda: F.huber_loss(_x(2), _x(2), weight=ember.ones(3)),
                    ValueError,
                    "weights and input must have the same size",
                ),
            ],
        ),
        _spec(
            "nn.functional.poisson_nll_loss",
            F.poisson_nll_loss,
            np_poisson_nll,
            _concat(
                _pair_samples(low=-1.0, high=1.0, t_low=0.0, t_high=3.0),
                lambda dtype, rng: [
                    Sample(
                        (
                            make_array((3, 4), dtype, rng, 0.5, 3.0),
                            make_array((3, 4), dtype, rng, 0.0, 4.0),
                        ),
                        {"log_input": False, "full": True, "reduction": r},
                        f"rates, full, {r}",
                    )
                    for r in ("none", "sum")
                ],
            ),
            lambda: [
                error(
                    lambda: F.poisson_nll_loss(_x(2), _x(2), reduction="x"),
                    ValueError,
                    "not a valid value",
                )
            ],
        ),
        _spec(
            "nn.functional.gaussian_nll_loss",
            F.gaussian_nll_loss,
            np_gaussian_nll,
            _gauss_samples,
            _gauss_errors,
        ),
        _spec(
            "nn.functional.cosine_embedding_loss",
            F.cosine_embedding_loss,
            np_cosine_embedding,
            _ranking_samples("cosine"),
            lambda: [
                error(
                    lambda: F.cosine_embedding_loss(_x(4), _x(4), index_tensor(1)),
                    RuntimeError,
                    "a 1-d target expects 2-d inputs",
                ),
                error(
                    lambda: F.cosine_embedding_loss(_x(2, 4), _x(2, 4), ember.tensor(1)),
                    RuntimeError,
                    "a 0-d target expects 1-d inputs",
                ),
                error(
                    lambda: F.cosine_embedding_loss(_x(2, 4), _x(2, 4), ember.ones(2, 1)),
                    RuntimeError,
                    "multi-target",
                ),
            ],
        ),
        _spec(
            "nn.functional.margin_ranking_loss",
            F.margin_ranking_loss,
            np_margin_ranking,
            _ranking_samples("ranking"),
            lambda: [
                error(
                    lambda: F.margin_ranking_loss(_x(3, 4), _x(4), _x(4)),
                    RuntimeError,
                    "same number of dims",
                )
            ],
        ),
        _spec(
            "nn.functional.hinge_embedding_loss",
            F.hinge_embedding_loss,
            np_hinge_embedding,
            _ranking_samples("hinge"),
        ),
        _spec(
            "nn.functional.triplet_margin_loss",
            F.triplet_margin_loss,
            np_triplet,
            _triplet_samples,
            lambda: [
                error(
                    lambda: F.triplet_margin_loss(_x(2, 3), _x(2, 3), _x(3)),
                    RuntimeError,
                    "same number of dimensions",
                ),
                error(
                    lambda: F.triplet_margin_loss(_x(2, 3), _x(2, 3), _x(2, 3), margin=0.0),
                    ValueError,
                    "margin must be greater than 0",
                ),
            ],
        ),
    ]
