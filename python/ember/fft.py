"""ember.fft: torch.fft's functions, with PyTorch's names, arguments and gradients.

The transforms are C++ ops (ember/ops/fft.cpp, bound in ember._C._fft) on oneMKL's DFTI, which
ember loads at the first transform from PyPI's `mkl` package (docs/design/fft.md). Real and
integer inputs become complex (integers through the default dtype); float16 and bfloat16 raise
NotImplementedError, as on PyTorch's CPU.
"""

from ember import _C

_f = _C._fft

# Every function of ember._C._fft, under its own name (torch.fft's).
__all__ = [name for name in dir(_f) if not name.startswith("_")]
globals().update({name: getattr(_f, name) for name in __all__})

Tensor = _C.Tensor
