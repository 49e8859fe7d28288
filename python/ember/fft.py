"""ember.fft: torch.fft's functions, with PyTorch's names, arguments and gradients.

The transforms are C++ ops (ember/ops/fft.cpp, bound in ember._C._fft) on oneMKL's DFTI, which
ember loads at the first transform from PyPI's `mkl` package (docs/design/fft.md). Real and
integer inputs become complex (integers through the default dtype); float16 and bfloat16 raise
NotImplementedError, as on PyTorch's CPU.
"""

from ember import _C

_f = _C._fft

fft = _f.fft
ifft = _f.ifft
rfft = _f.rfft
irfft = _f.irfft
hfft = _f.hfft
ihfft = _f.ihfft
fft2 = _f.fft2
ifft2 = _f.ifft2
rfft2 = _f.rfft2
irfft2 = _f.irfft2
hfft2 = _f.hfft2
ihfft2 = _f.ihfft2
fftn = _f.fftn
ifftn = _f.ifftn
rfftn = _f.rfftn
irfftn = _f.irfftn
hfftn = _f.hfftn
ihfftn = _f.ihfftn
fftfreq = _f.fftfreq
rfftfreq = _f.rfftfreq
fftshift = _f.fftshift
ifftshift = _f.ifftshift

Tensor = _C.Tensor

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
    "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq",
    "fftshift", "ifftshift",
]  # fmt: skip
