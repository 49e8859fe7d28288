"""ember.nn.functional: pooling (max, average, adaptive, unpool) and resampling (interpolate,
pixel_shuffle, unfold/fold). Re-exported by functional.py."""

from __future__ import annotations

__all__: list[str] = []
