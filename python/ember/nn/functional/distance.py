"""ember.nn.functional: distances (pairwise_distance, cosine_similarity, pdist).

PyTorch's formulas written with C++ tensor ops (vector_norm, clamp), so autograd comes from
those."""

from __future__ import annotations

import ember
from ember import _C

__all__: list[str] = [
    "cosine_similarity",
    "pairwise_distance",
    "pdist",
]


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """||x1 - x2 + eps||_p over the last dim (eps keeps the gradient finite at 0)."""
    diff = x1 - x2 + eps
    if diff.dim() == 0:
        return ember.linalg.vector_norm(diff, p)
    return ember.linalg.vector_norm(diff, p, dim=-1, keepdim=keepdim)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """Each input divided by its norm clamped to eps, then the dot product along dim."""
    n1 = _C.clamp(ember.linalg.vector_norm(x1, 2, dim=dim, keepdim=True), min=eps)
    n2 = _C.clamp(ember.linalg.vector_norm(x2, 2, dim=dim, keepdim=True), min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pdist(input, p: float = 2.0):
    """The p-norm distances between the rows of a 2-d input, pairs i < j in row-major order: the
    upper triangle of cdist(input, input), whose gradient is 0 where rows coincide."""
    if input.dim() != 2:
        raise RuntimeError(f"[pdist] pdist only supports 2D tensors, got: {input.dim()}D")
    n = input.shape[0]
    i, j = ember.triu_indices(n, n, 1, device=input.device)
    return ember.cdist(input, input, p)[i, j]
