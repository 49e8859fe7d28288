// Neural-network ops: normalisation (batch, layer, group, instance, local response, normalize).
// Dropout is in nn_dropout.cpp. batch_norm, layer_norm and group_norm are primitives with fused
// kernels (backend/cpu/nn_norm.cpp) forward and backward; instance_norm, local_response_norm and
// normalize are composites.
//
// Note [Norm backward and double backward]
// The backward of the three primitives is a kernel. When the backward itself is recorded
// (create_graph, which runs backward in grad mode), the same gradient is computed instead from
// public differentiable ops, recomputing the statistics from the saved input, so second
// derivatives work; the kernel path is the fast one for plain backward.
#include "ember/ops/nn_norm.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_norm.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/shape.h"
#include "ember/ops/statistics.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kNormOps[] = {
    {"batch_norm", OpKind::Other, kFloatingTypes, true},
    {"layer_norm", OpKind::Other, kFloatingTypes, true},
    {"rms_norm", OpKind::Other, kFloatingTypes, true},
    {"group_norm", OpKind::Other, kFloatingTypes, true},
    {"instance_norm", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.local_response_norm", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.normalize", OpKind::Other, kFloatingTypes, true},
};

const NormKernels& norm_kernels(const Tensor& x, const char* op) {
  return kernels_of(kernels(x.device()).nn_norm, x.device(), op);
}

void check_floating_input(const Tensor& x, const char* op) {
  EMBER_CHECK_TYPE(is_floating(x.dtype()), "[", op, "] expected a floating-point dtype, got ",
                   x.dtype());
}

// float16 and bfloat16 are computed in float32, as PyTorch's CPU kernels do.
DType compute_dtype(DType t) { return t == kFloat16 || t == kBFloat16 ? kFloat32 : t; }

// A parameter (weight, bias, running stat) of `numel` elements with the input's dtype, or float32
// for a 16-bit input (PyTorch's mixed precision on the CPU).
void check_param(const std::optional<Tensor>& p,
                 const char* what,
                 int64_t numel,
                 const Tensor& input,
                 const char* op) {
  if (!p) return;
  EMBER_CHECK(p->device() == input.device(), "[", op, "] expected ", what, " on ", input.device(),
              ", got ", p->device());
  EMBER_CHECK(p->numel() == numel, "[", op, "] ", what, " should contain ", numel, " elements not ",
              p->numel());
  EMBER_CHECK(p->dtype() == input.dtype() || p->dtype() == compute_dtype(input.dtype()), "[", op,
              "] expected ", what, " to have the input's dtype ", input.dtype(),
              (compute_dtype(input.dtype()) != input.dtype() ? " (or float32)" : ""), ", got ",
              p->dtype());
}

Tensor defined_or_empty(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

// A flat contiguous copy (or the tensor itself) in dtype `dt`, for the kernels.
Tensor flat(const Tensor& t, DType dt) {
  if (!t.defined()) return t;
  return reshape(contiguous(t.to(dt)), {t.numel()});
}

// The shape (1, C, 1, ...) of a per-channel tensor broadcast against an input of `ndim` dims.
DimVector channel_shape(int64_t C, int64_t ndim) {
  DimVector s(size_t(ndim), 1);
  s[1] = C;
  return s;
}

// The dims of an `ndim`-dim tensor outside [from, to).
DimVector dims_except(int64_t ndim, int64_t from, int64_t to) {
  DimVector d;
  for (int64_t i = 0; i < ndim; ++i)
    if (i < from || i >= to) d.push_back(i);
  return d;
}

// rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) over `dims`: the gradient of a normalisation
// whose statistics depend on x, written with differentiable ops.
Tensor normalised_input_grad(const Tensor& gw,
                             const Tensor& xhat,
                             const Tensor& rstd,
                             IntArrayRef dims) {
  return rstd * (gw - mean(gw, dims, true) - xhat * mean(gw * xhat, dims, true));
}

// layer_norm's and rms_norm's shape rules: a non-empty normalized_shape that ends the input's
// shape, and parameters of that shape.
void check_normalized_shape(const Tensor& input,
                            IntArrayRef normalized_shape,
                            const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias,
                            const char* op) {
  const int64_t k = int64_t(normalized_shape.size()), nd = input.dim();
  EMBER_CHECK(k >= 1, "[", op,
              "] Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
              "least one element, but got normalized_shape = ",
              normalized_shape);
  for (const auto* p : {&weight, &bias}) {
    EMBER_CHECK(!*p || (*p)->sizes() == normalized_shape, "[", op, "] Expected ",
                p == &weight ? "weight" : "bias",
                " to be of same shape as normalized_shape, but got ",
                p == &weight ? "weight" : "bias", " of shape ", (*p)->sizes(),
                " and normalized_shape = ", normalized_shape);
  }
  EMBER_CHECK(
      nd >= k && input.sizes().slice(size_t(nd - k), size_t(k)) == normalized_shape, "[", op,
      "] Given normalized_shape=", normalized_shape, ", expected input with shape [*",
      [&] {
        std::ostringstream os;
        for (int64_t s : normalized_shape) os << ", " << s;
        return os.str();
      }(),
      "], but got input of size ", input.sizes());
}

// ---- batch norm ---------------------------------------------------------------------------------

struct BatchNormSaved {
  Tensor mean, invstd;  // [C] in the compute dtype: the batch's, or the running ones (eval)
  bool train = true;
  MemoryFormat format = MemoryFormat::Contiguous;  // the input's layout, kept by the output
  double eps = 0;
};

TensorList batch_norm_backward(const Tensor& g,
                               const Tensor& x,
                               const Tensor& w,
                               const BatchNormSaved& s,
                               bool need_x,
                               bool need_w,
                               bool need_b) {
  const int64_t C = x.sizes()[1], nd = x.dim();
  TensorList r(3);
  if (GradMode::is_enabled()) {
    // Note [Norm backward and double backward].
    const DimVector dims = dims_except(nd, 1, 2);
    const DimVector cs = channel_shape(C, nd);
    Tensor xhat, invstd;
    if (s.train) {
      const Tensor xmu = x - mean(x, dims, true);
      invstd = rsqrt(mean(xmu * xmu, dims, true) + s.eps);
      xhat = xmu * invstd;
    } else {
      invstd = reshape(s.invstd.to(x.dtype()), cs);
      xhat = (x - reshape(s.mean.to(x.dtype()), cs)) * invstd;
    }
    if (need_x) {
      const Tensor gw = w.defined() ? g * reshape(w, cs) : g;
      r[0] = s.train ? normalised_input_grad(gw, xhat, invstd, dims) : gw * invstd;
    }
    if (need_w) r[1] = sum(g * xhat, dims);
    if (need_b) r[2] = sum(g, dims);
    return r;
  }
  const DType cd = compute_dtype(x.dtype());
  const Tensor xc = x.to(cd).contiguous(s.format);
  const Tensor gc = g.to(cd).contiguous(s.format);
  Tensor dx, dw, db;
  if (need_x) dx = empty(x.sizes(), TensorOptions(cd).device(x.device()), s.format);
  if (need_w) dw = empty({C}, TensorOptions(cd).device(x.device()));
  if (need_b) db = empty({C}, TensorOptions(cd).device(x.device()));
  norm_kernels(x, "batch_norm")
      .batch_norm_backward(dx, dw, db, gc, xc, s.mean, s.invstd, flat(w, cd), s.train);
  if (need_x) r[0] = dx.to(x.dtype());
  r[1] = dw;
  r[2] = db;
  return r;
}

// A running stat the kernel can update in place: itself, or a compute-dtype copy to copy back.
Tensor running_for_kernel(const std::optional<Tensor>& r, DType cd) {
  if (!r) return Tensor();
  if (r->dtype() == cd && r->is_contiguous()) return reshape(*r, {r->numel()});
  return flat(*r, cd).clone();
}

void write_back(const std::optional<Tensor>& r, const Tensor& k) {
  if (!r) return;
  if (k.storage().get() == r->storage().get()) {
    r->storage()->bump_version();  // updated in place by the kernel
    return;
  }
  Tensor dst = *r;
  dst.copy_(reshape(k, r->sizes()));
}

}  // namespace

std::span<const OpInfo> nn_norm_op_infos() { return kNormOps; }

Tensor batch_norm(const Tensor& input,
                  const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var,
                  bool training,
                  double momentum,
                  double eps) {
  const char* op = "batch_norm";
  EMBER_CHECK_INDEX(input.dim() >= 2,
                    "[batch_norm] expected an input of at least 2 dims (N, C, *), got ",
                    input.dim(), " dims");
  check_floating_input(input, op);
  const int64_t C = input.sizes()[1];
  check_param(weight, "weight", C, input, op);
  check_param(bias, "bias", C, input, op);
  check_param(running_mean, "running_mean", C, input, op);
  check_param(running_var, "running_var", C, input, op);
  EMBER_CHECK_VALUE(running_mean.has_value() == running_var.has_value(),
                    "[batch_norm] running_mean and running_var must either both be None or neither "
                    "be None");
  EMBER_CHECK(training || running_mean,
              "[batch_norm] running_mean must be defined in evaluation mode");
  const DType cd = compute_dtype(input.dtype());
  // Channels-last input: the kernel's rows layout, and a channels-last output (as PyTorch).
  const MemoryFormat fmt = input.suggest_memory_format();
  BatchNormSaved s;
  s.train = training;
  s.format = fmt;
  s.eps = eps;
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor x = input.to(cd).contiguous(fmt);
    const Tensor w = flat(defined_or_empty(weight), cd), b = flat(defined_or_empty(bias), cd);
    Tensor y = empty(x.sizes(), TensorOptions(cd).device(x.device()), fmt);
    const NormKernels& k = norm_kernels(input, op);
    const TensorOptions o = TensorOptions(cd).device(x.device());
    if (training) {
      s.mean = empty({C}, o);
      s.invstd = empty({C}, o);
      const Tensor rm = running_for_kernel(running_mean, cd),
                   rv = running_for_kernel(running_var, cd);
      k.batch_norm_train(y, s.mean, s.invstd, x, w, b, rm, rv, momentum, eps);
      write_back(running_mean, rm);
      write_back(running_var, rv);
    } else {
      // Saved as copies: a later training step may update the running stats before backward.
      s.mean = flat(*running_mean, cd).clone();
      const Tensor var = flat(*running_var, cd);
      s.invstd = rsqrt(var + eps);
      k.batch_norm_eval(y, x, s.mean, var, w, b, eps);
    }
    out = y.to(input.dtype());
  }
  const Tensor wt = defined_or_empty(weight), bt = defined_or_empty(bias);
  if (any_requires_grad({&input, &wt, &bt})) {
    record("NativeBatchNormBackward0", {&input, &wt, &bt}, {&out},
           [sx = SavedTensor(input), sw = wt.defined() ? SavedTensor(wt) : SavedTensor(), s](
               TensorList& g, Node& n) {
             const Tensor x = sx.unpack(n);
             const Tensor w = sw.defined() ? sw.unpack(n) : Tensor();
             const auto& e = n.next_edges();
             return batch_norm_backward(g[0], x, w, s, e[0].valid(), e[1].valid(), e[2].valid());
           });
  }
  return out;
}

Tensor instance_norm(const Tensor& input,
                     const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias,
                     const std::optional<Tensor>& running_mean,
                     const std::optional<Tensor>& running_var,
                     bool use_input_stats,
                     double momentum,
                     double eps) {
  EMBER_CHECK_INDEX(input.dim() >= 2,
                    "[instance_norm] expected an input of at least 2 dims (N, C, *), got ",
                    input.dim(), " dims");
  EMBER_CHECK(use_input_stats || (running_mean && running_var),
              "[instance_norm] Expected running_mean and running_var to be defined when "
              "use_input_stats is false");
  check_floating_input(input, "instance_norm");
  // batch_norm over (1, N * C, *): the parameters and running stats repeated per sample.
  const int64_t N = input.sizes()[0], C = input.sizes()[1];
  DimVector shape(input.sizes().data(), input.sizes().size());
  shape[0] = 1;
  shape[1] = N * C;
  auto repeated = [&](const std::optional<Tensor>& t) -> std::optional<Tensor> {
    if (!t) return std::nullopt;
    return repeat(reshape(*t, {t->numel()}), {N});
  };
  const std::optional<Tensor> rm = repeated(running_mean), rv = repeated(running_var);
  const Tensor out = batch_norm(reshape(input, shape), repeated(weight), repeated(bias), rm, rv,
                                use_input_stats, momentum, eps);
  if (use_input_stats && running_mean) {
    NoGradGuard no_grad;
    Tensor m = *running_mean, v = *running_var;
    m.copy_(reshape(mean(reshape(*rm, {N, C}), {0}), m.sizes()));
    v.copy_(reshape(mean(reshape(*rv, {N, C}), {0}), v.sizes()));
  }
  return reshape(out, input.sizes());
}

// ---- layer norm ---------------------------------------------------------------------------------

Tensor layer_norm(const Tensor& input,
                  IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias,
                  double eps) {
  const char* op = "layer_norm";
  const int64_t k = int64_t(normalized_shape.size());
  check_normalized_shape(input, normalized_shape, weight, bias, op);
  check_floating_input(input, op);
  int64_t n = 1;
  for (int64_t s : normalized_shape) n *= s;
  check_param(weight, "weight", n, input, op);
  check_param(bias, "bias", n, input, op);
  const DType cd = compute_dtype(input.dtype());
  const int64_t M = n > 0 ? input.numel() / n : 0;
  Tensor out, mu, rstd;
  {
    NoGradGuard no_grad;
    const Tensor x = contiguous(input.to(cd));
    const TensorOptions o = TensorOptions(cd).device(x.device());
    Tensor y = empty(x.sizes(), o);
    mu = empty({M}, o);
    rstd = empty({M}, o);
    norm_kernels(input, op).layer_norm(y, mu, rstd, x, flat(defined_or_empty(weight), cd),
                                       flat(defined_or_empty(bias), cd), n, eps);
    out = y.to(input.dtype());
  }
  const Tensor wt = defined_or_empty(weight), bt = defined_or_empty(bias);
  if (any_requires_grad({&input, &wt, &bt})) {
    record("NativeLayerNormBackward0", {&input, &wt, &bt}, {&out},
           [sx = SavedTensor(input), sw = wt.defined() ? SavedTensor(wt) : SavedTensor(), mu, rstd,
            k, n, eps](TensorList& g, Node& node) {
             const Tensor x = sx.unpack(node), w = sw.defined() ? sw.unpack(node) : Tensor();
             const auto& e = node.next_edges();
             const int64_t nd = x.dim();
             TensorList r(3);
             if (GradMode::is_enabled()) {  // Note [Norm backward and double backward]
               const DimVector dims = dims_except(nd, 0, nd - k),
                               lead = dims_except(nd, nd - k, nd);
               const Tensor xmu = x - mean(x, dims, true);
               const Tensor rs = rsqrt(mean(xmu * xmu, dims, true) + eps);
               const Tensor xhat = xmu * rs;
               if (e[0].valid())
                 r[0] = normalised_input_grad(w.defined() ? g[0] * w : g[0], xhat, rs, dims);
               const Tensor gx = g[0] * xhat;
               if (e[1].valid()) r[1] = lead.empty() ? gx : sum(gx, lead);
               if (e[2].valid()) r[2] = lead.empty() ? g[0] : sum(g[0], lead);
               return r;
             }
             const DType cd = compute_dtype(x.dtype());
             const TensorOptions o = TensorOptions(cd).device(x.device());
             const Tensor xc = contiguous(x.to(cd)), gc = contiguous(g[0].to(cd));
             Tensor dx, dw, db;
             if (e[0].valid()) dx = empty(x.sizes(), o);
             if (e[1].valid()) dw = empty(w.sizes(), o);
             if (e[2].valid())
               db = empty(w.defined() ? w.sizes() : x.sizes().slice(size_t(nd - k), size_t(k)), o);
             norm_kernels(x, "layer_norm")
                 .layer_norm_backward(dx, dw, db, gc, xc, mu, rstd, flat(w, cd), n);
             r[0] = dx;
             r[1] = dw;
             r[2] = db;
             return r;
           });
  }
  return out;
}

Tensor rms_norm(const Tensor& input,
                IntArrayRef normalized_shape,
                const std::optional<Tensor>& weight,
                std::optional<double> eps) {
  check_normalized_shape(input, normalized_shape, weight, std::nullopt, "rms_norm");
  check_floating_input(input, "rms_norm");
  // PyTorch's composite: in the op-math type, eps defaulting to its machine epsilon; the result
  // in the input's dtype.
  const DType cd = compute_dtype(input.dtype());
  const double e = eps ? *eps
                       : (cd == kFloat64 ? std::numeric_limits<double>::epsilon()
                                         : double(std::numeric_limits<float>::epsilon()));
  const int64_t nd = input.dim(), k = int64_t(normalized_shape.size());
  const DimVector dims = dims_except(nd, 0, nd - k);
  const Tensor x = input.to(cd);
  Tensor r = x * rsqrt(mean(x * x, dims, true) + e);
  if (weight) r = r * *weight;
  return r.to(input.dtype());
}

// ---- group norm ---------------------------------------------------------------------------------

Tensor group_norm(const Tensor& input,
                  int64_t num_groups,
                  const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias,
                  double eps) {
  const char* op = "group_norm";
  EMBER_CHECK_INDEX(input.dim() >= 2,
                    "[group_norm] expected an input of at least 2 dims (N, C, *), got ",
                    input.dim(), " dims");
  const int64_t N = input.sizes()[0], C = input.sizes()[1], G = num_groups, nd = input.dim();
  EMBER_CHECK(G > 0, "[group_norm] Expected num groups to be greater than 0, got ", G);
  EMBER_CHECK(C % G == 0,
              "[group_norm] Expected number of channels in input to be divisible by num_groups, "
              "but got input of shape ",
              input.sizes(), " and num_groups=", G);
  for (const auto* p : {&weight, &bias}) {
    EMBER_CHECK(!*p || ((*p)->dim() == 1 && (*p)->numel() == C), "[group_norm] Expected ",
                p == &weight ? "weight" : "bias",
                " to be a vector of size equal to the number of channels in input, but got ",
                p == &weight ? "weight" : "bias", " of shape ", (*p)->sizes(),
                " and input of shape ", input.sizes());
  }
  check_floating_input(input, op);
  check_param(weight, "weight", C, input, op);
  check_param(bias, "bias", C, input, op);
  const DType cd = compute_dtype(input.dtype());
  const MemoryFormat fmt = input.suggest_memory_format();
  Tensor out, mu, rstd;
  {
    NoGradGuard no_grad;
    const Tensor x = contiguous(input.to(cd));
    const TensorOptions o = TensorOptions(cd).device(x.device());
    Tensor y = empty(x.sizes(), o);
    mu = empty({N, G}, o);
    rstd = empty({N, G}, o);
    norm_kernels(input, op).group_norm(y, mu, rstd, x, flat(defined_or_empty(weight), cd),
                                       flat(defined_or_empty(bias), cd), G, eps);
    // The kernel is planar; a channels-last input gets its layout back, as in PyTorch.
    out = y.to(input.dtype()).contiguous(fmt);
  }
  const Tensor wt = defined_or_empty(weight), bt = defined_or_empty(bias);
  if (any_requires_grad({&input, &wt, &bt})) {
    record("NativeGroupNormBackward0", {&input, &wt, &bt}, {&out},
           [sx = SavedTensor(input), sw = wt.defined() ? SavedTensor(wt) : SavedTensor(), mu, rstd,
            N, C, G, nd, fmt, eps](TensorList& g, Node& node) {
             const Tensor x = sx.unpack(node), w = sw.defined() ? sw.unpack(node) : Tensor();
             const auto& e = node.next_edges();
             TensorList r(3);
             const DimVector cdims = dims_except(nd, 1, 2);
             if (GradMode::is_enabled()) {  // Note [Norm backward and double backward]
               const Tensor xr = reshape(x, {N, G, -1});
               const Tensor xmu = xr - mean(xr, {2}, true);
               const Tensor rs = rsqrt(mean(xmu * xmu, {2}, true) + eps);
               const Tensor xhat_r = xmu * rs;
               const Tensor xhat = reshape(xhat_r, x.sizes());
               if (e[0].valid()) {
                 const Tensor gw = w.defined() ? g[0] * reshape(w, channel_shape(C, nd)) : g[0];
                 r[0] = reshape(normalised_input_grad(reshape(gw, {N, G, -1}), xhat_r, rs, {2}),
                                x.sizes());
               }
               if (e[1].valid()) r[1] = sum(g[0] * xhat, cdims);
               if (e[2].valid()) r[2] = sum(g[0], cdims);
               return r;
             }
             const DType cd = compute_dtype(x.dtype());
             const TensorOptions o = TensorOptions(cd).device(x.device());
             const Tensor xc = contiguous(x.to(cd)), gc = contiguous(g[0].to(cd));
             Tensor dx, dw, db;
             if (e[0].valid()) dx = empty(x.sizes(), o);
             if (e[1].valid()) dw = empty({C}, o);
             if (e[2].valid()) db = empty({C}, o);
             norm_kernels(x, "group_norm")
                 .group_norm_backward(dx, dw, db, gc, xc, mu, rstd, flat(w, cd), G);
             if (dx.defined()) r[0] = dx.contiguous(fmt);
             r[1] = dw;
             r[2] = db;
             return r;
           });
  }
  return out;
}

// ---- composites ---------------------------------------------------------------------------------

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK_VALUE(input.dim() >= 3,
                    "[local_response_norm] Expected 3D or higher dimensionality input (got ",
                    input.dim(), " dimensions)");
  EMBER_CHECK(size > 0, "[local_response_norm] expected size to be greater than zero, got ", size);
  check_floating_input(input, "local_response_norm");
  if (input.numel() == 0) return input;
  // PyTorch: avg_pool of x^2 over `size` channels (count_include_pad), zero padded by size / 2
  // before and (size - 1) / 2 after: the window sum divided by size.
  const int64_t C = input.sizes()[1];
  DimVector pads(size_t(2 * (input.dim() - 1)), 0);
  pads[pads.size() - 2] = size / 2;
  pads[pads.size() - 1] = (size - 1) / 2;
  const Tensor sq = pad(input * input, pads);
  Tensor acc = narrow(sq, 1, 0, C);
  for (int64_t j = 1; j < size; ++j) acc = acc + narrow(sq, 1, j, C);
  const Tensor div = pow(acc * (alpha / double(size)) + k, beta);
  return input / div;
}

Tensor normalize(const Tensor& input, double p, IntArrayRef dim, double eps) {
  check_floating_input(input, "normalize");
  const Tensor norm = linalg_vector_norm(input, p, dim, true);
  return input / clamp(norm, Scalar(eps), std::nullopt);
}

}  // namespace ember
