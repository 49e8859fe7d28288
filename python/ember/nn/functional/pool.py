"""ember.nn.functional: pooling (max, average, adaptive, power-average, unpool).

PyTorch's signatures over the C++ ops (ember/ops/nn_pool.h): the checks, the output sizes and
the arithmetic are in C++; here are only the Python-side conveniences PyTorch has (None
entries in adaptive output sizes, `return_indices`, one int for every spatial dim). lp_pool*,
max_unpool1d/3d and adaptive_max_pool3d have no C++ op of their own: each is PyTorch's formula
written with the C++ ops (avg_pool, max_unpool2d, scatter, adaptive_max_pool1d/2d), so autograd
comes from those.
"""

from __future__ import annotations

from ember import _C

__all__: list[str] = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
]

_nn = _C._nn


# ---- max pooling ---------------------------------------------------------------------------------


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    return _C.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    return _nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    return _nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _C.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _C.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _C.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    if output_size is not None:
        output_size = list(output_size)
    return _nn.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


# ---- average pooling -----------------------------------------------------------------------------


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _C.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    return _nn.avg_pool2d(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    return _nn.avg_pool3d(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


# ---- adaptive pooling ----------------------------------------------------------------------------


def _list_with_default(out_size, defaults):
    # PyTorch's: None in output_size keeps that input size.
    if isinstance(out_size, int):
        return out_size
    out_size = list(out_size)
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def adaptive_avg_pool1d(input, output_size):
    return _C.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    return _nn.adaptive_avg_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input, output_size):
    return _nn.adaptive_avg_pool3d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _C.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _nn.adaptive_max_pool2d(input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


# ---- pooling composed of other ops -------------------------------------------------------------


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
