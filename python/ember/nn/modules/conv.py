"""Conv1d/2d/3d and ConvTranspose1d/2d/3d with PyTorch's constructor checks, attributes, reprs and
default initialisation. Non-zero padding modes pad with F.pad and convolve unpadded, as PyTorch
does; the convolutions are the C++ ops behind F.conv*d (oneDNN)."""

from __future__ import annotations

import math

import ember
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _pair, _reverse_repeat_tuple, _single, _triple
from ember.nn.parameter import Parameter

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        bias,
        padding_mode,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dim first, before/after) for the non-zero padding modes.
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    j = len(kernel_size) - 1 - i
                    pads[2 * j] = total // 2
                    pads[2 * j + 1] = total - total // 2
            self._reversed_padding_repeated_twice = tuple(pads)
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(ember.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(ember.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # PyTorch's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias, with
        # fan_in = weight.size(1) * prod(kernel_size).
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


def _conv_init(ntuple, kernel_size, stride, padding, dilation):
    padding = padding if isinstance(padding, str) else ntuple(padding)
    return ntuple(kernel_size), ntuple(stride), padding, ntuple(dilation)


class _Conv(_ConvNd):
    _ntuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        kernel_size, stride, padding, dilation = _conv_init(
            self._ntuple, kernel_size, stride, padding, dilation
        )
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            False,
            self._ntuple(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv(
                input, weight, bias, self.stride, self._ntuple(0), self.dilation, self.groups
            )
        return self._conv(
            input, weight, bias, self.stride, self.padding, self.dilation, self.groups
        )

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over (N, C_in, L) or (C_in, L); weight (C_out, C_in / groups, k)."""

    _ntuple = staticmethod(_single)
    _conv = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W); weight (C_out, C_in / g, kh, kw)."""

    _ntuple = staticmethod(_pair)
    _conv = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _ntuple = staticmethod(_triple)
    _conv = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _ntuple = staticmethod(_single)
    _conv = staticmethod(F.conv_transpose1d)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        n = self._ntuple
        super().__init__(
            in_channels,
            out_channels,
            n(kernel_size),
            n(stride),
            n(padding),
            n(dilation),
            True,
            n(output_padding),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output `output_size` (spatial sizes, optionally
        preceded by the batch and channel sizes), checked against the reachable range."""
        if output_size is None:
            return self.output_padding
        nsp = len(self.kernel_size)
        non_spatial = 2 if input.dim() == nsp + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + nsp:
            output_size = output_size[non_spatial:]
        if len(output_size) != nsp:
            raise ValueError(
                f"ConvTranspose{nsp}D: for {input.dim()}D input, output_size must have {nsp} "
                f"or {non_spatial + nsp} elements (got {len(output_size)})"
            )
        min_sizes, max_sizes = [], []
        for d in range(nsp):
            size = (
                (input.size(d + non_spatial) - 1) * self.stride[d]
                - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1)
                + 1
            )
            min_sizes.append(size)
            max_sizes.append(size + self.stride[d] - 1)
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.size()[non_spatial:]})"
                )
        return tuple(s - lo for s, lo in zip(output_size, min_sizes))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return self._conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution; weight (C_in, C_out / groups, k)."""

    _ntuple = staticmethod(_single)
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution; weight (C_in, C_out / groups, kh, kw)."""

    _ntuple = staticmethod(_pair)
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution; weight (C_in, C_out / groups, kd, kh, kw)."""

    _ntuple = staticmethod(_triple)
    _conv = staticmethod(F.conv_transpose3d)


class _LazyConvMixin(LazyModuleMixin):
    """in_channels from dim 1 of the first (batched) input, or dim 0 of an unbatched one."""

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args) -> None:
        nsp = len(self.kernel_size)
        if input.dim() not in (nsp + 1, nsp + 2):
            raise RuntimeError(
                f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}"
            )
        self.in_channels = input.size(1) if input.dim() == nsp + 2 else input.size(0)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.has_uninitialized_params():
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self._materialize({"weight": shape, "bias": (self.out_channels,)})
            self.reset_parameters()


def _lazy_conv(base):
    class _Lazy(_LazyConvMixin, base):
        cls_to_become = base

        def __init__(
            self,
            out_channels: int,
            kernel_size,
            stride=1,
            padding=0,
            dilation=1,
            groups: int = 1,
            bias: bool = True,
            padding_mode: str = "zeros",
            device=None,
            dtype=None,
        ) -> None:
            super().__init__(
                0, 0, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                device, dtype,
            )  # fmt: skip
            # out_channels after construction: with in_channels = 0 the weight starts empty.
            self.out_channels = out_channels
            if bias:
                self._lazy_names.add("bias")

    _Lazy.__name__ = _Lazy.__qualname__ = "Lazy" + base.__name__
    _Lazy.__doc__ = f"A {base.__name__} whose in_channels is taken from the first input."
    return _Lazy


def _lazy_conv_transpose(base):
    class _Lazy(_LazyConvMixin, base):
        cls_to_become = base

        def __init__(
            self,
            out_channels: int,
            kernel_size,
            stride=1,
            padding=0,
            output_padding=0,
            groups: int = 1,
            bias: bool = True,
            dilation=1,
            padding_mode: str = "zeros",
            device=None,
            dtype=None,
        ) -> None:
            super().__init__(
                0, 0, kernel_size, stride, padding, output_padding, groups, bias, dilation,
                padding_mode, device, dtype,
            )  # fmt: skip
            self.out_channels = out_channels
            if bias:
                self._lazy_names.add("bias")

    _Lazy.__name__ = _Lazy.__qualname__ = "Lazy" + base.__name__
    _Lazy.__doc__ = f"A {base.__name__} whose in_channels is taken from the first input."
    return _Lazy


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d)
