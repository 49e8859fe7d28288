"""ember.nn.functional: losses (cross_entropy, nll, mse, ...).

Most are thin wrappers with torch.nn.functional's signatures: they map the legacy
size_average/reduce arguments to `reduction` (with PyTorch's deprecation warning), warn where
PyTorch warns, and call the C++ ops in ember._C._nn, which hold the numerics, the checks and the
gradients. multilabel_margin_loss, multilabel_soft_margin_loss,
triplet_margin_with_distance_loss and ctc_loss have no C++ op (docs/design/nn_loss.md): each is
PyTorch's formula written with C++ tensor ops, so autograd comes from those.
"""

from __future__ import annotations

import warnings

import ember
from ember import _C

# triplet_margin_with_distance_loss's default distance: a public function of another part.
from ember.nn.functional.distance import pairwise_distance

_nn = _C._nn

__all__: list[str] = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
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


# ---- losses composed of other ops ---------------------------------------------------------------


def _reduce(loss, reduction: str):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), weighted, averaged over classes."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    # log(sigmoid(x)) = -softplus(-x), stable for large |x|.
    loss = target * _C.softplus(-input) + (1 - target) * _C.softplus(input)
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    return _reduce(loss.sum(class_dim) / input.size(class_dim), reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: target holds class indices ended by the first -1; per sample,
    the sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])),
    divided by the number of classes. O(N C^2) memory."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    x, y = input, target
    if x.dim() == 1 and y.dim() == 1:
        x, y = x.unsqueeze(0), y.unsqueeze(0)
    if x.dim() != 2 or tuple(y.shape) != tuple(x.shape):
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    classes = x.size(1)
    # 1 for the target positions before the first -1, 0 from there on.
    listed = _C.cumprod((y >= 0).to(ember.int64), 1)
    if ((y >= classes) & (listed > 0)).any().item():
        raise RuntimeError("argument #2 'target' is out of range")
    index = y.clamp(min=0)
    is_target = _C.zeros_like(x).scatter_add(1, index, listed.to(x.dtype)) > 0
    # margins[n, k, i] = 1 - (x[n, y[n, k]] - x[n, i]), kept for listed k and non-target i.
    margins = 1 - x.gather(1, index).unsqueeze(2) + x.unsqueeze(1)
    keep = listed.to(x.dtype).unsqueeze(2) * (~is_target).to(x.dtype).unsqueeze(1)
    loss = (_C.relu(margins) * keep).sum((1, 2)) / classes
    if input.dim() == 1:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """max(d(a, p) - d(a, n) + margin, 0) for any distance d (default: pairwise_distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and "
            f"negative {negative.dim()}D inputs"
        )
    d = distance_function if distance_function is not None else pairwise_distance
    dist_pos = d(anchor, positive)
    dist_neg = d(anchor, negative)
    if swap:
        dist_neg = _C.minimum(dist_neg, d(positive, negative))
    return _reduce(_C.clamp(margin + dist_pos - dist_neg, min=0), reduction)


def _lengths(x, device):
    if isinstance(x, (list, tuple)):
        return ember.tensor(list(x), dtype=ember.int64, device=device)
    if isinstance(x, int):
        return ember.tensor([x], dtype=ember.int64, device=device)
    return x.to(ember.int64).reshape(-1)


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
):
    """Connectionist temporal classification loss: -log of the total probability of all
    alignments of each target to its input. log_probs (T, N, C) (or (T, C)) holds
    log-softmax outputs; targets are (N, S) padded or the 1-d concatenation of all targets.

    The forward (alpha) recursion runs over time in log space, vectorised over the batch and
    the 2S + 1 extended labels; its gradient comes from the ops (logsumexp, where, gather).
    Unreachable states hold a large negative finite value instead of -inf, so that no NaN
    enters the gradient; a loss that large means "impossible" and is reported as inf."""
    if log_probs.dim() == 2:  # unbatched
        log_probs = log_probs.unsqueeze(1)
        targets = targets.reshape(1, -1)
    if log_probs.dim() != 3:
        raise RuntimeError(
            f"ctc_loss: expected log_probs of shape (T, N, C) or (T, C), got "
            f"{list(log_probs.shape)}"
        )
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError(f"ctc_loss: blank must be in label range, got {blank} of {classes}")
    device = log_probs.device
    in_len = _lengths(input_lengths, device)
    tgt_len = _lengths(target_lengths, device)
    if in_len.numel() != batch or tgt_len.numel() != batch:
        raise RuntimeError(
            f"ctc_loss: expected {batch} input and target lengths, got {in_len.numel()} and "
            f"{tgt_len.numel()}"
        )
    if (in_len > steps).any().item():
        raise RuntimeError(f"ctc_loss: input length exceeds the {steps} time steps of log_probs")
    targets = targets.to(ember.int64)
    width = max(int(tgt_len.max().item()), 1) if batch else 1
    pos = ember.arange(width, device=device).unsqueeze(0)
    if targets.dim() == 1:  # concatenated: cut into padded rows
        starts = tgt_len.cumsum(0) - tgt_len
        index = (starts.unsqueeze(1) + pos).clamp(max=max(targets.numel() - 1, 0))
        rows = targets[index] if targets.numel() else ember.zeros_like(index)
    else:
        rows = targets[:, :width]
        if rows.size(1) < width:
            raise RuntimeError("ctc_loss: a target length exceeds the padded target width")
    rows = ember.where(pos < tgt_len.unsqueeze(1), rows, ember.full_like(rows, blank))

    # Extended labels: blank, l1, blank, l2, ..., blank.
    blanks = ember.full_like(rows, blank)
    ext = ember.cat([ember.stack([blanks, rows], 2).reshape(batch, 2 * width), blanks[:, :1]], 1)
    length = ext.size(1)
    neg = -1e30 if log_probs.dtype in (ember.float32, ember.float64) else -3e4
    ext_back2 = ember.cat([ember.full_like(ext[:, :2], blank), ext[:, :-2]], 1)
    skip_ok = (ext != blank) & (ext != ext_back2)
    lp = log_probs.gather(2, ext.unsqueeze(0).expand(steps, batch, length))  # (T, N, L)
    state = ember.arange(length, device=device).unsqueeze(0)
    fill = ember.full_like(lp[0], neg)
    start = (state == 0) | ((state == 1) & (tgt_len.unsqueeze(1) > 0))
    alpha = ember.where(start, lp[0], fill)
    pad1, pad2 = fill[:, :1], fill[:, :2]
    for t in range(1, steps):
        from_prev = ember.cat([pad1, alpha[:, :-1]], 1)
        from_skip = ember.where(skip_ok, ember.cat([pad2, alpha[:, :-2]], 1), fill)
        new = ember.logsumexp(ember.stack([alpha, from_prev, from_skip]), 0) + lp[t]
        alpha = ember.where((in_len > t).unsqueeze(1), new, alpha)
    last = (2 * tgt_len).unsqueeze(1)
    end = alpha.gather(1, last)
    before = ember.where(
        tgt_len.unsqueeze(1) > 0, alpha.gather(1, (last - 1).clamp(min=0)), fill[:, :1]
    )
    loss = -ember.logsumexp(ember.cat([end, before], 1), 1)
    impossible = loss > -neg / 10
    loss = ember.where(impossible, ember.full_like(loss, float("inf")), loss)
    if zero_infinity:
        loss = ember.where(impossible, ember.zeros_like(loss), loss)
    if reduction == "mean":
        return (loss / tgt_len.clamp(min=1).to(loss.dtype)).mean()
    return _reduce(loss, reduction)
