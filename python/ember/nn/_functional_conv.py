"""ember.nn.functional: convolution (conv1d/2d/3d, conv_transpose1d/2d) through oneDNN, linear and
bilinear. Re-exported by functional.py."""

from __future__ import annotations

__all__: list[str] = []
