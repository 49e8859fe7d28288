"""ember.nn.functional: the functions the layers need that have no C++ op of their own (prelu,
rrelu, glu, softshrink, hardshrink, softmin, lp_pool1d/2d/3d, max_unpool1d/3d,
adaptive_max_pool3d, channel_shuffle, one_hot,
pairwise_distance,
cosine_similarity, multilabel_margin_loss, multilabel_soft_margin_loss,
triplet_margin_with_distance_loss, ctc_loss).

Each is PyTorch's formula written with C++ tensor ops (where, clamp, vector_norm, gather, ...),
so autograd comes from those ops; no Python loops over elements."""

from __future__ import annotations

import ember
from ember import _C
from ember.nn.functional.loss import _legacy_reduction

__all__: list[str] = [
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "channel_shuffle",
    "cosine_similarity",
    "ctc_loss",
    "glu",
    "hardshrink",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_unpool1d",
    "max_unpool3d",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "one_hot",
    "pairwise_distance",
    "prelu",
    "rrelu",
    "rrelu_",
    "softmin",
    "softshrink",
    "triplet_margin_with_distance_loss",
]


def _reduce(loss, reduction: str):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


# ---- activations -------------------------------------------------------------------------------


def prelu(input, weight):
    """x if x > 0 else weight * x; a weight of n > 1 elements applies per channel (dim 1, or
    dim 0 of a 1-d input)."""
    if weight.numel() != 1:
        channels = input.size(1) if input.dim() >= 2 else input.size(0)
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
        if input.dim() >= 2:
            weight = weight.reshape([channels] + [1] * (input.dim() - 2))
    return _C.where(input > 0, input, weight * input)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with slopes drawn from U(lower, upper) per element when training, and the
    mean slope (lower + upper) / 2 otherwise."""
    if not training:
        slope = (lower + upper) / 2
        return input.leaky_relu_(slope) if inplace else _C.leaky_relu(input, slope)
    with ember.no_grad():
        slope = ember.empty_like(input).uniform_(lower, upper)
    out = _C.where(input >= 0, input, input * slope)
    if inplace:
        with ember.no_grad():
            input.copy_(out)
        return input
    return out


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def glu(input, dim: int = -1):
    """a * sigmoid(b), where a and b are the two halves of `input` along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = dim % input.dim()
    size = input.size(dim)
    if size % 2 != 0:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    a, b = input.chunk(2, dim)
    return a * _C.sigmoid(b)


def softshrink(input, lambd: float = 0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between: exactly x - clamp(x, -l, l)."""
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be non-negative, but found {lambd}")
    return input - _C.clamp(input, -lambd, lambd)


def hardshrink(input, lambd: float = 0.5):
    """x where |x| > lambd, else 0."""
    return _C.where(input.abs() > lambd, input, _C.zeros_like(input))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim (PyTorch's implicit dim when None)."""
    from ember.nn.functional import softmax

    return softmax(-input, dim, dtype=dtype)


# ---- pooling and shuffles ----------------------------------------------------------------------


def _lp_finish(out, window: int, norm_type: float):
    # (window * mean(x^p))^(1/p), with PyTorch's sign(out) * relu(|out|) guard so that a
    # negative rounding residue does not become NaN.
    return (out.sign() * _C.relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each window of x^p)^(1/p) over the last dim."""
    k = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size
    stride = stride if stride is not None else k
    out = _C.avg_pool1d(input.pow(norm_type), k, stride, 0, ceil_mode, True)
    return _lp_finish(out, k, norm_type)


def lp_pool2d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each window of x^p)^(1/p) over the last two dims."""
    kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 2
    stride = stride if stride is not None else (kh, kw)
    out = _C._nn.avg_pool2d(input.pow(norm_type), [kh, kw], stride, 0, ceil_mode, True, None)
    return _lp_finish(out, kh * kw, norm_type)


def lp_pool3d(input, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
    """(sum over each window of x^p)^(1/p) over the last three dims."""
    kd, kh, kw = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * 3
    stride = stride if stride is not None else (kd, kh, kw)
    out = _C._nn.avg_pool3d(input.pow(norm_type), [kd, kh, kw], stride, 0, ceil_mode, True, None)
    return _lp_finish(out, kd * kh * kw, norm_type)


def _tuple(x, n):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """PyTorch's rule: (in - 1) * stride + kernel - 2 * padding by default; an explicit size
    (optionally with the N, C dims) must lie strictly within stride of that."""
    n = len(kernel_size)
    default = [
        (input.size(input.dim() - n + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
        for d in range(n)
    ]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
            f"length of '{len(output_size)}'"
        )
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(
                f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})'
            )
    return output_size


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of max_pool1d: each value goes back to its index along L, zeros elsewhere."""
    kernel_size = _tuple(kernel_size, 1)
    stride = _tuple(stride, 1) if stride is not None else kernel_size
    padding = _tuple(padding, 1)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    # A 1-d index along L is the flat index of a (L, 1) plane: max_unpool2d does the work.
    return _C._nn.max_unpool2d(
        input.unsqueeze(-1),
        indices.unsqueeze(-1),
        [kernel_size[0], 1],
        [stride[0], 1],
        [padding[0], 0],
        [size[0], 1],
    ).squeeze(-1)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of max_pool3d: each value goes back to its flat (D, H, W) index, zeros
    elsewhere; a scatter into the zero output (gradient: the scatter op's)."""
    kernel_size = _tuple(kernel_size, 3)
    stride = _tuple(stride, 3) if stride is not None else kernel_size
    padding = _tuple(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    if input.dim() not in (4, 5) or tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            "max_unpool3d: expected a 4-d or 5-d input and indices of the same shape, got "
            f"input {list(input.shape)} and indices {list(indices.shape)}"
        )
    lead = list(input.shape[:-3])
    plane = size[0] * size[1] * size[2]
    if indices.numel() and (indices.min().item() < 0 or indices.max().item() >= plane):
        raise RuntimeError(f"max_unpool3d: found an index outside the output size {size}")
    flat = _C.zeros(lead + [plane], dtype=input.dtype, device=input.device)
    out = flat.scatter(-1, indices.flatten(-3), input.flatten(-3))
    return out.reshape(lead + list(size))


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, D, H, W) or (C, D, H, W) to output_size (None keeps an
    input size), with flat D*H*W indices.

    A max over a box is a max over depth of maxima over (H, W), and adaptive windows are chosen
    per dim independently; so this is the 2-d C++ op over every depth slice, then the 1-d one
    over depth, and the index is put together from the two."""
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}"
        )
    unbatched = input.dim() == 4
    x = input.unsqueeze(0) if unbatched else input
    n, c, d, h, w = x.shape
    od, oh, ow = _tuple(output_size, 3)
    od, oh, ow = (od or d), (oh or h), (ow or w)
    plane, plane_idx = _C._nn.adaptive_max_pool2d(x.reshape(n, c * d, h, w), [oh, ow])
    cols = plane.reshape(n, c, d, oh * ow).transpose(2, 3).reshape(n, c * oh * ow, d)
    out, depth = _C.adaptive_max_pool1d(cols, od)  # (n, c * oh * ow, od)
    out = out.reshape(n, c, oh, ow, od).permute(0, 1, 4, 2, 3)
    depth = depth.reshape(n, c, oh, ow, od).permute(0, 1, 4, 2, 3)
    # The (H, W) index of the chosen depth slice, at each output cell.
    hw = plane_idx.reshape(n, c, d, oh, ow).gather(2, depth)
    index = depth * (h * w) + hw
    if unbatched:
        out, index = out.squeeze(0), index.squeeze(0)
    return out.contiguous(), index.contiguous()


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def channel_shuffle(input, groups: int):
    """Interleaves `groups` groups of the channels of (N, C, *) (ShuffleNet)."""
    if input.dim() <= 2:
        raise RuntimeError(
            "channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"sizes {list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    n, c = input.size(0), input.size(1)
    if c % groups != 0:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    rest = list(input.shape[2:])
    shuffled = input.reshape([n, groups, c // groups] + rest).transpose(1, 2)
    return shuffled.reshape([n, c] + rest)


# ---- class indices -----------------------------------------------------------------------------


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


# ---- distances ---------------------------------------------------------------------------------


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


# ---- losses ------------------------------------------------------------------------------------


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
