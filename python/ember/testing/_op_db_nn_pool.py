"""Op-table records of the neural-network ops: pooling (max, average, adaptive, unpool) and
resampling (interpolate, pixel_shuffle, unfold/fold). Imported at the end of op_db.py."""

from __future__ import annotations


def records():
    return []
