"""The torch-level forms of nn ops under PyTorch's ATen names (torch.kl_div, torch.convolution,
torch.native_layer_norm, ...): the reductions as ints (0 none, 1 mean, 2 sum), positional
arguments, and the extra outputs the native_* forms return. Each calls the ember.nn.functional
op it names (imported when called: this module is imported while ember.nn is being built);
ember/__init__.py installs them on ember."""

from ember import _C

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(r):
    if isinstance(r, str):
        return r
    if r not in _REDUCTIONS:
        raise ValueError(f"reduction must be 0 (none), 1 (mean) or 2 (sum), got {r}")
    return _REDUCTIONS[r]


def _F():
    import ember.nn.functional as F

    return F


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().cosine_embedding_loss(
        input1, input2, target, margin=margin, reduction=_reduction(reduction)
    )


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _F().hinge_embedding_loss(input, target, margin=margin, reduction=_reduction(reduction))


def kl_div(input, target, reduction=1, *, log_target=False):
    import warnings

    # torch.kl_div's 'mean' is the elementwise mean, without F.kl_div's advice to use batchmean.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().margin_ranking_loss(
        input1, input2, target, margin=margin, reduction=_reduction(reduction)
    )


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(
        input, target, log_input=log_input, full=full, eps=eps, reduction=_reduction(reduction)
    )


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=1
):
    return _F().triplet_margin_loss(
        anchor,
        positive,
        negative,
        margin=margin,
        p=p,
        eps=eps,
        swap=swap,
        reduction=_reduction(reduction),
    )


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False
):
    return _F().ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank=blank,
        reduction=_reduction(reduction),
        zero_infinity=zero_infinity,
    )


def constant_pad_nd(input, pad, value=0):
    return _F().pad(input, tuple(pad), mode="constant", value=value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """conv{1,2,3}d or conv_transpose{1,2,3}d by the weight's number of spatial dims."""
    F = _F()
    nd = weight.dim() - 2
    if nd not in (1, 2, 3):
        raise RuntimeError(f"[convolution] expected a 3-d, 4-d or 5-d weight, got {weight.dim()}-d")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    return _F().grid_sample(
        input,
        grid,
        mode=_INTERPOLATION[interpolation_mode],
        padding_mode=_PADDING[padding_mode],
        align_corners=align_corners,
    )


grid_sampler_2d = grid_sampler


def affine_grid_generator(theta, size, align_corners):
    return _F().affine_grid(theta, list(size), align_corners=align_corners)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(out, save_mean, save_invstd): the batch's mean and 1 / sqrt(var + eps) when training
    (running statistics updated in place), empty tensors otherwise, as PyTorch on the CPU."""
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = _C.empty((0,), dtype=input.dtype, device=input.device)
        return out, empty, empty.clone()
    dims = [d for d in range(input.dim()) if d != 1]
    x = input.detach()
    mean = x.mean(dims)
    var = x.var(dims, unbiased=False)
    return out, mean, (var + eps).rsqrt()


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(out, mean, rstd), mean and rstd with the normalised dims kept as ones."""
    normalized_shape = list(normalized_shape)
    out = _F().layer_norm(input, normalized_shape, weight, bias, eps)
    dims = list(range(input.dim() - len(normalized_shape), input.dim()))
    x = input.detach()
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, unbiased=False, keepdim=True)
    return out, mean, (var + eps).rsqrt()


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(out, mean, rstd), mean and rstd of shape [N, group]."""
    out = _F().group_norm(input, group, weight, bias, eps)
    x = input.detach().reshape(N, group, -1)
    mean = x.mean(-1)
    var = x.var(-1, unbiased=False)
    return out, mean, (var + eps).rsqrt()


def native_dropout(input, p, train):
    """(out, mask): the kept elements scaled by 1 / (1 - p), and which were kept."""
    if not train or p == 0:
        return input.clone(), _C.ones_like(input, dtype=_C.bool)
    if p == 1:
        return _C.zeros_like(input), _C.zeros_like(input, dtype=_C.bool)
    mask = _C.rand(input.shape, device=input.device) >= p
    return input * mask * (1.0 / (1.0 - p)), mask


def native_channel_shuffle(input, groups):
    return _F().channel_shuffle(input, groups)


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    import ember

    if dim is None:
        return ember.linalg.vector_norm(input, 2 if p is None else p, dtype=dtype)
    return ember.linalg.vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but dim, keeping dims (all dims for dim=-1)."""
    import ember

    if dim == -1:
        return ember.linalg.vector_norm(v, pow)
    dims = [d for d in range(v.dim()) if d != dim]
    return ember.linalg.vector_norm(v, pow, dims, keepdim=True)


def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    import ember

    return ember.linalg.vector_norm(input, 2, dim, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    import ember

    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return ember.linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _F().rrelu(input, lower, upper, training, inplace=True)


NAMES = [
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "kl_div",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
    "ctc_loss",
    "constant_pad_nd",
    "convolution",
    "grid_sampler",
    "grid_sampler_2d",
    "affine_grid_generator",
    "native_batch_norm",
    "native_layer_norm",
    "native_group_norm",
    "native_dropout",
    "native_channel_shuffle",
    "native_norm",
    "pdist",
    "conv_tbc",
    "norm_except_dim",
    "frobenius_norm",
    "nuclear_norm",
    "rrelu_",
]


def __getattr__(name):
    # pdist and conv_tbc are nn.functional's (distance.py, conv.py); torch.pdist is the same.
    if name in ("pdist", "conv_tbc"):
        import ember.nn.functional as F

        return getattr(F, name)
    raise AttributeError(name)
