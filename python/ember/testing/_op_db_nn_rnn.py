"""Op-table records of the neural-network ops: recurrent cells and sequences (RNN, LSTM, GRU) and
scaled_dot_product_attention. Imported at the end of op_db.py."""

from __future__ import annotations


def records():
    return []
