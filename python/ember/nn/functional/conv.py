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
    "conv_tbc",
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


def conv_tbc(input, weight, bias, pad=0):
    """1-d convolution of a time-batch-channel input [T, B, Cin] with weight [K, Cin, Cout]."""
    if input.dim() != 3 or weight.dim() != 3:
        raise RuntimeError(
            "[conv_tbc] expected a 3-d input [T, B, C] and a 3-d weight [K, Cin, Cout]"
        )
    x = input.permute(1, 2, 0)  # [B, Cin, T]
    w = weight.permute(2, 1, 0)  # [Cout, Cin, K]
    return conv1d(x, w, bias, padding=pad).permute(2, 0, 1)
