"""ember.nn.functional: recurrent cells and sequences (RNN, LSTM, GRU) and
scaled_dot_product_attention. Re-exported by functional.py."""

from __future__ import annotations

__all__: list[str] = []
