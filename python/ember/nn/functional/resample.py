"""ember.nn.functional: resampling (interpolate and the deprecated upsample*, pixel_shuffle,
pixel_unshuffle, unfold, fold).

PyTorch's signatures over the C++ ops (ember/ops/nn_resample.h): the checks, the output sizes and
the arithmetic are in C++; here are only the Python-side conveniences PyTorch has (one int or
float for every spatial dim, the deprecation warnings)."""

from __future__ import annotations

import warnings

from ember import _C

__all__: list[str] = [
    "fold",
    "interpolate",
    "pixel_shuffle",
    "pixel_unshuffle",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

_nn = _C._nn


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
    rules (ember/ops/nn_resample.h). One int or float stands for every spatial dim."""
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
