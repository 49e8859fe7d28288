"""PairwiseDistance and CosineSimilarity. ember.nn.functional has no pairwise_distance or
cosine_similarity yet, so the two are written here from C++ ops (vector_norm, clamp, sum) with
PyTorch's formulas."""

from __future__ import annotations

import ember
from ember.nn.modules.module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


def _pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    # PyTorch's: ||x1 - x2 + eps||_p over the last dim (eps keeps the gradient finite at 0).
    diff = x1 - x2 + eps
    if diff.dim() == 0:
        return ember.linalg.vector_norm(diff, p)
    return ember.linalg.vector_norm(diff, p, dim=-1, keepdim=keepdim)


def _cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    # PyTorch's: each input divided by its norm clamped to eps, then the dot product along dim.
    n1 = ember.clamp(ember.linalg.vector_norm(x1, 2, dim=dim, keepdim=True), min=eps)
    n2 = ember.clamp(ember.linalg.vector_norm(x2, 2, dim=dim, keepdim=True), min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


class PairwiseDistance(Module):
    """The p-norm distance between x1 and x2 along the last dim."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return _pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """x1 . x2 / (max(||x1||, eps) * max(||x2||, eps)) along `dim`."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return _cosine_similarity(x1, x2, self.dim, self.eps)
