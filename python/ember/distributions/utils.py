"""Helpers shared by the distributions: broadcasting parameters, probabilities and logits."""

from __future__ import annotations

import functools
import math
from numbers import Number

import ember
from ember._sampling import _standard_gamma  # noqa: F401  (the distributions' sampler)

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


def broadcast_all(*values):
    """The values as tensors of one broadcast shape; numbers take the dtype of the tensors among
    them (the default dtype when all are numbers), as PyTorch's broadcast_all."""
    if not all(isinstance(v, (ember.Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
            "implementing __torch_function__."
        )
    tensors = [v for v in values if isinstance(v, ember.Tensor)]
    if not tensors:
        dtype = ember.get_default_dtype()
        return tuple(ember.tensor(float(v), dtype=dtype) for v in values)
    like = tensors[0]
    out = [
        v if isinstance(v, ember.Tensor) else ember.tensor(v, dtype=like.dtype, device=like.device)
        for v in values
    ]
    return tuple(ember.broadcast_tensors(*out))


def _sum_rightmost(value, dim):
    """value summed over its `dim` rightmost dimensions."""
    return value if dim == 0 else value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    return ember.sigmoid(logits) if is_binary else ember.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """probs kept in [eps, 1 - eps] of their dtype, so that their logits are finite."""
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps = clamp_probs(probs)
    if is_binary:
        return ember.log(ps) - ember.log1p(-ps)
    return ember.log(ps)


class lazy_property:
    """A property computed on first access and then stored on the instance (so that a
    distribution built from logits computes its probs only when asked)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if not (-n <= diag < n):
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = ember.tril_indices(n, n, offset=diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: the matrix whose lower triangle (below offset diag)
    holds vec's entries, row by row."""
    m = vec.shape[-1]
    # n solves n (n + 1) / 2 + diag n - (diag-sized corner) = m: the positive root, rounded.
    n = round(
        (-(1 + 2 * diag) + math.sqrt((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1))) / 2
    )
    rows, cols = ember.tril_indices(n, n, offset=diag)
    if rows.numel() != m:
        raise ValueError(f"a vector of {m} entries does not fill a lower triangle (diag={diag})")
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., rows, cols] = vec
    return mat


def _standard_normal(shape, dtype, device):
    """N(0, 1) draws of shape: normal_ on a fresh tensor, as PyTorch draws them."""
    return ember.empty(shape, dtype=dtype, device=device).normal_()


def _clamp_tiny(x):
    """x kept above its dtype's smallest normal number in value, its gradient untouched (PyTorch
    clamps a detached view in place; ember's division saves its output, which that would
    invalidate)."""
    return x + (x.clamp(min=ember.finfo(x.dtype).tiny) - x).detach()
