// Reductions: sum, mean, max. Each reduces over a set of dims given to the kernel as a bit mask.
#include "ember/ops/reduce.h"

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kReduceOps[] = {
    {"sum", OpKind::Reduction, kAllTypes, true},
    {"mean", OpKind::Reduction, kFloatingTypes, true},
    {"max", OpKind::Reduction, kAllTypes, true},
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
  Tensor out = empty(keepdim_shape(in.sizes(), mask), TensorOptions(out_dtype).device(in.device()));
  kernel(kernels(in.device()).reduce, in.device(), name)(op, out, in, mask);
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

Tensor sum_impl(const Tensor& self,
                uint64_t mask,
                bool keepdim,
                std::optional<DType> dtype,
                const char* backward_name) {
  const Tensor in = cast(self, dtype);
  const DType out_dtype = is_floating(in.dtype()) ? in.dtype() : kInt64;
  Tensor out = reduce_nograd(ReduceOp::Sum, in, mask, keepdim, out_dtype, "sum");
  if (any_requires_grad(in) && is_floating(out_dtype)) {
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
  EMBER_CHECK(is_floating(dt),
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

Tensor max(const Tensor& self) {
  EMBER_CHECK(self.numel() > 0,
              "[max] expected a non-empty tensor: the max of an empty tensor is "
              "undefined. Specify a dim to reduce over a non-empty one.");
  Tensor out = reduce_nograd(ReduceOp::Max, self, dim_mask({}, self.dim(), "max"), false,
                             self.dtype(), "max");
  if (any_requires_grad(self)) {
    record("MaxBackward1", {&self}, {&out},
           [sx = SavedTensor(self), so = SavedTensor(out, 0)](TensorList& g, Node& n) {
             // The gradient is shared evenly among all elements equal to the max.
             const Tensor x = sx.unpack(n), m = so.unpack(n);
             const Tensor ties = to_dtype(eq(x, m), g[0].dtype());
             return TensorList{ties * (g[0] / sum(ties))};
           });
  }
  return out;
}

std::pair<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CHECK(self.dim() <= 64, "[max] supports tensors of at most 64 dims, got ", self.dim());
  const int64_t d = wrap_dim(dim, self.dim(), "max");
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK_INDEX(size > 0, "[max] expected reduction dim ", d,
                    " to have non-zero size; the "
                    "input has shape ",
                    self.sizes());
  const uint64_t mask = self.dim() == 0 ? 0 : uint64_t(1) << d;
  const DimVector kshape = keepdim_shape(self.sizes(), mask);
  Tensor values = empty(kshape, TensorOptions(self.dtype()).device(self.device()));
  Tensor indices = empty(kshape, TensorOptions(kInt64).device(self.device()));
  kernel(kernels(self.device()).arg_reduce, self.device(), "max")(ReduceOp::Max, values, indices,
                                                                  self, self.dim() ? d : 0);
  if (!keepdim && self.dim() > 0) {
    values = squeeze(values, d);
    indices = squeeze(indices, d);
    values.impl()->set_view_base(Ref<TensorImpl>());
    indices.impl()->set_view_base(Ref<TensorImpl>());
  }
  if (any_requires_grad(self)) {
    record("MaxBackward0", {&self}, {&values},
           [sizes = DimVector(self.sizes().data(), self.dim()), d, mask, keepdim,
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

}  // namespace ember
