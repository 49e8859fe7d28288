"""ember.nn.functional: convolution (conv1d/2d/3d, conv_transpose1d/2d/3d) through oneDNN, linear
and bilinear.

PyTorch's torch.nn.functional.conv2d is torch.conv2d itself; so are these the C++ ops, with
PyTorch's signatures (padding may be an int, a tuple, 'same' or 'valid')."""

from __future__ import annotations

from ember import _C

__all__: list[str] = [
    "bilinear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "linear",
]

conv1d = _C.conv1d
conv2d = _C.conv2d
conv3d = _C.conv3d
conv_transpose1d = _C.conv_transpose1d
conv_transpose2d = _C.conv_transpose2d
conv_transpose3d = _C.conv_transpose3d
bilinear = _C.bilinear
linear = _C._nn.linear
