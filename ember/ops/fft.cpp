// Discrete Fourier transforms. Three primitives run the kernels (detail::fft_c2c, fft_r2c,
// fft_c2r, as PyTorch's _fft_c2c, _fft_r2c, _fft_c2r) and record backwards that are these
// transforms again, so second derivatives come free; torch.fft's functions are compositions of
// them with the input's promotion, cropping or zero-padding and the norm= scaling.
#include "ember/ops/fft.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_fft.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/registry.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

namespace ember {

using detail::FftNorm;

namespace {

// CPU transforms take float32 and float64 (and their complex forms), integers and bool through
// the default dtype; float16 and bfloat16 raise, as on PyTorch's CPU.
constexpr DTypeSet kHalfTypes = DTypeSet(kFloat16) | kBFloat16;
constexpr DTypeSet kFftTypes = kAllTypesAndComplex - kHalfTypes;
constexpr DTypeSet kFftRealTypes = kAllTypes - kHalfTypes;

const OpInfo kFftOps[] = {
    {"fft.fft", OpKind::Other, kFftTypes, true},
    {"fft.ifft", OpKind::Other, kFftTypes, true},
    {"fft.rfft", OpKind::Other, kFftRealTypes, true},
    {"fft.irfft", OpKind::Other, kFftTypes, true},
    {"fft.hfft", OpKind::Other, kFftTypes, true},
    {"fft.ihfft", OpKind::Other, kFftRealTypes, true},
    {"fft.fft2", OpKind::Other, kFftTypes, true},
    {"fft.ifft2", OpKind::Other, kFftTypes, true},
    {"fft.rfft2", OpKind::Other, kFftRealTypes, true},
    {"fft.irfft2", OpKind::Other, kFftTypes, true},
    {"fft.hfft2", OpKind::Other, kFftTypes, true},
    {"fft.ihfft2", OpKind::Other, kFftRealTypes, true},
    {"fft.fftn", OpKind::Other, kFftTypes, true},
    {"fft.ifftn", OpKind::Other, kFftTypes, true},
    {"fft.rfftn", OpKind::Other, kFftRealTypes, true},
    {"fft.irfftn", OpKind::Other, kFftTypes, true},
    {"fft.hfftn", OpKind::Other, kFftTypes, true},
    {"fft.ihfftn", OpKind::Other, kFftRealTypes, true},
    {"fft.fftfreq", OpKind::Creation, kFloatingTypes | kComplexTypes, false},
    {"fft.rfftfreq", OpKind::Creation, kFloatingTypes | kComplexTypes, false},
    {"fft.fftshift", OpKind::Other, kAllTypesAndComplex, true},
    {"fft.ifftshift", OpKind::Other, kAllTypesAndComplex, true},
};

// The kernels take at most this many signal dims; more are split into successive transforms
// (a multi-dim DFT is one 1-d DFT per dim, in any order).
constexpr size_t kMaxKernelDims = 3;

const FftKernels& slots(const Tensor& t) {
  return kernels_of(kernels(t.device()).fft, t.device(), "fft");
}

double scale_of(FftNorm norm, int64_t n) {
  switch (norm) {
    case FftNorm::None:
      return 1.0;
    case FftNorm::ByN:
      return 1.0 / double(n);
    case FftNorm::ByRootN:
      return 1.0 / std::sqrt(double(n));
  }
  return 1.0;
}

// Runs `kernel(out, in)` over `dims` of x: those dims moved last and the rest flattened into one
// batch dim ([B, signal...], contiguous). The result is a fresh tensor (not a view, so that
// in-place ops on it, or on its real and imaginary parts, keep their history) whose memory holds
// the batch dims first and the transformed dims last, as PyTorch's results do.
template <class Kernel>
Tensor exec(const Tensor& x,
            IntArrayRef dims,
            IntArrayRef out_signal,
            DType out_dtype,
            const Kernel& kernel) {
  const auto k = int64_t(dims.size());
  DimVector last;
  for (int64_t i = 0; i < k; ++i) last.push_back(x.dim() - k + i);
  const Tensor xp = contiguous(movedim(x, dims, last));
  const int64_t batch = numel_of(IntArrayRef(xp.sizes().data(), size_t(x.dim() - k)));
  DimVector in_shape{batch}, out_shape{batch};
  for (int64_t i = 0; i < k; ++i) in_shape.push_back(xp.sizes()[size_t(x.dim() - k + i)]);
  for (int64_t s : out_signal) out_shape.push_back(s);
  // Sizes in x's dim order; strides of the memory order [batch dims..., dims...].
  DimVector sizes(x.sizes().data(), x.sizes().size());
  for (int64_t i = 0; i < k; ++i) sizes[size_t(dims[i])] = out_signal[size_t(i)];
  DimVector order;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) order.push_back(d);
  }
  for (int64_t d : dims) order.push_back(d);
  DimVector strides(sizes.size(), 1);
  int64_t step = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[size_t(order[i])] = step;
    step *= std::max<int64_t>(sizes[size_t(order[i])], 1);
  }
  const Tensor out = empty_strided(sizes, strides, TensorOptions(out_dtype).device(x.device()));
  // The kernel writes through a [B, signal...] view of it (contiguous in that order).
  kernel(reshape(movedim(out, dims, last), out_shape), reshape(xp, in_shape));
  return out;
}

DimVector sizes_at(const Tensor& x, IntArrayRef dims) {
  DimVector s;
  for (int64_t d : dims) s.push_back(x.sizes()[size_t(d)]);
  return s;
}

// x zero-padded or cropped at the end of dim d to n entries.
Tensor resize_dim(const Tensor& x, int64_t d, int64_t n) {
  const int64_t m = x.sizes()[size_t(d)];
  if (m == n) return x;
  if (m > n) return narrow(x, d, 0, n);
  DimVector p(size_t(2 * (x.dim() - d)), 0);
  p[size_t(2 * (x.dim() - 1 - d) + 1)] = n - m;
  return pad(x, p);
}

}  // namespace

std::span<const OpInfo> fft_op_infos() { return kFftOps; }

// ---- the primitives ----

Tensor detail::fft_c2c(const Tensor& self, IntArrayRef dims, FftNorm norm, bool forward) {
  EMBER_ASSERT(is_complex(self.dtype()), "fft_c2c of ", self.dtype());
  if (dims.empty()) return clone(self);
  if (dims.size() > kMaxKernelDims) {
    const size_t split = dims.size() - kMaxKernelDims;
    const Tensor y = fft_c2c(self, dims.slice(0, split), norm, forward);
    return fft_c2c(y, dims.slice(split, dims.size() - split), norm, forward);
  }
  const DimVector signal = sizes_at(self, dims);
  const double scale = scale_of(norm, numel_of(signal));
  Tensor out;
  {
    NoGradGuard no_grad;
    out = exec(self, dims, signal, self.dtype(),
               [&](const Tensor& o, const Tensor& i) { slots(self).c2c(o, i, forward, scale); });
  }
  if (any_requires_grad(self)) {
    // The adjoint of a scaled DFT is the opposite-sign DFT with the same scale.
    record("FftC2CBackward0", {&self}, {&out},
           [dims = DimVector(dims.data(), dims.size()), norm, forward](TensorList& g, Node&) {
             return TensorList{fft_c2c(g[0], dims, norm, !forward)};
           });
  }
  return out;
}

Tensor detail::fft_r2c(const Tensor& self, IntArrayRef dims, FftNorm norm, bool onesided) {
  EMBER_ASSERT(self.dtype() == kFloat32 || self.dtype() == kFloat64, "fft_r2c of ", self.dtype());
  if (!onesided || dims.empty()) {
    // The full spectrum: the complex transform of the real signal (twice the work of the
    // half, kept simple).
    return fft_c2c(to_dtype(self, to_complex_dtype(self.dtype())), dims, norm, true);
  }
  if (dims.size() > kMaxKernelDims) {
    const size_t split = dims.size() - kMaxKernelDims;
    const Tensor y = fft_r2c(self, dims.slice(split, dims.size() - split), norm, true);
    return fft_c2c(y, dims.slice(0, split), norm, true);
  }
  const DimVector signal = sizes_at(self, dims);
  DimVector half = signal;
  half.back() = signal.back() / 2 + 1;
  const double scale = scale_of(norm, numel_of(signal));
  Tensor out;
  {
    NoGradGuard no_grad;
    out = exec(self, dims, half, to_complex_dtype(self.dtype()),
               [&](const Tensor& o, const Tensor& i) { slots(self).r2c(o, i, scale); });
  }
  if (any_requires_grad(self)) {
    // The dropped half of the spectrum had no effect, so its gradient is zero: pad, then the
    // real part of the adjoint complex transform (PyTorch's fft_r2c_backward).
    record("FftR2CBackward0", {&self}, {&out},
           [dims = DimVector(dims.data(), dims.size()), norm, n = signal.back()](TensorList& g,
                                                                                 Node&) {
             const Tensor full = resize_dim(g[0], dims.back(), n);
             return TensorList{real(fft_c2c(full, dims, norm, false))};
           });
  }
  return out;
}

Tensor detail::fft_c2r(const Tensor& self, IntArrayRef dims, FftNorm norm, int64_t last_dim_size) {
  EMBER_ASSERT(is_complex(self.dtype()) && !dims.empty(), "fft_c2r of ", self.dtype());
  if (dims.size() > 1) {
    // The leading dims first, complex to complex, then the halved one: a half-spectrum that is
    // not exactly Hermitian then gives NumPy's and PyTorch's result (oneMKL's multi-dim c2r
    // treats such input differently).
    const size_t lead = dims.size() - 1;
    const Tensor y = fft_c2c(self, dims.slice(0, lead), norm, false);
    return fft_c2r(y, dims.slice(lead, 1), norm, last_dim_size);
  }
  DimVector signal = sizes_at(self, dims);
  EMBER_ASSERT(signal.back() == last_dim_size / 2 + 1, "fft_c2r: half-spectrum of ", signal.back(),
               " for ", last_dim_size, " points");
  signal.back() = last_dim_size;
  const double scale = scale_of(norm, numel_of(signal));
  Tensor out;
  {
    NoGradGuard no_grad;
    out = exec(self, dims, signal, to_real_dtype(self.dtype()),
               [&](const Tensor& o, const Tensor& i) { slots(self).c2r(o, i, scale); });
  }
  if (any_requires_grad(self)) {
    // Each entry of the half-spectrum but the zero frequency (and, for even n, the Nyquist one)
    // stands for itself and its conjugate mirror, so its gradient counts twice
    // (PyTorch's fft_c2r_backward).
    record("FftC2RBackward0", {&self}, {&out},
           [dims = DimVector(dims.data(), dims.size()), norm](TensorList& g, Node&) {
             Tensor gi = fft_r2c(g[0], dims, norm, true);
             const int64_t d = dims.back();
             const int64_t m = gi.sizes()[size_t(d)];
             const int64_t doubled = g[0].sizes()[size_t(d)] - m;
             if (doubled > 0) {
               DimVector wshape(size_t(gi.dim()), 1);
               wshape[size_t(d)] = m;
               Tensor w = ones({m}, TensorOptions(to_real_dtype(gi.dtype())).device(gi.device()));
               narrow(w, 0, 1, doubled).fill_(2);
               gi = gi * view(w, wshape);
             }
             return TensorList{gi};
           });
  }
  return out;
}

// ---- torch.fft ----

namespace fft {
namespace {

FftNorm norm_mode(Norm norm, bool forward, const char* op) {
  if (!norm || *norm == "backward") return forward ? FftNorm::None : FftNorm::ByN;
  if (*norm == "forward") return forward ? FftNorm::ByN : FftNorm::None;
  EMBER_CHECK(*norm == "ortho", "[", op, "] Invalid normalization mode: \"", *norm, "\"");
  return FftNorm::ByRootN;
}

// The real dtype x is transformed in: float32/float64 (or complex's), integers and bool the
// default float dtype.
DType real_dtype_of(const Tensor& x, const char* op) {
  const DType dt = x.dtype();
  if (kHalfTypes.contains(dt)) {
    EMBER_FAIL_KIND(ErrorKind::NotImplemented, "[", op, "] Unsupported dtype ", dt,
                    " (the CPU transforms take float32 and float64)");
  }
  if (is_complex(dt)) return to_real_dtype(dt);
  if (is_floating(dt)) return dt;
  const DType def = get_default_dtype();
  return def == kFloat64 ? kFloat64 : kFloat32;
}

Tensor as_complex(const Tensor& x, const char* op) {
  const DType dt = to_complex_dtype(real_dtype_of(x, op));
  return x.dtype() == dt ? x : to_dtype(x, dt);
}

Tensor as_real(const Tensor& x, const char* op, const char* torch_name) {
  EMBER_CHECK_TYPE(!is_complex(x.dtype()), "[", op, "] ", torch_name,
                   " expects a real input tensor, but got ", x.dtype());
  const DType dt = real_dtype_of(x, op);
  return x.dtype() == dt ? x : to_dtype(x, dt);
}

void check_points(int64_t n, const char* op) {
  EMBER_CHECK(n >= 1, "[", op, "] Invalid number of data points (", n, ") specified");
}

// One dim's arguments: the wrapped dim and the number of points (n, or the input's size).
struct Dim1 {
  int64_t dim;
  int64_t n;
};

Dim1 dim1(const Tensor& x, std::optional<int64_t> n, int64_t dim, const char* op) {
  const int64_t d = wrap_dim(dim, x.dim(), op);
  const int64_t points = n.value_or(x.sizes()[size_t(d)]);
  check_points(points, op);
  return {d, points};
}

// The wrapped dims and signal sizes of an n-dim transform (PyTorch's
// canonicalize_fft_shape_and_dim_args). `c2r`: the last dim's default size is 2 (m - 1).
struct DimsN {
  DimVector dims;
  DimVector sizes;
};

DimsN dims_n(const Tensor& x, const OptDims& s, const OptDims& dim, const char* op, bool c2r) {
  DimsN r;
  const int64_t nd = x.dim();
  if (dim) {
    for (int64_t d : *dim) {
      const int64_t w = wrap_dim(d, nd, op);
      for (int64_t seen : r.dims) EMBER_CHECK(seen != w, "[", op, "] FFT dims must be unique");
      r.dims.push_back(w);
    }
  }
  if (s) {
    if (dim) {
      EMBER_CHECK(s->size() == dim->size(), "[", op,
                  "] When given, dim and shape arguments must have the same length");
    } else {
      EMBER_CHECK(int64_t(s->size()) <= nd, "[", op, "] Got shape with ", s->size(),
                  " values but input tensor only has ", nd, " dimensions.");
      for (int64_t d = nd - int64_t(s->size()); d < nd; ++d) r.dims.push_back(d);
    }
  } else if (!dim) {
    for (int64_t d = 0; d < nd; ++d) r.dims.push_back(d);
  }
  for (size_t i = 0; i < r.dims.size(); ++i) {
    const int64_t given = s ? (*s)[i] : -1;
    int64_t size = given != -1 ? given : x.sizes()[size_t(r.dims[i])];
    if (c2r && given == -1 && i + 1 == r.dims.size()) size = 2 * (size - 1);
    check_points(size, op);
    r.sizes.push_back(size);
  }
  if (c2r) EMBER_CHECK(!r.dims.empty(), "[", op, "] must transform at least one axis");
  return r;
}

Tensor resize(Tensor x, const DimsN& a) {
  for (size_t i = 0; i < a.dims.size(); ++i) x = resize_dim(x, a.dims[i], a.sizes[i]);
  return x;
}

// The half-spectrum input of a c2r transform: its last dim cropped or padded to n / 2 + 1.
Tensor resize_half(Tensor x, const DimsN& a) {
  for (size_t i = 0; i + 1 < a.dims.size(); ++i) x = resize_dim(x, a.dims[i], a.sizes[i]);
  return resize_dim(x, a.dims.back(), a.sizes.back() / 2 + 1);
}

DimsN dims_2(const Tensor& x, const OptDims& s, IntArrayRef dim, const char* op, bool c2r) {
  return dims_n(x, s, DimVector(dim.data(), dim.size()), op, c2r);
}

Tensor c2c_n(const Tensor& self, const DimsN& a, Norm norm, bool forward, const char* op) {
  const Tensor x = resize(as_complex(self, op), a);
  return detail::fft_c2c(x, a.dims, norm_mode(norm, forward, op), forward);
}

Tensor r2c_n(const Tensor& self,
             const DimsN& a,
             Norm norm,
             bool forward,
             const char* op,
             const char* torch_name) {
  const Tensor x = resize(as_real(self, op, torch_name), a);
  const Tensor y = detail::fft_r2c(x, a.dims, norm_mode(norm, forward, op), true);
  return forward ? y : conj(y);  // ihfft: the inverse transform of a real signal
}

// irfft (forward = false) and hfft (forward = true): hfft(x) = irfft(conj(x)) with the forward
// transform's scaling, since the forward transform of a Hermitian signal is real.
Tensor c2r_n(const Tensor& self, const DimsN& a, Norm norm, bool forward, const char* op) {
  Tensor x = resize_half(as_complex(self, op), a);
  if (forward) x = conj(x);
  return detail::fft_c2r(x, a.dims, norm_mode(norm, forward, op), a.sizes.back());
}

DimsN one(const Tensor& x, std::optional<int64_t> n, int64_t dim, const char* op) {
  const Dim1 d = dim1(x, n, dim, op);
  return {{d.dim}, {d.n}};
}

// irfft / hfft: n defaults to 2 (m - 1) points.
DimsN one_c2r(const Tensor& x, std::optional<int64_t> n, int64_t dim, const char* op) {
  const int64_t d = wrap_dim(dim, x.dim(), op);
  const int64_t points = n.value_or(2 * (x.sizes()[size_t(d)] - 1));
  check_points(points, op);
  return {{d}, {points}};
}

Tensor freq(int64_t n, double d, TensorOptions options, bool onesided, const char* op) {
  const DType dt = options.dtype_.value_or(get_default_dtype());
  EMBER_CHECK(is_floating(dt) || is_complex(dt), "[", op,
              "] fftfreq requires a floating point or complex dtype, got ", dt);
  EMBER_CHECK(n >= 0, "[", op, "] n must be non-negative, got ", n);
  // Computed in the real dtype (complex results have zero imaginary parts).
  const DType real_dt = is_complex(dt) ? to_real_dtype(dt) : dt;
  Tensor r = arange(onesided ? n / 2 + 1 : n, TensorOptions(real_dt).device(options.device_));
  if (!onesided && n > 1) narrow(r, 0, (n + 1) / 2, n / 2).sub_(Scalar(n));
  r.mul_(Scalar(1.0 / (double(n) * d)));
  if (real_dt != dt) r = to_dtype(r, dt);
  if (options.requires_grad_) r.requires_grad_(true);
  return r;
}

Tensor shift(const Tensor& self, const OptDims& dim, bool inverse) {
  DimVector dims, shifts;
  if (dim) {
    dims = *dim;
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  for (int64_t d : dims) {
    const int64_t size = self.sizes()[size_t(wrap_dim(d, self.dim(), "fft.fftshift"))];
    shifts.push_back(inverse ? (size + 1) / 2 : size / 2);
  }
  return roll(self, shifts, dims);
}

}  // namespace

Tensor fft(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return c2c_n(self, one(self, n, dim, "fft.fft"), norm, true, "fft.fft");
}
Tensor ifft(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return c2c_n(self, one(self, n, dim, "fft.ifft"), norm, false, "fft.ifft");
}
Tensor rfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return r2c_n(self, one(self, n, dim, "fft.rfft"), norm, true, "fft.rfft", "rfft");
}
Tensor ihfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return r2c_n(self, one(self, n, dim, "fft.ihfft"), norm, false, "fft.ihfft", "ihfft");
}
Tensor irfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return c2r_n(self, one_c2r(self, n, dim, "fft.irfft"), norm, false, "fft.irfft");
}
Tensor hfft(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return c2r_n(self, one_c2r(self, n, dim, "fft.hfft"), norm, true, "fft.hfft");
}

Tensor fftn(const Tensor& self, OptDims s, OptDims dim, Norm norm) {
  return c2c_n(self, dims_n(self, s, dim, "fft.fftn", false), norm, true, "fft.fftn");
}
Tensor ifftn(const Tensor& self, OptDims s, OptDims dim, Norm norm) {
  return c2c_n(self, dims_n(self, s, dim, "fft.ifftn", false), norm, false, "fft.ifftn");
}
Tensor rfftn(const Tensor& self, OptDims s, OptDims dim, Norm norm) {
  const DimsN a = dims_n(self, s, dim, "fft.rfftn", false);
  EMBER_CHECK(!a.dims.empty(), "[fft.rfftn] rfftn must transform at least one axis");
  return r2c_n(self, a, norm, true, "fft.rfftn", "rfftn");
}
Tensor ihfftn(const Tensor& self, OptDims s, OptDims dim, Norm norm) {
  const DimsN a = dims_n(self, s, dim, "fft.ihfftn", false);
  EMBER_CHECK(!a.dims.empty(), "[fft.ihfftn] ihfftn must transform at least one axis");
  return r2c_n(self, a, norm, false, "fft.ihfftn", "ihfftn");
}
Tensor irfftn(const Tensor& self, OptDims s, OptDims dim, Norm norm) {
  return c2r_n(self, dims_n(self, s, dim, "fft.irfftn", true), norm, false, "fft.irfftn");
}
Tensor hfftn(const Tensor& self, OptDims s, OptDims dim, Norm norm) {
  return c2r_n(self, dims_n(self, s, dim, "fft.hfftn", true), norm, true, "fft.hfftn");
}

Tensor fft2(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm) {
  return c2c_n(self, dims_2(self, s, dim, "fft.fft2", false), norm, true, "fft.fft2");
}
Tensor ifft2(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm) {
  return c2c_n(self, dims_2(self, s, dim, "fft.ifft2", false), norm, false, "fft.ifft2");
}
Tensor rfft2(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm) {
  const DimsN a = dims_2(self, s, dim, "fft.rfft2", false);
  EMBER_CHECK(!a.dims.empty(), "[fft.rfft2] rfft2 must transform at least one axis");
  return r2c_n(self, a, norm, true, "fft.rfft2", "rfft2");
}
Tensor ihfft2(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm) {
  const DimsN a = dims_2(self, s, dim, "fft.ihfft2", false);
  EMBER_CHECK(!a.dims.empty(), "[fft.ihfft2] ihfft2 must transform at least one axis");
  return r2c_n(self, a, norm, false, "fft.ihfft2", "ihfft2");
}
Tensor irfft2(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm) {
  return c2r_n(self, dims_2(self, s, dim, "fft.irfft2", true), norm, false, "fft.irfft2");
}
Tensor hfft2(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm) {
  return c2r_n(self, dims_2(self, s, dim, "fft.hfft2", true), norm, true, "fft.hfft2");
}

Tensor fftfreq(int64_t n, double d, TensorOptions options) {
  return freq(n, d, options, false, "fft.fftfreq");
}
Tensor rfftfreq(int64_t n, double d, TensorOptions options) {
  return freq(n, d, options, true, "fft.rfftfreq");
}

Tensor fftshift(const Tensor& self, OptDims dim) { return shift(self, dim, false); }
Tensor ifftshift(const Tensor& self, OptDims dim) { return shift(self, dim, true); }

}  // namespace fft
}  // namespace ember
