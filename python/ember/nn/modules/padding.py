"""Padding layers (constant, zero, reflection, replication, circular; 1-3 spatial dims). Each
stores `padding` in F.pad's order (last dim first, before/after) and calls F.pad (C++ op)."""

from __future__ import annotations

from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.modules.utils import _ntuple, _pair, _quadruple

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]

_sextuple = _ntuple(6, "_sextuple")
_EXPAND = {1: _pair, 2: _quadruple, 3: _sextuple}


class _PadNd(Module):
    _dims = 1
    _mode = "reflect"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _EXPAND[self._dims](padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(Module):
    _dims = 1

    def __init__(self, padding, value: float) -> None:
        super().__init__()
        self.padding = _EXPAND[self._dims](padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with `value`; padding is an int or (left, right)."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with `value`; (left, right, top, bottom)."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with `value`; (left, right, top, bottom, front, back)."""

    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last 3 dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pads (C, W) or (N, C, W) with the reflection of the input (edge not repeated)."""

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads (C, H, W) or (N, C, H, W) by reflection."""

    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pads (C, D, H, W) or (N, C, D, H, W) by reflection."""

    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads (C, W) or (N, C, W) by repeating the edge value."""

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads (C, H, W) or (N, C, H, W) by repeating the edge values."""

    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pads (C, D, H, W) or (N, C, D, H, W) by repeating the edge values."""

    _dims, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    # PyTorch checks the input dims here in Python (ValueError); the other modes leave it to
    # F.pad (NotImplementedError).
    def forward(self, input):
        n = self._dims
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, self._mode)


class CircularPad1d(_CircularPadNd):
    """Pads (C, W) or (N, C, W) periodically (wrap-around)."""

    _dims, _mode = 1, "circular"


class CircularPad2d(_CircularPadNd):
    """Pads (C, H, W) or (N, C, H, W) periodically."""

    _dims, _mode = 2, "circular"


class CircularPad3d(_CircularPadNd):
    """Pads (C, D, H, W) or (N, C, D, H, W) periodically."""

    _dims, _mode = 3, "circular"
