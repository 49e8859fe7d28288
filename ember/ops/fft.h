// Discrete Fourier transforms: torch.fft's functions in ember::fft, with PyTorch's names,
// arguments, dtypes and gradients (docs/design/fft.md).
//
// `norm` is "backward" (the default: the inverse transforms divide by n), "forward" (the forward
// transforms divide by n) or "ortho" (both by sqrt(n)). Real and integer input becomes complex
// (integers through the default float dtype); float16 and bfloat16 are not supported on the CPU,
// as in PyTorch. `n` / `s` crop or zero-pad the input along the transformed dims first.
#pragma once

#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {
namespace fft {

using Norm = std::optional<std::string_view>;
using OptDims = std::optional<DimVector>;

// One dim. fft / ifft: complex to complex. rfft: real input, the n / 2 + 1 non-negative
// frequencies; irfft: its inverse, a real signal of n points (default 2 * (m - 1)). hfft: the
// real transform of a Hermitian signal given as its first half; ihfft: the inverse of that.
Tensor fft(const Tensor& self, std::optional<int64_t> n = {}, int64_t dim = -1, Norm norm = {});
Tensor ifft(const Tensor& self, std::optional<int64_t> n = {}, int64_t dim = -1, Norm norm = {});
Tensor rfft(const Tensor& self, std::optional<int64_t> n = {}, int64_t dim = -1, Norm norm = {});
Tensor irfft(const Tensor& self, std::optional<int64_t> n = {}, int64_t dim = -1, Norm norm = {});
Tensor hfft(const Tensor& self, std::optional<int64_t> n = {}, int64_t dim = -1, Norm norm = {});
Tensor ihfft(const Tensor& self, std::optional<int64_t> n = {}, int64_t dim = -1, Norm norm = {});

// Several dims: `dim` (default: the last len(s) dims, or every dim without s) and the signal
// sizes `s` (-1 keeps a dim's size). For the real forms the last of `dim` is the halved one.
Tensor fftn(const Tensor& self, OptDims s = {}, OptDims dim = {}, Norm norm = {});
Tensor ifftn(const Tensor& self, OptDims s = {}, OptDims dim = {}, Norm norm = {});
Tensor rfftn(const Tensor& self, OptDims s = {}, OptDims dim = {}, Norm norm = {});
Tensor irfftn(const Tensor& self, OptDims s = {}, OptDims dim = {}, Norm norm = {});
Tensor hfftn(const Tensor& self, OptDims s = {}, OptDims dim = {}, Norm norm = {});
Tensor ihfftn(const Tensor& self, OptDims s = {}, OptDims dim = {}, Norm norm = {});
// The 2-d forms: fftn and the rest with dim defaulting to the last two.
Tensor fft2(const Tensor& self, OptDims s = {}, IntArrayRef dim = {-2, -1}, Norm norm = {});
Tensor ifft2(const Tensor& self, OptDims s = {}, IntArrayRef dim = {-2, -1}, Norm norm = {});
Tensor rfft2(const Tensor& self, OptDims s = {}, IntArrayRef dim = {-2, -1}, Norm norm = {});
Tensor irfft2(const Tensor& self, OptDims s = {}, IntArrayRef dim = {-2, -1}, Norm norm = {});
Tensor hfft2(const Tensor& self, OptDims s = {}, IntArrayRef dim = {-2, -1}, Norm norm = {});
Tensor ihfft2(const Tensor& self, OptDims s = {}, IntArrayRef dim = {-2, -1}, Norm norm = {});

// The sample frequencies of an n-point transform with spacing d: [0, 1, ..., -(n / 2), ..., -1]
// / (d n), and rfft's [0, ..., n / 2] / (d n). Floating or complex dtypes (default float).
Tensor fftfreq(int64_t n, double d = 1.0, TensorOptions options = {});
Tensor rfftfreq(int64_t n, double d = 1.0, TensorOptions options = {});
// The zero frequency moved to the centre (rolled by size / 2 along `dim`, default every dim),
// and back.
Tensor fftshift(const Tensor& self, OptDims dim = {});
Tensor ifftshift(const Tensor& self, OptDims dim = {});

}  // namespace fft

namespace detail {
// The three transforms everything above is built from (PyTorch's _fft_c2c, _fft_r2c and
// _fft_c2r), each differentiable (their backwards are these transforms again). `dims` are
// distinct and wrapped; the result is scaled by 1, 1/n or 1/sqrt(n) (n the product of the
// real-side signal sizes).
enum class FftNorm { None, ByRootN, ByN };
// Complex `self` to complex, with the exp(-i...) sign when forward.
Tensor fft_c2c(const Tensor& self, IntArrayRef dims, FftNorm norm, bool forward);
// Real `self` (float32/float64) to complex, forward; onesided keeps n / 2 + 1 entries of the last
// of `dims`.
Tensor fft_r2c(const Tensor& self, IntArrayRef dims, FftNorm norm, bool onesided);
// The inverse-sign transform of a Hermitian half-spectrum `self` into a real signal whose last
// transformed dim has `last_dim_size` points.
Tensor fft_c2r(const Tensor& self, IntArrayRef dims, FftNorm norm, int64_t last_dim_size);
}  // namespace detail

}  // namespace ember
