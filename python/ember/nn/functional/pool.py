"""ember.nn.functional: pooling (max, average, adaptive, unpool) and resampling (interpolate,
pixel_shuffle, unfold/fold).

PyTorch's signatures over the C++ ops (ember/ops/nn_pool.h): the checks, the output sizes and
the arithmetic are in C++; here are only the Python-side conveniences PyTorch has (None
entries in adaptive output sizes, `return_indices`, one int for every spatial dim).
"""

from __future__ import annotations

import warnings

from ember import _C

__all__: list[str] = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "fold",
    "interpolate",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool2d",
    "pixel_shuffle",
    "pixel_unshuffle",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
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


# ---- resampling ----------------------------------------------------------------------------------


def _is_integer(x):
    return isinstance(x, int) or (hasattr(x, "__index__") and not isinstance(x, float))


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resizes `input` (N, C, spatial...) to `size` or by `scale_factor`; PyTorch's modes and
    rules (ember/ops/nn_pool.h). One int or float stands for every spatial dim."""
    dim = input.dim() - 2
    if size is not None:
        if isinstance(size, (list, tuple)):
            if not all(_is_integer(s) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"
                )
            size = [int(s) for s in size]
        else:
            size = [int(size)] * max(dim, 0)
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            scale_factor = [float(s) for s in scale_factor]
        else:
            scale_factor = [float(scale_factor)] * max(dim, 0)
    return _nn.interpolate(
        input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias
    )


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn(
        "nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor):
    return _C.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return _C.pixel_unshuffle(input, downscale_factor)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of (N, C, H, W) as columns (N, C * kh * kw, L) (im2col)."""
    return _nn.im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns (N, C * kh * kw, L) back into (N, C, *output_size) (col2im)."""
    return _nn.col2im(input, output_size, kernel_size, dilation, padding, stride)
