// Scans along one dim: cumsum, cumprod, logcumsumexp (the scan kernel) and cummax, cummin (the
// cum_extreme kernel), with their gradients.
#include "ember/ops/scan.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kScanOps[] = {
    {"cumsum", OpKind::Other, kAllTypes, true},
    {"cumprod", OpKind::Other, kAllTypes, true},
    // self.cumsum_(dim) and self.cumprod_(dim): the scan written into self, in self's dtype (the
    // Tensor methods are made from these records in ember/_tensor.py).
    {"cumsum_", OpKind::Inplace, kAllTypes, true},
    {"cumprod_", OpKind::Inplace, kAllTypes, true},
    {"cummax", OpKind::Other, kAllTypes, true},
    {"cummin", OpKind::Other, kAllTypes, true},
    {"logcumsumexp", OpKind::Other, kFloatingTypes, true},
};

TensorOptions like(const Tensor& t, DType dtype) { return TensorOptions(dtype).device(t.device()); }

// dim wrapped for self (a 0-d tensor takes 0 and -1, as one dim of size 1).
int64_t wrap(int64_t dim, const Tensor& self, const char* op) {
  return self.dim() == 0 ? (wrap_dim(dim, 0, op), 0) : wrap_dim(dim, self.dim(), op);
}

Tensor reverse_cumsum(const Tensor& t, int64_t d) { return flip(cumsum(flip(t, {d}), d), {d}); }

// The gradient of y = cumprod(x) along d for the incoming g, exact whatever the zeros (PyTorch's
// cumprod_backward, without division by zero):
//   before the first zero z of a line:  sum_{j>=k} g_j y_j / x_k
//   at z:       G(x1)_z, with x1 = x where x_z is replaced by 1 (x_z is not a factor there)
//   after z:    x_z * G(x1)_k in grad mode (exact derivatives of every order, recursing once per
//               zero of a line), 0 otherwise (x_z = 0 is a factor of every term).
Tensor cumprod_grad(const Tensor& x, const Tensor& g, const Tensor& y, int64_t d) {
  if (x.dim() == 0 || x.sizes()[d] <= 1 || x.numel() == 0) return g;  // y = x
  const Tensor is_zero = eq(x, 0);
  bool has_zero;
  {
    NoGradGuard no_grad;
    has_zero = any(is_zero).item().to_bool();
  }
  if (!has_zero) return reverse_cumsum(g * y, d) / x;
  const Tensor zeros_so_far = cumsum(is_zero, d);
  const Tensor before = eq(zeros_so_far, 0);
  const Tensor first = logical_and(is_zero, eq(zeros_so_far, 1));
  const Tensor x1 = where(first, Scalar(1), x);
  const Tensor y1 = cumprod(x1, d);
  const Tensor head = reverse_cumsum(g * y, d) / where(before, x, Scalar(1));
  Tensor tail;
  if (GradMode::is_enabled()) {
    const Tensor g1 = cumprod_grad(x1, g, y1, d);
    const Tensor xz = sum(where(first, x, Scalar(0)), {d}, true);  // 0, with its derivative
    tail = where(first, g1, xz * g1);
  } else {
    tail = where(first, reverse_cumsum(g * y1, d), Scalar(0));
  }
  return where(before, head, tail);
}

Tensor scan_impl(
    ScanOp op, const Tensor& self, int64_t dim, std::optional<DType> dtype, const char* name) {
  const int64_t d = wrap(dim, self, name);
  EMBER_CHECK_TYPE(!is_complex(self.dtype()) && !(dtype && is_complex(*dtype)), "[", name,
                   "] not implemented for dtype ", dtype.value_or(self.dtype()));
  // Integers and bool accumulate in int64 unless a dtype is given.
  const DType dt = dtype ? *dtype : is_floating(self.dtype()) ? self.dtype() : kInt64;
  const Tensor in = self.dtype() == dt ? self : to_dtype(self, dt);
  Tensor out = empty(in.sizes(), like(in, dt));
  kernel(kernels(in.device()).scan.scan, in.device(), name)(op, out, in, d);
  if (!any_requires_grad(in) || !is_floating(dt)) return out;
  if (op == ScanOp::Sum) {
    record("CumsumBackward0", {&in}, {&out}, [d, zero_d = in.dim() == 0](TensorList& g, Node&) {
      return TensorList{zero_d ? g[0] : reverse_cumsum(g[0], d)};
    });
  } else if (op == ScanOp::Prod) {
    record("CumprodBackward0", {&in}, {&out},
           [d, sx = SavedTensor(in), so = SavedTensor(out, 0)](TensorList& g, Node& n) {
             return TensorList{cumprod_grad(sx.unpack(n), g[0], so.unpack(n), d)};
           });
  } else {
    record("LogcumsumexpBackward0", {&in}, {&out},
           [d, sx = SavedTensor(in), so = SavedTensor(out, 0)](TensorList& g, Node& n) {
             const Tensor x = sx.unpack(n);
             const Tensor out = so.unpack(n);
             const Tensor& grad = g[0];
             if (x.dim() == 0 || x.numel() == 0) return TensorList{grad};
             // PyTorch's formula: positive and negative parts of g separately, in log space:
             // grad_k = sum_{j>=k} g_j exp(x_k - out_j).
             double lowest = std::numeric_limits<double>::lowest();
             if (x.dtype() == kFloat32 || x.dtype() == kBFloat16)
               lowest = std::numeric_limits<float>::lowest();
             if (x.dtype() == kFloat16) lowest = -65504.0;
             auto reverse_lcse = [d](const Tensor& t) {
               return flip(logcumsumexp(flip(t, {d}), d), {d});
             };
             const Tensor log_abs = log(abs(grad));
             const Tensor pos = where(gt(grad, 0), log_abs, Scalar(lowest));
             const Tensor neg = where(lt(grad, 0), log_abs, Scalar(lowest));
             return TensorList{exp(reverse_lcse(pos - out) + x) - exp(reverse_lcse(neg - out) + x)};
           });
  }
  return out;
}

std::pair<Tensor, Tensor> cum_extreme(
    const Tensor& self, int64_t dim, ReduceOp op, const char* name, const char* backward) {
  const int64_t d = wrap(dim, self, name);
  Tensor values = empty(self.sizes(), like(self, self.dtype()));
  Tensor indices = empty(self.sizes(), like(self, kInt64));
  kernel(kernels(self.device()).scan.cum_extreme, self.device(), name)(op, values, indices, self,
                                                                       d);
  if (any_requires_grad(self)) {
    // Each value is the input element its index names: the gradient goes back there, summed
    // where an index repeats.
    record(backward, {&self}, {&values},
           [sizes = DimVector(self.sizes().data(), self.sizes().size()), d,
            si = SavedTensor(indices)](TensorList& g, Node& n) {
             if (sizes.empty()) return TensorList{g[0]};  // 0-d: the value is the input
             const Tensor zero = zeros(sizes, TensorOptions(g[0].dtype()).device(g[0].device()));
             return TensorList{scatter_add(zero, d, si.unpack(n), g[0])};
           });
  }
  return {values, indices};
}

}  // namespace

std::span<const OpInfo> scan_op_infos() { return kScanOps; }

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan_impl(ScanOp::Sum, self, dim, dtype, "cumsum");
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return scan_impl(ScanOp::Prod, self, dim, dtype, "cumprod");
}
Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  EMBER_CHECK_TYPE(is_floating(self.dtype()),
                   "[logcumsumexp] expected a floating point tensor, got ", self.dtype());
  return scan_impl(ScanOp::LogSumExp, self, dim, std::nullopt, "logcumsumexp");
}

std::pair<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  return cum_extreme(self, dim, ReduceOp::Max, "cummax", "CummaxBackward0");
}
std::pair<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  return cum_extreme(self, dim, ReduceOp::Min, "cummin", "CumminBackward0");
}

}  // namespace ember
