// Reductions built from the primitive ones: nansum, count_nonzero, var / std (and with the mean),
// logsumexp, vector and matrix norms. No kernels and, except for the norms, no backward of their
// own: the gradient is the chain of their parts'.
#include <cmath>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/linalg_factor.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/statistics.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kStatisticsOps[] = {
    {"nansum", OpKind::Reduction, kAllTypes, true},
    {"count_nonzero", OpKind::Reduction, kAllTypesAndComplex, false},
    {"var", OpKind::Reduction, kFloatingTypes, true},
    {"std", OpKind::Reduction, kFloatingTypes, true},
    {"var_mean", OpKind::Reduction, kFloatingTypes, true},
    {"std_mean", OpKind::Reduction, kFloatingTypes, true},
    {"logsumexp", OpKind::Reduction, kAllTypes, true},
    {"linalg.vector_norm", OpKind::Reduction, kFloatingTypes | kComplexTypes, true},
    {"linalg.matrix_norm", OpKind::Reduction, kFloatingTypes | kComplexTypes, true},
    {"norm", OpKind::Reduction, kFloatingTypes | kComplexTypes, true},
};

// The dims as a list, every dim when empty (after wrapping).
DimVector all_dims_if_empty(IntArrayRef dim, int64_t ndim, const char* op) {
  DimVector out;
  if (dim.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
  } else {
    for (int64_t d : dim)
      out.push_back(ndim == 0 ? (wrap_dim(d, 0, op), 0) : wrap_dim(d, ndim, op));
  }
  return out;
}

int64_t count_over(const Tensor& t, IntArrayRef dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= t.dim() ? t.sizes()[d] : 1;
  return n;
}

void check_floating(const Tensor& t, const char* op) {
  EMBER_CHECK_TYPE(is_floating(t.dtype()), "[", op, "] only supports floating-point dtypes, got ",
                   t.dtype());
}

// The norms take complex tensors too (of their absolute values; the result is real).
void check_floating_or_complex(const Tensor& t, const char* op) {
  EMBER_CHECK_TYPE(is_floating(t.dtype()) || is_complex(t.dtype()), "[", op,
                   "] only supports floating-point and complex dtypes, got ", t.dtype());
}

// sum((x - mean)^2) / (N - correction): two passes, so no cancellation from a large mean.
std::pair<Tensor, Tensor> var_and_mean(const Tensor& self,
                                       const std::optional<DimVector>& dim,
                                       double correction,
                                       bool keepdim,
                                       const char* op) {
  check_floating(self, op);
  if (self.dtype() == kFloat16 || self.dtype() == kBFloat16) {
    // 16-bit floats are computed in float32, as PyTorch does: the mean and the squares need
    // more precision than the result.
    auto [v, m] = var_and_mean(self.to(kFloat32), dim, correction, keepdim, op);
    return {v.to(self.dtype()), m.to(self.dtype())};
  }
  const DimVector dims = all_dims_if_empty(dim ? IntArrayRef(*dim) : IntArrayRef(), self.dim(), op);
  const Tensor mu = dims.empty() ? self : mean(self, dims, true);
  const Tensor d = self - mu;
  const Tensor ss = dims.empty() ? d * d : sum(d * d, dims, keepdim);
  const double n = double(count_over(self, dims));
  // N <= correction divides by zero (inf or nan), as in PyTorch.
  const Tensor var = ss / std::max(0.0, n - correction);
  Tensor m = mu;
  if (!keepdim && !dims.empty()) m = reshape(mu, var.sizes());
  return {var, m};
}

}  // namespace

std::span<const OpInfo> statistics_op_infos() { return kStatisticsOps; }

Tensor nansum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  EMBER_CHECK_TYPE(!is_complex(self.dtype()), "[nansum] does not support complex inputs");
  const Tensor x = is_floating(self.dtype()) ? where(isnan(self), Scalar(0), self) : self;
  if (dim.empty())
    return keepdim ? sum(x, all_dims_if_empty({}, x.dim(), "nansum"), true, dtype) : sum(x, dtype);
  return sum(x, dim, keepdim, dtype);
}

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  NoGradGuard no_grad;
  const Tensor nz = ne(self, 0);
  return dim.empty() ? sum(nz) : sum(nz, dim, false);
}

Tensor var(const Tensor& self, std::optional<DimVector> dim, double correction, bool keepdim) {
  return var_and_mean(self, dim, correction, keepdim, "var").first;
}

Tensor std(const Tensor& self, std::optional<DimVector> dim, double correction, bool keepdim) {
  return sqrt(var_and_mean(self, dim, correction, keepdim, "std").first);
}

std::pair<Tensor, Tensor> var_mean(const Tensor& self,
                                   std::optional<DimVector> dim,
                                   double correction,
                                   bool keepdim) {
  return var_and_mean(self, dim, correction, keepdim, "var_mean");
}

std::pair<Tensor, Tensor> std_mean(const Tensor& self,
                                   std::optional<DimVector> dim,
                                   double correction,
                                   bool keepdim) {
  auto [v, m] = var_and_mean(self, dim, correction, keepdim, "std_mean");
  return {sqrt(v), m};
}

Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK_TYPE(!is_complex(self.dtype()), "[logsumexp] not implemented for dtype ",
                   self.dtype());
  const Tensor x = is_floating(self.dtype()) ? self : self.to(get_default_dtype());
  const DimVector dims = all_dims_if_empty(dim, x.dim(), "logsumexp");
  if (x.numel() == 0) return log(sum(exp(x), dims, keepdim));  // -inf over nothing
  // Shift by the max (a constant for autograd: the gradient of the result is softmax either
  // way); an infinite max would make inf - inf, so those slices are not shifted.
  Tensor m;
  {
    NoGradGuard no_grad;
    m = amax(x, dims, true);
    m = where(isinf(m), Scalar(0), m);
  }
  Tensor out = log(sum(exp(x - m), dims, true)) + m;
  if (!keepdim) out = reshape(out, sum(m, dims, false).sizes());
  return out;
}

Tensor linalg_vector_norm(
    const Tensor& self, double ord, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  const Tensor x = dtype ? self.to(*dtype) : self;
  check_floating_or_complex(x, "linalg.vector_norm");
  const DimVector dims = all_dims_if_empty(dim, x.dim(), "linalg.vector_norm");
  if (std::isinf(ord)) {
    EMBER_CHECK(x.numel() > 0 || ord > 0,
                "[linalg.vector_norm] Expected a non-empty tensor for ord ", ord);
    if (x.numel() == 0) return sum(abs(x), dims, keepdim);  // 0 over nothing
    return ord > 0 ? amax(abs(x), dims, keepdim) : amin(abs(x), dims, keepdim);
  }
  if (ord == 0) return sum(ne(x, 0).to(to_real_dtype(x.dtype())), dims, keepdim);
  if (ord == 1) return sum(abs(x), dims, keepdim);
  // sum(|x|^p)^(1/p), computed without a graph; the gradient is written directly so that it is 0
  // (not NaN) where the norm is 0.
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor a = abs(x);
    out = ord == 2 ? sqrt(sum(a * a, dims, keepdim))
                   : pow(sum(pow(a, ord), dims, keepdim), 1.0 / ord);
  }
  if (any_requires_grad(x)) {
    record("LinalgVectorNormBackward0", {&x}, {&out},
           [sx = SavedTensor(x), so = SavedTensor(out, 0), ord, dims, keepdim,
            sizes = DimVector(x.sizes().data(), x.dim())](TensorList& g, Node& n) {
             const Tensor xv = sx.unpack(n);
             Tensor nrm = so.unpack(n), grad = g[0];
             if (!keepdim) {
               DimVector kshape = sizes;
               for (int64_t d : dims) kshape[size_t(d)] = 1;
               nrm = reshape(nrm, kshape);
               grad = reshape(grad, kshape);
             }
             // d/dx ||x||_p = sgn(x) |x|^(p-1) / ||x||^(p-1), sgn(x) = x / |x| for complex x.
             const Tensor scale = where(eq(nrm, 0), Scalar(0), grad / pow(nrm, ord - 1));
             const Tensor dx = ord == 2 ? xv * scale : sgn(xv) * pow(abs(xv), ord - 1) * scale;
             return TensorList{dx};
           });
  }
  return out;
}

namespace {
// The two matrix dims, distinct and wrapped.
std::pair<int64_t, int64_t> matrix_dims(const Tensor& self, IntArrayRef dim) {
  EMBER_CHECK(self.dim() >= 2, "[linalg.matrix_norm] expected a tensor with 2 or more dims, got ",
              self.dim());
  EMBER_CHECK(dim.size() == 2, "[linalg.matrix_norm] dim must be a 2-tuple, got ", dim);
  const int64_t r = wrap_dim(dim[0], self.dim(), "linalg.matrix_norm");
  const int64_t c = wrap_dim(dim[1], self.dim(), "linalg.matrix_norm");
  EMBER_CHECK(r != c, "[linalg.matrix_norm] dims must be different, got ", dim);
  return {r, c};
}

// The norms of the singular values: 'nuc' their sum, 2 the largest, -2 the smallest.
Tensor spectral_norm(const Tensor& self, int64_t r, int64_t c, int kind, bool keepdim) {
  DimVector order;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d != r && d != c) order.push_back(d);
  }
  order.push_back(r);
  order.push_back(c);
  const Tensor S = linalg_svdvals(permute(self, order));
  Tensor out = kind == 0 ? sum(S, {-1}) : kind > 0 ? amax(S, {-1}) : amin(S, {-1});
  if (keepdim) out = unsqueeze(unsqueeze(out, std::min(r, c)), std::max(r, c));
  return out;
}
}  // namespace

Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim) {
  check_floating_or_complex(self, "linalg.matrix_norm");
  auto [r, c] = matrix_dims(self, dim);
  if (ord == "fro") return linalg_vector_norm(self, 2, {r, c}, keepdim);
  EMBER_CHECK(ord == "nuc", "[linalg.matrix_norm] Order ", ord,
              " not supported (supported: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2)");
  return spectral_norm(self, r, c, 0, keepdim);
}

Tensor linalg_matrix_norm(const Tensor& self, double ord, IntArrayRef dim, bool keepdim) {
  check_floating_or_complex(self, "linalg.matrix_norm");
  auto [r, c] = matrix_dims(self, dim);
  if (std::abs(ord) == 2) return spectral_norm(self, r, c, ord > 0 ? 1 : -1, keepdim);
  EMBER_CHECK_VALUE(std::isinf(ord) || std::abs(ord) == 1, "[linalg.matrix_norm] Order ", ord,
                    " not supported (supported: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2)");
  // ord 1: the largest absolute column sum (sum over rows); inf: the largest row sum.
  const int64_t summed = std::isinf(ord) ? c : r, kept = std::isinf(ord) ? r : c;
  Tensor sums = sum(abs(self), {summed}, true);
  Tensor out = ord > 0 ? amax(sums, {kept}, true) : amin(sums, {kept}, true);
  if (!keepdim) out = squeeze(squeeze(out, std::max(r, c)), std::min(r, c));
  return out;
}

}  // namespace ember
