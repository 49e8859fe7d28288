// Dropout: dropout, feature_dropout (dropout1d/2d/3d), alpha_dropout, feature_alpha_dropout and
// their in-place forms, with PyTorch's semantics (ATen's _dropout_impl): p = 0, train false or an
// empty input return the input itself; p = 1 multiplies by zero (NaN stays NaN); otherwise a
// Bernoulli(1 - p) mask from the default generator.
//
// Elementwise dropout is one kernel pass (backend/cpu/nn_dropout.cpp, Note [Dropout mask]): the
// mask comes from Philox counters reserved from the generator, so the backward regenerates it from
// (seed, counter) instead of storing it. The channel-wise forms draw a small (N, C, 1, ...) noise
// tensor with the same kernel and multiply, so their gradient is the product's. In the Mt19937
// stream (Note [Random streams]) the mask is PyTorch's, drawn with rand and stored.
#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_dropout.h"
#include "ember/core/generator.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/nn_dropout.h"
#include "ember/ops/random.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kDropoutOps[] = {
    {"dropout", OpKind::Random, kFloatingTypes, true},
    {"dropout_", OpKind::Random, kFloatingTypes, true},
    {"feature_dropout", OpKind::Random, kFloatingTypes, true},
    {"feature_dropout_", OpKind::Random, kFloatingTypes, true},
    {"alpha_dropout", OpKind::Random, kFloatingTypes, true},
    {"alpha_dropout_", OpKind::Random, kFloatingTypes, true},
    {"feature_alpha_dropout", OpKind::Random, kFloatingTypes, true},
    {"feature_alpha_dropout_", OpKind::Random, kFloatingTypes, true},
};

// SELU's -alpha * scale: what a dropped unit becomes before alpha dropout's affine correction.
constexpr double kAlpha = 1.7580993408473766;

// One draw of a dropout mask: Philox key and first counter, and the keep threshold; or, in the
// Mt19937 stream (Note [Random streams]), the stored mask itself, as PyTorch's CPU dropout draws
// it (bernoulli_(1 - p): one double uniform per element in memory order, kept when below 1 - p).
struct Mask {
  uint64_t key = 0, counter = 0;
  uint32_t threshold = 0;
  DimVector strides;  // the memory order the mask's element indices follow
  Tensor keep;        // Mt19937 only: bool, true where kept
};

void check_p(double p, const char* op) {
  EMBER_CHECK(p >= 0 && p <= 1, "[", op,
              "] dropout probability has to be between 0 and 1, but got ", p);
}

void check_floating(const Tensor& x, const char* op) {
  EMBER_CHECK_TYPE(is_floating(x.dtype()), "[", op, "] expected a floating-point dtype, got ",
                   x.dtype());
}

Mask draw_mask(const Tensor& dense, double p) {
  Generator& gen = default_generator();
  Mask m;
  if (random_stream() == RandomStream::Mt19937) {
    NoGradGuard no_grad;
    m.strides = DimVector(dense.strides().data(), dense.strides().size());
    const Tensor u = rand({dense.numel()}, TensorOptions(kFloat64).device(dense.device()));
    m.keep = lt(as_strided(u, dense.sizes(), m.strides, 0), Scalar(1.0 - p));
    return m;
  }
  m.key = gen.initial_seed();
  m.counter = gen.reserve(dropout_counters(dense.numel()));
  // Kept when the 32-bit word is below (1 - p) * 2^32 (0 < p < 1 here).
  const double t = std::round((1.0 - p) * 4294967296.0);
  m.threshold = t >= 4294967295.0 ? 0xFFFFFFFFu : uint32_t(t);
  m.strides = DimVector(dense.strides().data(), dense.strides().size());
  return m;
}

// The tensor in a layout the kernel takes (dense, in any dim order: the output keeps it, as
// PyTorch's empty_like does), a contiguous copy (with autograd history) otherwise.
Tensor dense(const Tensor& x) { return x.is_non_overlapping_and_dense() ? x : contiguous(x); }

// 1 / (1 - p) rounded as PyTorch's float noise.div_(1 - p) rounds it in x's dtype.
double keep_scale(double p, DType dtype) {
  if (dtype == kFloat64) return 1.0 / (1.0 - p);
  return double(1.0f / float(1.0 - p));
}

// out = x * (kept ? mul : 0) + (kept ? add_kept : add_dropped) with the mask `m`. Its gradient is
// the same op on the incoming gradient (adds 0), recorded the same way, so every derivative
// order works.
Tensor apply_mask(const Tensor& x, const Mask& m, double mul, double add_kept, double add_dropped) {
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor in = x;
    if (in.strides() != IntArrayRef(m.strides)) {
      in = empty_strided(x.sizes(), m.strides, TensorOptions(x.dtype()).device(x.device()));
      in.copy_(x);
    }
    if (m.keep.defined()) {
      // x * (kept ? mul : 0) + (kept ? add_kept : add_dropped), NaN staying NaN as in the kernel.
      const Tensor k = to_dtype(m.keep, x.dtype());
      out = in * (k * Scalar(mul));
      if (add_kept != 0 || add_dropped != 0)
        out = out + (k * Scalar(add_kept - add_dropped) + Scalar(add_dropped));
    } else {
      out = empty_strided(x.sizes(), m.strides, TensorOptions(x.dtype()).device(x.device()));
      kernel(kernels_of(kernels(x.device()).nn_dropout, x.device(), "dropout").dropout, x.device(),
             "dropout")(out, in, m.key, m.counter, m.threshold, mul, add_kept, add_dropped);
    }
  }
  if (any_requires_grad(x)) {
    record("NativeDropoutBackward0", {&x}, {&out}, [m, mul](TensorList& g, Node&) {
      return TensorList{apply_mask(g[0], m, mul, 0.0, 0.0)};
    });
  }
  return out;
}

// alpha dropout's a and the values of kept and dropped units: out = kept ? a * x + a * alpha * p
// : a * alpha * (p - 1).
struct AlphaAffine {
  double a, add_kept, add_dropped;
};
AlphaAffine alpha_affine(double p) {
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  return {a, kAlpha * a * p, kAlpha * a * p - kAlpha * a};
}

Tensor elementwise_dropout(const Tensor& input, double p, bool train, bool alpha, const char* op) {
  check_p(p, op);
  if (p == 0 || !train || input.numel() == 0) return input;
  check_floating(input, op);
  if (p == 1) return input * Scalar(0.0);
  const Tensor x = dense(input);
  const Mask m = draw_mask(x, p);
  if (!alpha) return apply_mask(x, m, keep_scale(p, x.dtype()), 0.0, 0.0);
  const AlphaAffine f = alpha_affine(p);
  return apply_mask(x, m, f.a, f.add_kept, f.add_dropped);
}

Tensor& elementwise_dropout_(Tensor& self, double p, bool train, bool alpha, const char* op) {
  check_p(p, op);
  if (p == 0 || !train || self.numel() == 0) return self;
  check_floating(self, op);
  if (p == 1) return self.mul_(Scalar(0.0));
  const bool recording = any_requires_grad(self);
  check_inplace(self, op, recording);
  const bool in_place =
      self.is_non_overlapping_and_dense() && random_stream() == RandomStream::Philox;
  if (recording || !in_place) {
    // Out of place on self's value (the gradient does not read it), then written back.
    const Tensor result = elementwise_dropout(self, p, train, alpha, op);
    if (recording)
      detail::commit_recorded(self, result, op);
    else
      self.copy_(result);
    return self;
  }
  const Mask m = draw_mask(self, p);
  const AlphaAffine f = alpha ? alpha_affine(p) : AlphaAffine{keep_scale(p, self.dtype()), 0, 0};
  kernel(kernels_of(kernels(self.device()).nn_dropout, self.device(), "dropout").dropout,
         self.device(),
         op)(self, self, m.key, m.counter, m.threshold, f.a, f.add_kept, f.add_dropped);
  self.storage()->bump_version();
  return self;
}

// The channel-wise forms: noise of shape (N, C, 1, ...) ((C, 1, ...) unbatched), then
// input * noise (+ b for alpha dropout), in place with mul_ / add_.
template <class Apply>
decltype(auto) feature_dropout_impl(const Tensor& input,
                                    double p,
                                    bool train,
                                    bool alpha,
                                    bool batched,
                                    const char* op,
                                    Apply apply) {
  DimVector shape(size_t(input.dim()), 1);
  const int64_t channel_dims = batched ? 2 : 1;
  EMBER_CHECK(input.dim() >= channel_dims, "[", op,
              "] Feature dropout requires at least 2 dimensions in the input");
  for (int64_t d = 0; d < channel_dims; ++d) shape[size_t(d)] = input.sizes()[d];
  const Tensor ones_t = ones(shape, TensorOptions(input.dtype()).device(input.device()));
  const Mask m = draw_mask(ones_t, p);
  if (!alpha) return apply(apply_mask(ones_t, m, keep_scale(p, input.dtype()), 0.0, 0.0), Tensor());
  const AlphaAffine f = alpha_affine(p);
  return apply(apply_mask(ones_t, m, f.a, 0.0, 0.0),
               apply_mask(ones_t, m, 0.0, f.add_kept, f.add_dropped));
}

Tensor feature(
    const Tensor& input, double p, bool train, bool alpha, bool batched, const char* op) {
  check_p(p, op);
  if (p == 0 || !train || input.numel() == 0) return input;
  EMBER_CHECK(input.dim() >= (batched ? 2 : 1), "[", op,
              "] Feature dropout requires at least 2 dimensions in the input");
  check_floating(input, op);
  if (p == 1) return input * Scalar(0.0);
  return feature_dropout_impl(input, p, train, alpha, batched, op,
                              [&](const Tensor& noise, const Tensor& b) -> Tensor {
                                return b.defined() ? input * noise + b : input * noise;
                              });
}

Tensor& feature_(Tensor& self, double p, bool train, bool alpha, bool batched, const char* op) {
  check_p(p, op);
  if (p == 0 || !train || self.numel() == 0) return self;
  EMBER_CHECK(self.dim() >= (batched ? 2 : 1), "[", op,
              "] Feature dropout requires at least 2 dimensions in the input");
  check_floating(self, op);
  if (p == 1) return self.mul_(Scalar(0.0));
  return feature_dropout_impl(self, p, train, alpha, batched, op,
                              [&](const Tensor& noise, const Tensor& b) -> Tensor& {
                                self.mul_(noise);
                                return b.defined() ? self.add_(b) : self;
                              });
}

}  // namespace

std::span<const OpInfo> nn_dropout_op_infos() { return kDropoutOps; }

Tensor dropout(const Tensor& input, double p, bool train) {
  return elementwise_dropout(input, p, train, false, "dropout");
}
Tensor& dropout_(Tensor& self, double p, bool train) {
  return elementwise_dropout_(self, p, train, false, "dropout_");
}
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return elementwise_dropout(input, p, train, true, "alpha_dropout");
}
Tensor& alpha_dropout_(Tensor& self, double p, bool train) {
  return elementwise_dropout_(self, p, train, true, "alpha_dropout_");
}
Tensor feature_dropout(const Tensor& input, double p, bool train, bool batched) {
  return feature(input, p, train, false, batched, "feature_dropout");
}
Tensor& feature_dropout_(Tensor& self, double p, bool train, bool batched) {
  return feature_(self, p, train, false, batched, "feature_dropout_");
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train, bool batched) {
  return feature(input, p, train, true, batched, "feature_alpha_dropout");
}
Tensor& feature_alpha_dropout_(Tensor& self, double p, bool train, bool batched) {
  return feature_(self, p, train, true, batched, "feature_alpha_dropout_");
}

}  // namespace ember
