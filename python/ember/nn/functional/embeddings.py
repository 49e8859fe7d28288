"""ember.nn.functional: embeddings (embedding, embedding_bag) and one_hot.

embedding and embedding_bag are thin wrappers with torch.nn.functional's signatures over the C++
ops in ember._C._nn, which hold the numerics, the checks and the gradients; one_hot is a scatter
into zeros."""

from __future__ import annotations

import ember
from ember import _C

__all__: list[str] = [
    "embedding",
    "embedding_bag",
    "one_hot",
]

_nn = _C._nn


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):
    """weight[input]. sparse=True raises NotImplementedError: ember has no sparse tensors, so
    the gradient is always dense (docs/design/nn_loss.md)."""
    # PyTorch checks padding_idx in Python, with an AssertionError.
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0 and padding_idx < -weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
    return _nn.embedding(
        input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse
    )


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Sums, means or maxima of bags of embedding rows; returns the (bags, dim) result only.
    sparse=True raises NotImplementedError (dense gradients only)."""
    return _nn.embedding_bag(
        input,
        weight,
        offsets,
        max_norm,
        norm_type,
        scale_grad_by_freq,
        mode,
        sparse,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )


def one_hot(tensor, num_classes: int = -1):
    """int64 tensor of shape (*tensor.shape, num_classes): 1 at each class index, 0 elsewhere (a
    scatter into zeros). num_classes=-1 takes max + 1. Indices are data, so no gradient, as in
    PyTorch; the checks read min and max back once."""
    if tensor.dtype != ember.int64:
        raise RuntimeError(
            f"one_hot is only applicable to index tensor of type LongTensor, got {tensor.dtype}."
        )
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("one_hot: Can not infer total number of classes from empty tensor.")
    else:
        low, high = int(tensor.min()), int(tensor.max())
        if low < 0:
            raise RuntimeError(f"one_hot: Class values must be non-negative, got {low}.")
        if num_classes == -1:
            num_classes = high + 1
        elif high >= num_classes:
            raise RuntimeError(
                f"one_hot: Class values must be smaller than num_classes ({num_classes}), "
                f"got {high}."
            )
    if num_classes < 0:
        raise RuntimeError(f"one_hot: num_classes must be -1 or non-negative, got {num_classes}.")
    out = _C.zeros((*tensor.shape, num_classes), dtype=ember.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)
