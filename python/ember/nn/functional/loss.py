"""ember.nn.functional: losses (cross_entropy, nll, mse, ...) and embeddings (embedding,
embedding_bag).

Thin wrappers with torch.nn.functional's signatures: they map the legacy size_average/reduce
arguments to `reduction` (with PyTorch's deprecation warning), warn where PyTorch warns, and
call the C++ ops in ember._C._nn, which hold the numerics, the checks and the gradients.
ctc_loss is not there yet (docs/design/nn_loss.md).
"""

from __future__ import annotations

import warnings

from ember import _C

_nn = _C._nn

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "embedding",
    "embedding_bag",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
]


def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's _Reduction.legacy_get_string: size_average and reduce (both default True) win
    over `reduction` when either is given, with a deprecation warning."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        stacklevel=3,
    )
    return ret


def _warn_size_mismatch(input, target):
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size "
            f"({input.size()}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing)


def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.nll_loss(input, target, weight, reduction, ignore_index)


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    return _nn.kl_div(input, target, reduction, log_target)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size_mismatch(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.mse_loss(input, target, reduction, weight)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size_mismatch(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.l1_loss(input, target, reduction, weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_size_mismatch(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_size_mismatch(input, target)
    return _nn.huber_loss(input, target, reduction, delta, weight)


def poisson_nll_loss(
    input,
    target,
    log_input=True,
    full=False,
    size_average=None,
    eps=1e-8,
    reduce=None,
    reduction="mean",
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.poisson_nll_loss(input, target, log_input, full, eps, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _C.full_like(input, float(var))
    return _nn.gaussian_nll_loss(input, target, var, full, eps, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.soft_margin_loss(input, target, reduction)


def multi_margin_loss(
    input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn.multi_margin_loss(input, target, p, margin, weight, reduction)


def hinge_embedding_loss(
    input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.hinge_embedding_loss(input, target, margin, reduction)


def cosine_embedding_loss(
    input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.cosine_embedding_loss(input1, input2, target, margin, reduction)


def margin_ranking_loss(
    input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.margin_ranking_loss(input1, input2, target, margin, reduction)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin=1.0,
    p=2,
    eps=1e-6,
    swap=False,
    size_average=None,
    reduce=None,
    reduction="mean",
):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nn.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction)


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
