// Sorting and selection (declarations and contracts in sort.h). sort, topk and the selections
// (kthvalue, median, nanmedian) call a kernel and record their backward; argsort and unique are
// built from sort.
#include "ember/ops/sort.h"

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
#include "ember/ops/scan.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kSortOps[] = {
    {"sort", OpKind::Other, kAllTypes, true},
    {"argsort", OpKind::Other, kAllTypes, false},
    {"topk", OpKind::Other, kNumericTypes, true},
    {"kthvalue", OpKind::Reduction, kNumericTypes, true},
    {"median", OpKind::Reduction, kNumericTypes, true},
    {"nanmedian", OpKind::Reduction, kNumericTypes, true},
    {"unique", OpKind::Other, kAllTypes, false},
    {"unique_consecutive", OpKind::Other, kAllTypesAndComplex, false},
};

TensorOptions like(const Tensor& t, DType dtype) { return TensorOptions(dtype).device(t.device()); }

// dim wrapped for self (a 0-d tensor takes 0 and -1, as one dim of size 1).
int64_t wrap(int64_t dim, const Tensor& self, const char* op) {
  return self.dim() == 0 ? (wrap_dim(dim, 0, op), 0) : wrap_dim(dim, self.dim(), op);
}

int64_t size_at(const Tensor& t, int64_t dim) { return t.dim() ? t.sizes()[dim] : 1; }

DimVector sizes_of(const Tensor& t) { return DimVector(t.sizes().data(), t.sizes().size()); }

// Records the backward of values taken from self at `indices` along dim: the gradient goes
// back to those positions, summed where an index repeats (scatter_add, itself differentiable).
// `squeezed`: values and indices lost dim (keepdim false).
void record_taken(const char* name,
                  const Tensor& self,
                  const Tensor& values,
                  const Tensor& indices,
                  int64_t dim,
                  bool squeezed) {
  record(
      name, {&self}, {&values},
      [sizes = sizes_of(self), dim, squeezed, si = SavedTensor(indices)](TensorList& g, Node& n) {
        if (sizes.empty()) return TensorList{g[0]};  // 0-d: the value is the input
        Tensor idx = si.unpack(n);
        Tensor grad = g[0];
        if (squeezed) {
          idx = unsqueeze(idx, dim);
          grad = unsqueeze(grad, dim);
        }
        return TensorList{scatter_add(zeros(sizes, like(grad, grad.dtype())), dim, idx, grad)};
      });
}

// Outputs of a reduction along d: self's shape with d removed (or 1 when keepdim), and views
// of them with d kept, for the kernel.
struct Reduced {
  Tensor values, indices, kvalues, kindices;
};
Reduced reduced_outputs(const Tensor& self, int64_t d, bool keepdim) {
  DimVector shape = sizes_of(self);
  if (self.dim() > 0) {
    if (keepdim)
      shape[size_t(d)] = 1;
    else
      shape.erase(size_t(d));
  }
  Reduced r;
  r.values = empty(shape, like(self, self.dtype()));
  r.indices = empty(shape, like(self, kInt64));
  r.kvalues = r.values;
  r.kindices = r.indices;
  if (!keepdim && self.dim() > 0) {
    NoGradGuard no_grad;
    r.kvalues = unsqueeze(r.values, d);
    r.kindices = unsqueeze(r.indices, d);
  }
  return r;
}

std::pair<Tensor, Tensor> select_impl(SelectOp op,
                                      const Tensor& self,
                                      int64_t dim,
                                      int64_t k,
                                      bool keepdim,
                                      const char* name,
                                      const char* backward) {
  const int64_t d = wrap(dim, self, name);
  const int64_t size = size_at(self, d);
  EMBER_CHECK_INDEX(size > 0, "[", name, "] expected reduction dim ", d,
                    " to have non-zero size; the input has shape ", self.sizes());
  if (op == SelectOp::Kth) {
    EMBER_CHECK(k >= 1 && k <= size, "[", name,
                "] selected index k out of range: expected 1 <= k <= ", size, " for dim ", d,
                ", got k = ", k);
  }
  Reduced r = reduced_outputs(self, d, keepdim);
  kernel(kernels(self.device()).sort.select, self.device(), name)(op, r.kvalues, r.kindices, self,
                                                                  d, k - 1);
  if (any_requires_grad(self)) {
    record_taken(backward, self, r.values, r.indices, d, !keepdim && self.dim() > 0);
  }
  return {r.values, r.indices};
}

// median() / nanmedian() of all elements: the selection along the one dim of the flattened
// tensor (whose view records the way back to self's shape).
Tensor median_all(const Tensor& self, SelectOp op, const char* name, const char* backward) {
  if (self.numel() == 0) {
    EMBER_CHECK(is_floating(self.dtype()), "[", name,
                "] expected a non-empty tensor for an integer dtype, got shape ", self.sizes());
    return full({}, std::numeric_limits<double>::quiet_NaN(), like(self, self.dtype()));
  }
  return select_impl(op, reshape(self, {self.numel()}), 0, 0, false, name, backward).first;
}

// unique over the flattened values `vals` (sorted, or in input order for unique_consecutive):
// runs of equal neighbours become one element. `perm` (when defined) gives each element's
// position in the input, for the inverse.
std::tuple<Tensor, Tensor, Tensor> merge_runs(const Tensor& vals,
                                              const Tensor& perm,
                                              IntArrayRef sizes,
                                              bool return_inverse,
                                              bool return_counts) {
  const int64_t n = vals.numel();
  Tensor inverse, counts;
  if (n == 0) {
    if (return_inverse) inverse = empty(sizes, like(vals, kInt64));
    if (return_counts) counts = empty({0}, like(vals, kInt64));
    return {vals, inverse, counts};
  }
  // Where a new value starts; NaN differs from everything, NaN included, as in PyTorch.
  const Tensor is_new =
      cat({ones({1}, like(vals, kBool)), ne(slice(vals, 0, 1, n), slice(vals, 0, 0, n - 1))}, 0);
  const Tensor out = masked_select(vals, is_new);
  if (return_inverse || return_counts) {
    const Tensor group = cumsum(is_new, 0) - Scalar(1);  // each element's place in `out`
    if (return_inverse) {
      const Tensor inv =
          perm.defined() ? scatter(empty({n}, like(vals, kInt64)), 0, perm, group) : group;
      inverse = reshape(inv, sizes);
    }
    if (return_counts) {
      counts = scatter_add(zeros({out.numel()}, like(vals, kInt64)), 0, group,
                           ones({n}, like(vals, kInt64)));
    }
  }
  return {out, inverse, counts};
}

void check_no_dim(std::optional<int64_t> dim, const char* op) {
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !dim, "[", op,
                   "] the dim argument is not supported yet (got dim=", dim.value_or(0),
                   "); only dim=None, over the flattened tensor");
}

}  // namespace

std::span<const OpInfo> sort_op_infos() { return kSortOps; }

std::pair<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  const int64_t d = wrap(dim, self, "sort");
  Tensor values = empty(self.sizes(), like(self, self.dtype()));
  Tensor indices = empty(self.sizes(), like(self, kInt64));
  kernel(kernels(self.device()).sort.sort, self.device(), "sort")(values, indices, self, d,
                                                                  descending, stable);
  if (any_requires_grad(self)) record_taken("SortBackward0", self, values, indices, d, false);
  return {values, indices};
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  NoGradGuard no_grad;
  const int64_t d = wrap(dim, self, "argsort");
  Tensor values = empty(self.sizes(), like(self, self.dtype()));
  Tensor indices = empty(self.sizes(), like(self, kInt64));
  kernel(kernels(self.device()).sort.sort, self.device(), "argsort")(values, indices, self, d,
                                                                     descending, stable);
  return indices;
}

std::pair<Tensor, Tensor> topk(
    const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  const int64_t d = wrap(dim, self, "topk");
  const int64_t size = size_at(self, d);
  EMBER_CHECK(k >= (self.dim() == 0 ? 1 : 0) && k <= size,
              "[topk] selected index k out of range: expected ", self.dim() == 0 ? 1 : 0,
              " <= k <= ", size, " for dim ", d, ", got k = ", k);
  DimVector shape = sizes_of(self);
  if (self.dim() > 0) shape[size_t(d)] = k;
  Tensor values = empty(shape, like(self, self.dtype()));
  Tensor indices = empty(shape, like(self, kInt64));
  kernel(kernels(self.device()).sort.topk, self.device(), "topk")(values, indices, self, d, k,
                                                                  largest, sorted);
  if (any_requires_grad(self)) record_taken("TopkBackward0", self, values, indices, d, false);
  return {values, indices};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  return select_impl(SelectOp::Kth, self, dim, k, keepdim, "kthvalue", "KthvalueBackward0");
}

Tensor median(const Tensor& self) {
  return median_all(self, SelectOp::Median, "median", "MedianBackward1");
}
std::pair<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  return select_impl(SelectOp::Median, self, dim, 0, keepdim, "median", "MedianBackward0");
}
Tensor nanmedian(const Tensor& self) {
  return median_all(self, SelectOp::NanMedian, "nanmedian", "NanmedianBackward1");
}
std::pair<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  return select_impl(SelectOp::NanMedian, self, dim, 0, keepdim, "nanmedian", "NanmedianBackward0");
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self,
                                          bool /*sorted: always*/,
                                          bool return_inverse,
                                          bool return_counts,
                                          std::optional<int64_t> dim) {
  check_no_dim(dim, "unique");
  NoGradGuard no_grad;
  auto [vals, perm] = sort(reshape(self, {self.numel()}), 0, false, true);
  return merge_runs(vals, perm, self.sizes(), return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self,
                                                      bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  check_no_dim(dim, "unique_consecutive");
  NoGradGuard no_grad;
  return merge_runs(contiguous(reshape(self, {self.numel()})), Tensor(), self.sizes(),
                    return_inverse, return_counts);
}

}  // namespace ember
