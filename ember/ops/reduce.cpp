// Reductions: sum, mean, max. Each reduces over a set of dims given to the kernel as a bit mask.
#include "ember/ops/reduce.h"

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kReduceOps[] = {
    {"sum", OpKind::Reduction, kAllTypesAndComplex, true},
    {"mean", OpKind::Reduction, kFloatingTypes | kComplexTypes, true},
    {"max", OpKind::Reduction, kAllTypes, true},
    {"min", OpKind::Reduction, kAllTypes, true},
    {"amax", OpKind::Reduction, kAllTypes, true},
    {"amin", OpKind::Reduction, kAllTypes, true},
    {"argmax", OpKind::Reduction, kAllTypes, false},
    {"argmin", OpKind::Reduction, kAllTypes, false},
    {"prod", OpKind::Reduction, kAllTypesAndComplex, true},
    {"all", OpKind::Reduction, kAllTypesAndComplex, false},
    {"any", OpKind::Reduction, kAllTypesAndComplex, false},
};

// Bit d set: dim d is reduced. An empty list means every dim, as in PyTorch.
uint64_t dim_mask(IntArrayRef dims, int64_t ndim, const char* op) {
  EMBER_CHECK(ndim <= 64, "[", op, "] supports tensors of at most 64 dims, got ", ndim);
  if (ndim == 0) {
    for (int64_t d : dims) wrap_dim(d, 0, op);  // only 0 and -1 are valid
    return 0;
  }
  if (dims.empty()) return ndim == 64 ? ~uint64_t(0) : (uint64_t(1) << ndim) - 1;
  uint64_t mask = 0;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    EMBER_CHECK(!(mask >> w & 1), "[", op, "] dim ", w,
                " appears multiple times in the list of "
                "dims ",
                dims);
    mask |= uint64_t(1) << w;
  }
  return mask;
}

DimVector keepdim_shape(IntArrayRef sizes, uint64_t mask) {
  DimVector out(sizes.data(), sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask >> d & 1) out[d] = 1;
  return out;
}

DimVector reduced_shape(IntArrayRef sizes, uint64_t mask, bool keepdim) {
  if (keepdim) return keepdim_shape(sizes, mask);
  DimVector out;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (!(mask >> d & 1)) out.push_back(sizes[d]);
  return out;
}

int64_t reduced_count(IntArrayRef sizes, uint64_t mask) {
  int64_t n = 1;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (mask >> d & 1) n *= sizes[d];
  return n;
}

// The reduction of `in` over `mask`, as a fresh tensor of `out_dtype` (no autograd).
Tensor reduce_nograd(
    ReduceOp op, const Tensor& in, uint64_t mask, bool keepdim, DType out_dtype, const char* name) {
  if (is_complex(in.dtype()) && op != ReduceOp::Prod) {
    // A complex sum is the sums of the real and imaginary parts: the real kernel over the
    // (re, im) pairs, whose last dim is not reduced. The product multiplies complex numbers in
    // the kernel; the other reductions have no order to use (max).
    EMBER_CHECK_TYPE(op == ReduceOp::Sum && out_dtype == in.dtype(), "[", name,
                     "] not implemented for dtype ", in.dtype());
    const Tensor pairs =
        reduce_nograd(op, view_as_real(in), mask, keepdim, to_real_dtype(out_dtype), name);
    return view_as_complex(pairs.contiguous());
  }
  Tensor out = empty(keepdim_shape(in.sizes(), mask), TensorOptions(out_dtype).device(in.device()));
  kernel(kernels(in.device()).reduce.reduce, in.device(), name)(op, out, in, mask);
  if (!keepdim) {
    const DimVector shape = reduced_shape(in.sizes(), mask, false);
    out = Tensor(
        make_ref<TensorImpl>(out.storage(), out.dtype(), shape, contiguous_strides(shape), 0));
  }
  return out;
}

// The gradient of a reduction over `mask`, brought back to the input's shape.
Tensor expand_grad(const Tensor& g, IntArrayRef in_sizes, uint64_t mask) {
  return expand(reshape(g, keepdim_shape(in_sizes, mask)), in_sizes);
}

Tensor cast(const Tensor& t, std::optional<DType> dtype) {
  if (!dtype || t.dtype() == *dtype) return t;
  return to_dtype(t, *dtype);
}

// A sum or product over `mask` of `in`: integer and bool inputs widen to int64, as PyTorch.
Tensor widening_reduce(
    ReduceOp op, const Tensor& in, uint64_t mask, bool keepdim, const char* name) {
  const DType out_dtype = is_differentiable(in.dtype()) ? in.dtype() : kInt64;
  return reduce_nograd(op, in, mask, keepdim, out_dtype, name);
}

Tensor sum_impl(const Tensor& self,
                uint64_t mask,
                bool keepdim,
                std::optional<DType> dtype,
                const char* backward_name) {
  const Tensor in = cast(self, dtype);
  Tensor out = widening_reduce(ReduceOp::Sum, in, mask, keepdim, "sum");
  if (dtype && out.dtype() != *dtype) out = to_dtype(out, *dtype);  // an integer dtype asked for
  if (any_requires_grad(in) && is_differentiable(out.dtype())) {
    record(backward_name, {&in}, {&out},
           [sizes = DimVector(in.sizes().data(), in.dim()), mask](TensorList& g, Node&) {
             return TensorList{expand_grad(g[0], sizes, mask)};
           });
  }
  return out;
}

Tensor mean_impl(const Tensor& self,
                 uint64_t mask,
                 bool keepdim,
                 std::optional<DType> dtype,
                 const char* backward_name) {
  const DType dt = dtype.value_or(self.dtype());
  EMBER_CHECK(is_differentiable(dt),
              "[mean] could not infer output dtype. Input dtype must be either "
              "a floating point or complex dtype. Got: ",
              dt);
  const Tensor in = cast(self, dtype);
  const int64_t count = reduced_count(in.sizes(), mask);
  Tensor out;
  {
    NoGradGuard no_grad;
    // 16-bit floats are summed and divided in float32: the sum or the count alone may not fit
    // (float16 stops at 65504).
    const bool narrow = dt == kFloat16 || dt == kBFloat16;
    out = reduce_nograd(ReduceOp::Sum, narrow ? to_dtype(in, kFloat32) : in, mask, keepdim,
                        narrow ? kFloat32 : dt, "mean");
    div_(out, Scalar(double(count)));
    if (narrow) out = to_dtype(out, dt);
  }
  if (any_requires_grad(in)) {
    record(backward_name, {&in}, {&out},
           [sizes = DimVector(in.sizes().data(), in.dim()), mask, count](TensorList& g, Node&) {
             return TensorList{expand_grad(g[0], sizes, mask) / Scalar(double(count))};
           });
  }
  return out;
}

// The gradient of an extreme value over `mask` (all dims when mask covers them), shared evenly
// among the elements equal to it, as PyTorch's amax.
void record_extreme_grad(const char* name, const Tensor& self, const Tensor& out, uint64_t mask) {
  record(name, {&self}, {&out},
         [sx = SavedTensor(self), so = SavedTensor(out, 0),
          sizes = DimVector(self.sizes().data(), self.dim()), mask](TensorList& g, Node& n) {
           const Tensor x = sx.unpack(n);
           const Tensor m = expand_grad(so.unpack(n), sizes, mask);
           const Tensor ties = to_dtype(eq(x, m), g[0].dtype());
           DimVector dims;
           for (size_t d = 0; d < sizes.size(); ++d)
             if (mask >> d & 1) dims.push_back(int64_t(d));
           const Tensor count = dims.empty() ? ties : sum(ties, dims, true);
           return TensorList{ties * expand_grad(g[0], sizes, mask) / count};
         });
}

// The product over `mask`; integer and bool inputs multiply to int64.
Tensor prod_impl(const Tensor& self,
                 uint64_t mask,
                 bool keepdim,
                 std::optional<DType> dtype,
                 const char* backward_name) {
  const Tensor in = cast(self, dtype);
  Tensor out = widening_reduce(ReduceOp::Prod, in, mask, keepdim, "prod");
  if (dtype && out.dtype() != *dtype) out = to_dtype(out, *dtype);  // an integer dtype asked for
  if (any_requires_grad(in) && is_differentiable(out.dtype())) {
    record(backward_name, {&in}, {&out},
           [sx = SavedTensor(in), so = SavedTensor(out, 0),
            sizes = DimVector(in.sizes().data(), in.dim()), mask](TensorList& g, Node& n) {
             // Exact first and second derivatives whatever the zeros, from "others", the
             // product of the nonzero elements of each slice, and "zsum", the sum of its zero
             // elements (0 in value, but their derivative):
             //   no zero:   g * prod / x
             //   one zero:  at it, g * others; elsewhere g * zsum * others / x
             //   two zeros: at each, g * (the other zero) * others; elsewhere 0
             //   more:      0.
             // Divisions are by 1 where x is 0, so that no inf or NaN reaches the double
             // backward through a branch that `where` does not take. Complex x: g times the
             // conjugate of these derivatives (PyTorch's convention for holomorphic functions).
             const Tensor x = sx.unpack(n);
             const Tensor gx = expand_grad(g[0], sizes, mask);
             const Tensor p = expand_grad(so.unpack(n), sizes, mask);
             const Tensor is_zero = eq(x, 0);
             DimVector dims;
             for (size_t d = 0; d < sizes.size(); ++d)
               if (mask >> d & 1) dims.push_back(int64_t(d));
             if (dims.empty()) return TensorList{gx};  // nothing reduced: out == x
             const Tensor safe_x = where(is_zero, Scalar(1), x);
             const Tensor zeros = expand(sum(is_zero, dims, true), sizes);
             const Tensor others = expand_grad(
                 prod_impl(safe_x, mask, false, std::nullopt, "ProdBackward1"), sizes, mask);
             const Tensor zsum = expand(sum(where(is_zero, x, Scalar(0)), dims, true), sizes);
             const Tensor one = where(is_zero, others, zsum * others / safe_x);
             const Tensor two = where(is_zero, (zsum - x) * others, Scalar(0));
             const Tensor d = where(eq(zeros, 0), p / safe_x,
                                    where(eq(zeros, 1), one, where(eq(zeros, 2), two, Scalar(0))));
             return TensorList{gx * conj(d)};
           });
  }
  return out;
}

Tensor all_any(const Tensor& self, uint64_t mask, bool keepdim, bool is_all, const char* name) {
  NoGradGuard no_grad;
  const Tensor b = self.dtype() == kBool ? self : ne(self, 0);
  Tensor out =
      reduced_count(b.sizes(), mask) == 0
          ? full(reduced_shape(b.sizes(), mask, keepdim), is_all,
                 TensorOptions(kBool).device(self.device()))
          : reduce_nograd(is_all ? ReduceOp::Min : ReduceOp::Max, b, mask, keepdim, kBool, name);
  return self.dtype() == kUInt8 ? to_dtype(out, kUInt8) : out;
}

}  // namespace

std::span<const OpInfo> reduce_op_infos() { return kReduceOps; }

Tensor sum(const Tensor& self, std::optional<DType> dtype) {
  return sum_impl(self, dim_mask({}, self.dim(), "sum"), false, dtype, "SumBackward0");
}

Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  return sum_impl(self, dim_mask(dim, self.dim(), "sum"), keepdim, dtype, "SumBackward1");
}

Tensor mean(const Tensor& self, std::optional<DType> dtype) {
  return mean_impl(self, dim_mask({}, self.dim(), "mean"), false, dtype, "MeanBackward0");
}

Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  return mean_impl(self, dim_mask(dim, self.dim(), "mean"), keepdim, dtype, "MeanBackward1");
}

namespace {

// max() / min() of all elements.
Tensor extreme_all(const Tensor& self, ReduceOp op, const char* name, const char* backward) {
  EMBER_CHECK(self.numel() > 0, "[", name, "] expected a non-empty tensor: the ", name,
              " of an empty tensor is undefined. Specify a dim to reduce over a non-empty one.");
  const uint64_t mask = dim_mask({}, self.dim(), name);
  Tensor out = reduce_nograd(op, self, mask, false, self.dtype(), name);
  if (any_requires_grad(self)) record_extreme_grad(backward, self, out, mask);
  return out;
}

// max(dim) / min(dim): values and the index of the first occurrence.
std::pair<Tensor, Tensor> extreme_dim(const Tensor& self,
                                      int64_t dim,
                                      bool keepdim,
                                      ReduceOp op,
                                      const char* name,
                                      const char* backward) {
  EMBER_CHECK(self.dim() <= 64, "[", name, "] supports tensors of at most 64 dims, got ",
              self.dim());
  const int64_t d = wrap_dim(dim, self.dim(), name);
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK_INDEX(size > 0, "[", name, "] expected reduction dim ", d,
                    " to have non-zero size; the input has shape ", self.sizes());
  const uint64_t mask = self.dim() == 0 ? 0 : uint64_t(1) << d;
  const DimVector kshape = keepdim_shape(self.sizes(), mask);
  Tensor values = empty(kshape, TensorOptions(self.dtype()).device(self.device()));
  Tensor indices = empty(kshape, TensorOptions(kInt64).device(self.device()));
  kernel(kernels(self.device()).reduce.arg_reduce, self.device(), name)(op, values, indices, self,
                                                                        self.dim() ? d : 0);
  if (!keepdim && self.dim() > 0) {
    values = squeeze(values, d);
    indices = squeeze(indices, d);
    values.impl()->set_view_base(Ref<TensorImpl>());
    indices.impl()->set_view_base(Ref<TensorImpl>());
  }
  if (any_requires_grad(self)) {
    record(backward, {&self}, {&values},
           [sizes = DimVector(self.sizes().data(), self.dim()), d, keepdim,
            si = SavedTensor(indices)](TensorList& g, Node& n) {
             // One-hot of the chosen index along d, times the incoming gradient.
             Tensor idx = si.unpack(n);
             Tensor grad = g[0];
             if (!keepdim && !sizes.empty()) {
               idx = unsqueeze(idx, d);
               grad = unsqueeze(grad, d);
             }
             if (sizes.empty()) return TensorList{grad};
             DimVector pos_shape(sizes.size(), 1);
             pos_shape[d] = sizes[d];
             const Tensor pos =
                 view(arange(sizes[d], TensorOptions(kInt64).device(idx.device())), pos_shape);
             return TensorList{grad * to_dtype(eq(pos, idx), grad.dtype())};
           });
  }
  return {values, indices};
}

// amax / amin over several dims.
Tensor extreme_dims(const Tensor& self,
                    IntArrayRef dim,
                    bool keepdim,
                    ReduceOp op,
                    const char* name,
                    const char* backward) {
  const uint64_t mask = dim_mask(dim, self.dim(), name);
  for (int64_t d = 0; d < self.dim(); ++d) {
    EMBER_CHECK_INDEX(!(mask >> d & 1) || self.sizes()[d] > 0, "[", name,
                      "] expected reduction dim ", d,
                      " to have non-zero size; the input has shape ", self.sizes());
  }
  Tensor out = reduce_nograd(op, self, mask, keepdim, self.dtype(), name);
  if (any_requires_grad(self)) record_extreme_grad(backward, self, out, mask);
  return out;
}

Tensor arg_extreme(
    const Tensor& self, std::optional<int64_t> dim, bool keepdim, ReduceOp op, const char* name) {
  NoGradGuard no_grad;
  if (dim) return extreme_dim(self, *dim, keepdim, op, name, "").second;
  EMBER_CHECK(self.numel() > 0, "[", name,
              "] expected a non-empty tensor: Expected reduction dim to be specified for "
              "input.numel() == 0.");
  Tensor idx = extreme_dim(reshape(self, {self.numel()}), 0, false, op, name, "").second;
  if (keepdim) idx = reshape(idx, DimVector(size_t(self.dim()), 1));
  return idx;
}

}  // namespace

Tensor max(const Tensor& self) { return extreme_all(self, ReduceOp::Max, "max", "MaxBackward1"); }
Tensor min(const Tensor& self) { return extreme_all(self, ReduceOp::Min, "min", "MinBackward1"); }

std::pair<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim(self, dim, keepdim, ReduceOp::Max, "max", "MaxBackward0");
}
std::pair<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return extreme_dim(self, dim, keepdim, ReduceOp::Min, "min", "MinBackward0");
}

Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme_dims(self, dim, keepdim, ReduceOp::Max, "amax", "AmaxBackward0");
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return extreme_dims(self, dim, keepdim, ReduceOp::Min, "amin", "AminBackward0");
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(self, dim, keepdim, ReduceOp::Max, "argmax");
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(self, dim, keepdim, ReduceOp::Min, "argmin");
}

Tensor prod(const Tensor& self, std::optional<DType> dtype) {
  return prod_impl(self, dim_mask({}, self.dim(), "prod"), false, dtype, "ProdBackward0");
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<DType> dtype) {
  const int64_t d = [&] {
    const int64_t w = wrap_dim(dim, self.dim(), "prod");
    return self.dim() == 0 ? int64_t(0) : w;
  }();
  const uint64_t mask = self.dim() == 0 ? 0 : uint64_t(1) << d;
  return prod_impl(self, mask, keepdim, dtype, "ProdBackward1");
}

Tensor all(const Tensor& self) {
  return all_any(self, dim_mask({}, self.dim(), "all"), false, true, "all");
}
Tensor all(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return all_any(self, dim_mask(dim, self.dim(), "all"), keepdim, true, "all");
}
Tensor any(const Tensor& self) {
  return all_any(self, dim_mask({}, self.dim(), "any"), false, false, "any");
}
Tensor any(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return all_any(self, dim_mask(dim, self.dim(), "any"), keepdim, false, "any");
}

}  // namespace ember
