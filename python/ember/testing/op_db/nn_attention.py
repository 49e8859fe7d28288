"""Op-table record of the neural-network op scaled_dot_product_attention.

The NumPy reference np_attention is a float64 transcription of PyTorch's formula;
tests/python/test_nn_rnn.py uses it too. Shapes are tiny so that gradcheck (at most 200 input
elements) and gradgradcheck (30) reach the samples."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    FLOAT32_64,
    ErrorSample,
    Fixed,
    OpSpec,
    Sample,
    make_array,
)


def np_attention(q, k, v, mask=None, is_causal=False, scale=None, enable_gqa=False):
    """PyTorch's scaled_dot_product_attention without dropout; rows seeing no key give 0."""
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = (q * scale) @ np.swapaxes(k, -1, -2)  # E = 0: scale is inf, the scores 0
    L, S = q.shape[-2], k.shape[-2]
    if is_causal:
        s = np.where(np.tril(np.ones((L, S), dtype=bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    m = np.max(s, axis=-1, keepdims=True) if S else np.zeros(s.shape[:-1] + (1,))
    empty = np.isneginf(m)
    e = np.exp(s - np.where(empty, 0, m))
    p = np.where(empty, 0, e / np.where(empty, 1, e.sum(-1, keepdims=True)))
    return p @ v


def _sdpa(q, k, v, mask=None, **kw):
    return ember.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)


def _sdpa_ref(q, k, v, mask=None, **kw):
    return np_attention(q, k, v, mask, **kw)


def _sdpa_samples(dtype, rng):
    def a(*shape):
        return make_array(shape, dtype, rng, -1.5, 1.5)

    rows_mask = rng.random((3, 4)) < 0.6
    rows_mask[1] = False  # a query that sees no key: 0, as PyTorch
    fmask = a(2, 1, 3, 4)
    if fmask.dtype.kind == "f":
        fmask[..., 1] = -np.inf
    return [
        Sample((a(2, 2, 3, 3), a(2, 2, 4, 3), a(2, 2, 4, 2)), desc="4-d"),
        Sample((a(1, 1, 2, 2), a(1, 1, 3, 2), a(1, 1, 3, 2)), desc="tiny, for gradgradcheck"),
        Sample((a(2, 2, 3, 3), a(2, 2, 4, 3), a(2, 2, 4, 2)), {"is_causal": True}, "causal"),
        Sample((a(1, 2, 4, 2), a(1, 2, 3, 2), a(1, 2, 3, 2)), {"is_causal": True}, "causal L>S"),
        Sample((a(2, 3, 3), a(2, 4, 3), a(2, 4, 2), Fixed(rows_mask, ember.bool)), desc="bool"),
        Sample((a(2, 2, 3, 2), a(2, 2, 4, 2), a(2, 2, 4, 2), fmask), desc="float mask, -inf"),
        Sample((a(3, 2), a(4, 2), a(4, 3)), {"scale": 0.7}, "2-d, scale"),
        Sample((a(2, 1, 3, 2), a(1, 2, 4, 2), a(1, 2, 4, 2)), desc="broadcast batch dims"),
        Sample((a(1, 4, 2, 2), a(1, 2, 3, 2), a(1, 2, 3, 2)), {"enable_gqa": True}, "gqa"),
        Sample((a(2, 3, 2), a(2, 0, 2), a(2, 0, 3)), desc="no keys: zeros", grad=False),
        Sample((a(2, 0, 2), a(2, 3, 2), a(2, 3, 3)), desc="no queries", grad=False),
        Sample((a(2, 3, 0), a(2, 4, 0), a(2, 4, 2)), desc="E = 0: uniform weights", grad=False),
    ]


def _sdpa_errors():
    q, k, v = ember.randn(2, 3, 4), ember.randn(2, 5, 4), ember.randn(2, 5, 6)
    m = ember.ones(3, 5, dtype=ember.bool)
    return [
        ErrorSample(lambda: _sdpa(q[0, 0], k, v), RuntimeError, "at least 2 dimensional", "1-d"),
        ErrorSample(lambda: _sdpa(q, k.double(), v), RuntimeError, "same dtype", "dtype"),
        ErrorSample(lambda: _sdpa(q, k, v, m, is_causal=True), RuntimeError, "is_causal", "both"),
        ErrorSample(lambda: _sdpa(q, k, v, m.long()), RuntimeError, "attn_mask dtype", "int mask"),
        ErrorSample(lambda: _sdpa(q, k[..., :3], v), RuntimeError, "key's last dim", "E"),
        ErrorSample(lambda: _sdpa(q, k, v[:, :4]), RuntimeError, "positions", "S"),
        ErrorSample(lambda: _sdpa(q, k, v, dropout_p=1.5), RuntimeError, "dropout", "p"),
        ErrorSample(
            lambda: _sdpa(q, k, v, ember.ones(4, 5, dtype=ember.bool)),
            RuntimeError,
            "does not broadcast",
            "mask shape",
        ),  # fmt: skip
        ErrorSample(
            lambda: _sdpa(
                ember.randn(1, 3, 2, 4),
                ember.randn(1, 2, 5, 4),
                ember.randn(1, 2, 5, 4),
                enable_gqa=True,
            ),
            RuntimeError,
            "must divide",
            "gqa",
        ),  # fmt: skip
        ErrorSample(lambda: _sdpa(q.long(), k.long(), v.long()), TypeError, "dtype", "int"),
    ]


def records():
    return [
        OpSpec(
            "nn.functional.scaled_dot_product_attention",
            _sdpa,
            _sdpa_ref,
            FLOAT32_64,
            _sdpa_samples,
            gradgrad=True,
            errors=_sdpa_errors,
        )
    ]
