"""ember.nn.functional: losses (cross_entropy, nll, mse, ...) and embeddings (embedding,
embedding_bag). Re-exported by functional.py."""

from __future__ import annotations

__all__: list[str] = []
