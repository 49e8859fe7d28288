"""ember.nn.functional: recurrent cells and sequences (RNN, LSTM, GRU) and
scaled_dot_product_attention. Re-exported by functional.py.

The recurrent functions themselves are ember.lstm, ember.gru, ember.rnn_tanh, ember.rnn_relu and
their *_cell forms, as in torch (bound from C++, ember/ops/nn_rnn.h)."""

from __future__ import annotations

from ember import _C

__all__: list[str] = ["scaled_dot_product_attention"]


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale=None,
    enable_gqa: bool = False,
):
    """softmax(query @ key^T * scale + mask) @ value. attn_mask: bool (True takes part) or
    floating (added). is_causal: query i attends to keys j <= i. Rows with no key give 0."""
    return _C._nn.scaled_dot_product_attention(
        query, key, value, attn_mask, float(dropout_p), bool(is_causal), scale, bool(enable_gqa)
    )
