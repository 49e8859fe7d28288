"""Switches for ember's CPU kernels, in the manner of torch.backends.cudnn.

allow_winograd (default True): float32 convolutions with a 3x3 kernel, stride 1, dilation 1 and
no groups may run Winograd's algorithm (oneDNN's F(4x4, 3x3)) where oneDNN implements it: 1.5-2.3x
faster over 14x14 to 56x56 images, with rounding errors about three times the direct kernel's.
PyTorch's GPU convolutions likewise let cuDNN pick its Winograd algorithms by default. Set it to
False for the direct kernel's results (what PyTorch's CPU convolutions compute).
"""

import contextlib
import sys
import types

from ember import _C

# allow_winograd is a property of the module class below.
__all__ = ["allow_winograd", "flags"]  # noqa: F822


@contextlib.contextmanager
def flags(allow_winograd=None):
    """Sets the given switches inside a with block and restores them after it."""
    module = sys.modules[__name__]
    old = module.allow_winograd
    try:
        if allow_winograd is not None:
            module.allow_winograd = allow_winograd
        yield
    finally:
        module.allow_winograd = old


class _CpuModule(types.ModuleType):
    # A property on the module's class makes `ember.backends.cpu.allow_winograd = False` reach
    # the C++ switch, as torch.backends.cudnn's attributes do.
    @property
    def allow_winograd(self):
        return _C._get_allow_winograd()

    @allow_winograd.setter
    def allow_winograd(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"[allow_winograd] expected a bool, got {type(value).__name__}")
        _C._set_allow_winograd(value)


sys.modules[__name__].__class__ = _CpuModule
