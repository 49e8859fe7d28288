"""Op-table records of the neural-network ops: embedding and embedding_bag.

Indices and offsets are Fixed int64 (or int32) arrays: they keep their dtype and take no
gradient."""

from __future__ import annotations

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db.spec import (
    ALL,
    FLOATING,
    Fixed,
    OpSpec,
    Sample,
    error,
    index_tensor,
    make_array,
)

# ---- references ----------------------------------------------------------------------------------


def _renormed(w, idx, max_norm, norm_type):
    w = w.copy()
    for r in np.unique(idx):
        nrm = np.linalg.norm(w[r], ord=norm_type)
        if nrm > max_norm:
            w[r] = w[r] * (max_norm / (nrm + 1e-7))
    return w


def np_embedding(idx, w, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    if max_norm is not None:
        w = _renormed(w, idx, max_norm, norm_type)
    return w[idx]


def np_embedding_bag(
    idx,
    w,
    offsets=None,
    psw=None,
    mode="mean",
    padding_idx=None,
    include_last_offset=False,
    max_norm=None,
    scale_grad_by_freq=False,
):
    if max_norm is not None:
        w = _renormed(w, idx, max_norm, 2.0)
    flat = idx.reshape(-1)
    pw = None if psw is None else psw.reshape(-1)
    if idx.ndim == 2:
        starts = (
            list(range(0, flat.size + 1, idx.shape[1]))
            if idx.shape[1]
            else [0] * (idx.shape[0] + 1)
        )
    else:
        starts = list(offsets) if include_last_offset else list(offsets) + [flat.size]
    pad = padding_idx % w.shape[0] if padding_idx is not None else -1
    out = np.zeros((len(starts) - 1, w.shape[1]))
    for b in range(len(starts) - 1):
        ks = [k for k in range(starts[b], starts[b + 1]) if flat[k] != pad]
        if not ks:
            continue
        rows = w[flat[ks]] * (pw[ks][:, None] if pw is not None else 1)
        out[b] = rows.max(0) if mode == "max" else rows.sum(0) / (len(ks) if mode == "mean" else 1)
    return out


# ---- samples and errors --------------------------------------------------------------------------


def _emb_samples(dtype, rng):
    a = lambda s: make_array(s, dtype, rng)  # noqa: E731
    i = lambda *s, hi=6: Fixed(rng.integers(0, hi, size=s), ember.int64)  # noqa: E731
    out = [
        Sample((i(4), a((6, 3))), {}, "1-d indices"),
        # padding_idx and scale_grad_by_freq change the gradient on purpose: no gradcheck there
        # (tests/python/test_nn_loss.py checks those gradients by hand).
        Sample((i(2, 3), a((6, 3))), {"padding_idx": 1}, "2-d indices, padding_idx", grad=False),
        Sample(
            (Fixed(np.array([0, 2, 2, 5, 2]), ember.int64), a((6, 2))),
            {"padding_idx": -1, "scale_grad_by_freq": True},
            "repeats, freq scaling",
            grad=False,
        ),
        Sample((Fixed(np.array([0, 2, 2, 5, 2]), ember.int64), a((6, 2))), {}, "repeated indices"),
        Sample((Fixed(np.array(3), ember.int64), a((6, 3))), {}, "0-d index"),
        Sample((i(0), a((6, 3))), {}, "no indices"),
        Sample((Fixed(np.array([1, 1, 4]), ember.int32), a((6, 40))), {}, "int32 indices, 40 wide"),
    ]
    if dtype in FLOATING:  # renormalising needs floating weights; it writes the weight in place
        out.append(
            Sample(
                (Fixed(np.array([0, 2, 0]), ember.int64), a((4, 3))),
                {"max_norm": 1.0},
                "max_norm",
                grad=False,
            )
        )
        out.append(
            Sample(
                (Fixed(np.array([1, 3]), ember.int64), a((4, 3))),
                {"max_norm": 0.5, "norm_type": 1.0},
                "max_norm, p=1",
                grad=False,
            )
        )
    return out


def _emb_errors():
    w = ember.randn(3, 2)
    return [
        error(lambda: F.embedding(index_tensor(0, 3), w), IndexError, "index out of range in self"),
        error(
            lambda: F.embedding(index_tensor(0, -1), w), IndexError, "index out of range in self"
        ),
        error(lambda: F.embedding(ember.tensor([0.0, 1.0]), w), RuntimeError, "int64 or int32"),
        error(
            lambda: F.embedding(index_tensor(0, 1), ember.randn(3)),
            RuntimeError,
            "'weight' must be 2-D",
        ),
        error(
            lambda: F.embedding(index_tensor(0, 1), w, padding_idx=3),
            AssertionError,
            "Padding_idx must be within",
        ),
        error(
            lambda: F.embedding(index_tensor(0, 1), w, sparse=True), NotImplementedError, "sparse"
        ),
    ]


def _bag_op(idx, w, offsets=None, psw=None, **kw):
    return F.embedding_bag(idx, w, offsets, per_sample_weights=psw, **kw)


def _bag_ref(idx, w, offsets=None, psw=None, **kw):
    return np_embedding_bag(idx, w, offsets, psw, **kw)


def _bag_samples(dtype, rng):
    a = lambda s, lo=-3.0, hi=3.0: make_array(s, dtype, rng, lo, hi)  # noqa: E731
    fx = lambda v: Fixed(np.asarray(v, dtype=np.int64), ember.int64)  # noqa: E731
    idx = fx([0, 2, 5, 2, 1, 3, 3, 0])
    off = fx([0, 3, 3, 6])  # an empty bag
    out = [
        Sample((idx, a((6, 3)), off), {"mode": m}, f"1-d, offsets, {m}")
        for m in ("sum", "mean", "max")
    ]
    out += [
        Sample((fx(rng.integers(0, 6, (3, 2))), a((6, 2))), {"mode": "sum"}, "2-d input"),
        Sample((idx, a((6, 3)), off, a((8,), 0.25, 2.0)), {"mode": "sum"}, "per_sample_weights"),
        Sample(
            (idx, a((6, 2)), off),
            {"mode": "mean", "padding_idx": 2},
            "padding_idx (mean skips it)",
            grad=False,
        ),
        Sample(
            (idx, a((6, 2)), fx([0, 3, 5, 8])),
            {"mode": "sum", "include_last_offset": True},
            "include_last_offset",
        ),
        Sample(
            (idx, a((6, 2)), off),
            {"mode": "mean", "scale_grad_by_freq": True},
            "freq scaling",
            grad=False,
        ),
        Sample(
            (fx(rng.integers(0, 6, 6)), a((6, 40)), fx([0, 2])),
            {"mode": "sum"},
            "40 wide (vector loop tail)",
        ),
        Sample(
            (fx([0, 2, 0]), a((4, 3)), fx([0, 1])),
            {"mode": "sum", "max_norm": 1.0},
            "max_norm",
            grad=False,
        ),
    ]
    return out


def _bag_errors():
    w = ember.randn(3, 2)
    return [
        error(
            lambda: F.embedding_bag(index_tensor(0, 3), w, index_tensor(0)),
            RuntimeError,
            "takes value 3 which is not in the valid range [0, 3)",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1, 2), w, index_tensor(1, 2)),
            RuntimeError,
            "offsets[0] has to be 0",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1, 2), w, index_tensor(0, 2, 1)),
            RuntimeError,
            "non-decreasing",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1, 2), w, index_tensor(0, 5)),
            RuntimeError,
            "can not be greater than input's length 3",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1), w),
            ValueError,
            "offsets has to be a 1D Tensor",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1).view(1, 2), w, index_tensor(0)),
            ValueError,
            "offsets has to be None",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1), w, index_tensor(0), mode="foo"),
            ValueError,
            "mode has to be one of sum, mean or max",
        ),
        error(
            lambda: F.embedding_bag(
                index_tensor(0, 1), w, index_tensor(0), mode="max", scale_grad_by_freq=True
            ),
            ValueError,
            "max mode",
        ),
        error(
            lambda: F.embedding_bag(
                index_tensor(0, 1), w, index_tensor(0), per_sample_weights=ember.ones(2)
            ),
            NotImplementedError,
            "only supported for mode='sum'",
        ),
        error(
            lambda: F.embedding_bag(
                index_tensor(0, 1), w, index_tensor(0), mode="sum", per_sample_weights=ember.ones(3)
            ),
            ValueError,
            "same shape as the input",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1), w, index_tensor(0), padding_idx=3),
            RuntimeError,
            "padding_idx must be within",
        ),
        error(
            lambda: F.embedding_bag(index_tensor(0, 1), w, index_tensor(0), sparse=True),
            NotImplementedError,
            "sparse",
        ),
    ]


def records():
    return [
        OpSpec(
            "nn.functional.embedding",
            F.embedding,
            np_embedding,
            ALL,
            _emb_samples,
            gradgrad=True,
            errors=_emb_errors,
        ),
        OpSpec(
            "nn.functional.embedding_bag",
            _bag_op,
            _bag_ref,
            FLOATING,
            _bag_samples,
            gradgrad=False,
            errors=_bag_errors,
        ),
    ]
