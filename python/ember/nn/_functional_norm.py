"""ember.nn.functional: normalisation (batch, layer, group, instance, local response, normalize)
and dropout. Re-exported by functional.py."""

from __future__ import annotations

__all__: list[str] = []
