// View ops: new sizes/strides/offset over the same storage, each with its backward.
#include "ember/ops/view.h"

#include <algorithm>
#include <numeric>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"

namespace ember {
namespace {

const OpInfo kViewOps[] = {
    {"view", OpKind::View, kAllTypesAndComplex, true},
    {"reshape", OpKind::View, kAllTypesAndComplex, true},
    {"permute", OpKind::View, kAllTypesAndComplex, true},
    {"transpose", OpKind::View, kAllTypesAndComplex, true},
    {"t", OpKind::View, kAllTypesAndComplex, true},
    {"expand", OpKind::View, kAllTypesAndComplex, true},
    {"squeeze", OpKind::View, kAllTypesAndComplex, true},
    {"unsqueeze", OpKind::View, kAllTypesAndComplex, true},
    {"flatten", OpKind::View, kAllTypesAndComplex, true},
    {"narrow", OpKind::View, kAllTypesAndComplex, true},
    {"select", OpKind::View, kAllTypesAndComplex, true},
    {"slice", OpKind::View, kAllTypesAndComplex, true},
    {"contiguous", OpKind::View, kAllTypesAndComplex, true},
    {"clone", OpKind::View, kAllTypesAndComplex, true},
    {"detach", OpKind::View, kAllTypesAndComplex, false},
    {"to", OpKind::View, kAllTypesAndComplex, true},
    {"sum_to_size", OpKind::View, kAllTypesAndComplex, true},
    {"as_strided", OpKind::View, kAllTypesAndComplex, false},
    {"select_backward", OpKind::View, kAllTypesAndComplex, true},
    {"slice_backward", OpKind::View, kAllTypesAndComplex, true},
};

// A tensor over self's storage with new geometry; remembers the base for is_view()/._base.
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return detail::make_view_as(self, self.dtype(), sizes, strides, offset);
}

// Strides that let `sizes` view a tensor of geometry (old_sizes, old_strides) without copying,
// or nothing when the layouts are incompatible (ATen's computeStride).
std::optional<DimVector> view_strides(IntArrayRef old_sizes,
                                      IntArrayRef old_strides,
                                      IntArrayRef sizes) {
  DimVector out(sizes.size());
  if (old_sizes.empty()) {
    std::fill(out.begin(), out.end(), 1);
    return out;
  }
  if (numel_of(old_sizes) == 0) {
    if (old_sizes == sizes) return DimVector(old_strides.data(), old_strides.size());
    return contiguous_strides(sizes);
  }
  int64_t view_d = int64_t(sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    // At the end of a chunk of dims that are contiguous among themselves, match the view dims.
    if (d == 0 ||
        (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

DimVector dims_of(IntArrayRef a) { return DimVector(a.data(), a.size()); }

// Backward of the ops whose gradient is a reshape back to the input's sizes.
void record_reshape_like(const char* name, const Tensor& self, const Tensor& out) {
  if (!any_requires_grad(self)) return;
  record(name, {&self}, {&out}, [in = dims_of(self.sizes())](TensorList& g, Node&) {
    return TensorList{reshape(g[0], in)};
  });
}

// Plain copy of src into a fresh tensor of `dtype` laid out as `format`, without autograd.
Tensor copy_nograd(const Tensor& src, DType dtype, MemoryFormat format = MemoryFormat::Preserve) {
  Tensor out = empty_like(src, TensorOptions(dtype).device(src.device()), format);
  kernel(kernels(src.device()).elementwise.copy, src.device(), "copy")(out, src);
  return out;
}

}  // namespace

std::span<const OpInfo> view_op_infos() { return kViewOps; }

Tensor view(const Tensor& self, IntArrayRef shape) {
  DimVector sizes = infer_size(shape, self.numel(), "view");
  auto strides = view_strides(self.sizes(), self.strides(), sizes);
  EMBER_CHECK(strides, "[view] size ", shape, " is not compatible with the input's size ",
              self.sizes(), " and stride ", self.strides(),
              " (at least one dimension spans two contiguous subspaces). Use .reshape(...) "
              "instead.");
  Tensor out = make_view(self, sizes, *strides, self.storage_offset());
  record_reshape_like("ViewBackward0", self, out);
  return out;
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  DimVector sizes = infer_size(shape, self.numel(), "reshape");
  if (auto strides = view_strides(self.sizes(), self.strides(), sizes)) {
    Tensor out = make_view(self, sizes, *strides, self.storage_offset());
    record_reshape_like("ViewBackward0", self, out);
    return out;
  }
  // Copy, then view: the graph gets CloneBackward0 and ViewBackward0, as in PyTorch.
  return view(clone(self, MemoryFormat::Contiguous), sizes);
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t nd = self.dim();
  EMBER_CHECK(int64_t(dims.size()) == nd, "[permute] number of dims don't match: the input has ",
              nd, " dims but dims has ", dims.size(), " entries: ", dims);
  DimVector sizes(static_cast<size_t>(nd)), strides(static_cast<size_t>(nd)),
      inverse(static_cast<size_t>(nd), -1);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = wrap_dim(dims[i], nd, "permute");
    EMBER_CHECK(inverse[d] < 0, "[permute] dim ", d, " appears twice in ", dims);
    inverse[d] = i;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  Tensor out = make_view(self, sizes, strides, self.storage_offset());
  if (any_requires_grad(self)) {
    record("PermuteBackward0", {&self}, {&out},
           [inverse](TensorList& g, Node&) { return TensorList{permute(g[0], inverse)}; });
  }
  return out;
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t nd = self.dim();
  const int64_t d0 = wrap_dim(dim0, nd, "transpose"), d1 = wrap_dim(dim1, nd, "transpose");
  DimVector sizes = dims_of(self.sizes()), strides = dims_of(self.strides());
  if (nd > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  Tensor out = make_view(self, sizes, strides, self.storage_offset());
  if (any_requires_grad(self)) {
    record("TransposeBackward0", {&self}, {&out},
           [d0, d1](TensorList& g, Node&) { return TensorList{transpose(g[0], d0, d1)}; });
  }
  return out;
}

Tensor t(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "[t] expects a tensor with <= 2 dimensions, but self is ",
              self.dim(), "D");
  return self.dim() < 2 ? transpose(self, 0, 0) : transpose(self, 0, 1);
}

Tensor expand(const Tensor& self, IntArrayRef shape) {
  const int64_t nd = int64_t(shape.size()), sd = self.dim();
  EMBER_CHECK(nd >= sd, "[expand] the number of sizes provided (", nd,
              ") must be greater or equal to the number of dimensions in the tensor (", sd, ")");
  DimVector sizes(static_cast<size_t>(nd)), strides(static_cast<size_t>(nd));
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t j = i - (nd - sd);  // the matching dim of self, if any
    const int64_t want = shape[i];
    EMBER_CHECK(want >= -1, "[expand] invalid size ", want, " in ", shape,
                " (sizes must be >= 0, or -1 to keep a dim)");
    if (j < 0) {
      EMBER_CHECK(want >= 0, "[expand] the expanded size of the tensor (", want,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      sizes[i] = want;
      strides[i] = 0;
      continue;
    }
    const int64_t have = self.sizes()[j];
    if (want == -1 || want == have) {
      sizes[i] = have;
      strides[i] = self.strides()[j];
    } else {
      EMBER_CHECK(have == 1, "[expand] the expanded size of the tensor (", want,
                  ") must match the existing size (", have, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", shape, ".  Tensor sizes: ", self.sizes());
      sizes[i] = want;
      strides[i] = 0;
    }
  }
  Tensor out = make_view(self, sizes, strides, self.storage_offset());
  if (any_requires_grad(self)) {
    record("ExpandBackward0", {&self}, {&out}, [in = dims_of(self.sizes())](TensorList& g, Node&) {
      return TensorList{sum_to_size(g[0], in)};
    });
  }
  return out;
}

Tensor squeeze(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.sizes()[d] == 1) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  Tensor out = make_view(self, sizes, strides, self.storage_offset());
  record_reshape_like("SqueezeBackward0", self, out);
  return out;
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim(), "squeeze");
  DimVector sizes = dims_of(self.sizes()), strides = dims_of(self.strides());
  if (self.dim() > 0 && sizes[d] == 1) {
    sizes.erase(size_t(d));
    strides.erase(size_t(d));
  }
  Tensor out = make_view(self, sizes, strides, self.storage_offset());
  record_reshape_like("SqueezeBackward1", self, out);
  return out;
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim() + 1, "unsqueeze");
  DimVector sizes = dims_of(self.sizes()), strides = dims_of(self.strides());
  // The new dim's stride: what a contiguous layout would give it (any value works for size 1).
  const int64_t st = d < self.dim() ? self.sizes()[d] * self.strides()[d] : 1;
  sizes.insert(size_t(d), 1);
  strides.insert(size_t(d), st);
  Tensor out = make_view(self, sizes, strides, self.storage_offset());
  record_reshape_like("UnsqueezeBackward0", self, out);
  return out;
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) return reshape(self, {1});
  const int64_t s = wrap_dim(start_dim, self.dim(), "flatten");
  const int64_t e = wrap_dim(end_dim, self.dim(), "flatten");
  EMBER_CHECK(s <= e, "[flatten] start_dim (", start_dim, ") cannot come after end_dim (", end_dim,
              ")");
  if (s == e) return self;
  DimVector sizes;
  for (int64_t d = 0; d < s; ++d) sizes.push_back(self.sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= self.sizes()[d];
  sizes.push_back(merged);
  for (int64_t d = e + 1; d < self.dim(); ++d) sizes.push_back(self.sizes()[d]);
  return reshape(self, sizes);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, "[narrow] cannot be applied to a 0-dim tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "narrow");
  const int64_t size = self.sizes()[d];
  EMBER_CHECK_INDEX(start >= -size && start <= size, "[narrow] start (", start,
                    ") is out of range for dim ", d, " of size ", size);
  if (start < 0) start += size;
  EMBER_CHECK(length >= 0 && start + length <= size, "[narrow] start (", start, ") + length (",
              length, ") exceeds dimension size (", size, ")");
  return slice(self, d, start, start + length, 1);
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(self.dim() > 0,
                    "[select] invalid index of a 0-dim tensor. Use `tensor.item()` "
                    "to convert a 0-dim tensor to a number");
  const int64_t d = wrap_dim(dim, self.dim(), "select");
  const int64_t size = self.sizes()[d];
  EMBER_CHECK_INDEX(index >= -size && index < size, "[select] index ", index,
                    " is out of bounds for dimension ", d, " with size ", size);
  if (index < 0) index += size;
  DimVector sizes = dims_of(self.sizes()), strides = dims_of(self.strides());
  const int64_t offset = self.storage_offset() + index * strides[d];
  sizes.erase(size_t(d));
  strides.erase(size_t(d));
  Tensor out = make_view(self, sizes, strides, offset);
  if (any_requires_grad(self)) {
    record("SelectBackward0", {&self}, {&out},
           [in = dims_of(self.sizes()), d, index](TensorList& g, Node&) {
             return TensorList{select_backward(g[0], in, d, index)};
           });
  }
  return out;
}

Tensor slice(const Tensor& self,
             int64_t dim,
             std::optional<int64_t> start_opt,
             std::optional<int64_t> end_opt,
             int64_t step) {
  EMBER_CHECK(self.dim() > 0, "[slice] cannot slice a 0-dim tensor");
  EMBER_CHECK_VALUE(step > 0, "[slice] step must be greater than zero, got ", step);
  const int64_t d = wrap_dim(dim, self.dim(), "slice");
  const int64_t size = self.sizes()[d];
  // Python's clamping: negative counts from the end, out of range clamps to [0, size].
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  DimVector sizes = dims_of(self.sizes()), strides = dims_of(self.strides());
  const int64_t offset = self.storage_offset() + start * strides[d];
  sizes[d] = (end - start + step - 1) / step;
  strides[d] *= step;
  Tensor out = make_view(self, sizes, strides, offset);
  if (any_requires_grad(self)) {
    record("SliceBackward0", {&self}, {&out},
           [in = dims_of(self.sizes()), d, start, end, step](TensorList& g, Node&) {
             return TensorList{slice_backward(g[0], in, d, start, end, step)};
           });
  }
  return out;
}

Tensor as_strided(const Tensor& self,
                  IntArrayRef size,
                  IntArrayRef stride,
                  std::optional<int64_t> storage_offset) {
  EMBER_CHECK(size.size() == stride.size(),
              "[as_strided] mismatch in length of strides and "
              "shape: ",
              size.size(), " sizes, ", stride.size(), " strides");
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(offset >= 0, "[as_strided] invalid storage offset ", offset);
  const int64_t extent = storage_extent(size, stride, "as_strided");
  const int64_t available = int64_t(self.storage()->nbytes() / itemsize(self.dtype()));
  EMBER_CHECK(extent == 0 || (extent <= available && offset <= available - extent),
              "[as_strided] setting a storage of ", available, " elements to size ", size,
              ", stride ", stride, " and offset ", offset, " reads out of bounds");
  EMBER_CHECK(!any_requires_grad(self),
              "[as_strided] the backward of as_strided is not "
              "implemented yet; call it on a tensor that does not require grad");
  return make_view(self, size, stride, offset);
}

Tensor contiguous(const Tensor& self, MemoryFormat format) {
  if (format == MemoryFormat::Preserve || self.is_contiguous(format)) return self;
  return clone(self, format);
}

Tensor clone(const Tensor& self, MemoryFormat format) {
  Tensor out = copy_nograd(self, self.dtype(), format);
  if (any_requires_grad(self)) {
    record("CloneBackward0", {&self}, {&out},
           [](TensorList& g, Node&) { return TensorList{g[0]}; });
  }
  return out;
}

Tensor detach(const Tensor& self) {
  return Tensor(make_ref<TensorImpl>(self.storage(), self.dtype(), self.sizes(), self.strides(),
                                     self.storage_offset()));
}

Tensor to_dtype(const Tensor& self, DType dtype, bool copy) {
  if (self.dtype() == dtype && !copy) return self;
  Tensor out = copy_nograd(self, dtype);
  if (any_requires_grad(self) && is_differentiable(dtype)) {
    // The engine casts the gradient back to the input's dtype.
    record("ToCopyBackward0", {&self}, {&out},
           [](TensorList& g, Node&) { return TensorList{g[0]}; });
  }
  return out;
}

Tensor to_device(const Tensor& self, Device device, bool copy) {
  // "cuda" and "cuda:0" name the same device when 0 is the current one; compare by type and an
  // explicit index only.
  const Device from = self.device();
  const bool same = from.type == device.type &&
                    (device.index < 0 || from.index < 0 || from.index == device.index);
  if (same) return copy ? clone(self) : self;
  const Tensor src = contiguous(self);
  Tensor out = empty(src.sizes(), TensorOptions(src.dtype()).device(device));
  const Device k = from.is_cpu() ? device : from;  // the non-CPU backend moves the bytes
  kernel(kernels(k).elementwise.copy, k, "to")(out, src);
  if (any_requires_grad(self)) {
    record("ToCopyBackward0", {&self}, {&out},
           [from](TensorList& g, Node&) { return TensorList{to_device(g[0], from)}; });
  }
  return out;
}

Tensor sum_to_size(const Tensor& self, IntArrayRef shape) {
  EMBER_CHECK(is_expandable_to(shape, self.sizes()), "[sum_to_size] size ", shape,
              " is not expandable to size ", self.sizes());
  if (self.sizes() == shape) return self;
  const int64_t lead = self.dim() - int64_t(shape.size());
  DimVector dims;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && self.sizes()[d] != 1)) dims.push_back(d);
  }
  Tensor r = sum(self, dims, /*keepdim=*/true);
  return lead > 0 ? view(r, shape) : r;
}

Tensor select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t index) {
  Tensor out = zeros(input_sizes, TensorOptions(grad.dtype()).device(grad.device()));
  {
    NoGradGuard no_grad;
    Tensor target = select(out, dim, index);
    copy_(target, grad);
  }
  if (any_requires_grad(grad)) {
    record("SelectBackwardBackward0", {&grad}, {&out},
           [dim, index](TensorList& g, Node&) { return TensorList{select(g[0], dim, index)}; });
  }
  return out;
}

Tensor slice_backward(const Tensor& grad,
                      IntArrayRef input_sizes,
                      int64_t dim,
                      int64_t start,
                      int64_t end,
                      int64_t step) {
  Tensor out = zeros(input_sizes, TensorOptions(grad.dtype()).device(grad.device()));
  {
    NoGradGuard no_grad;
    Tensor target = slice(out, dim, start, end, step);
    copy_(target, grad);
  }
  if (any_requires_grad(grad)) {
    record("SliceBackwardBackward0", {&grad}, {&out},
           [dim, start, end, step](TensorList& g, Node&) {
             return TensorList{slice(g[0], dim, start, end, step)};
           });
  }
  return out;
}

namespace detail {

Tensor make_view_as(
    const Tensor& self, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor out(make_ref<TensorImpl>(self.storage(), dtype, sizes, strides, offset));
  const Ref<TensorImpl>& base = self.is_view() ? self.impl()->view_base() : self.impl_ref();
  out.impl()->set_view_base(base, inplace_history(Tensor(base)));
  return out;
}

// Note [In-place ops on views]
// An in-place op on a view `v` of base `b` changes b's values, so b's history must change too:
// PyTorch wraps the op's node in a CopySlices node that becomes b's grad_fn. ember records the
// same thing as a node of its own, named alike, with two inputs: b's old value (whose gradient is
// the incoming one with the view's elements zeroed) and the view's new value `value`, the
// recorded result of the op (whose gradient is the incoming one at the view's elements). The
// op's own node, reached through `value`, sends its gradient on to the view's old value, whose
// history leads back into b's old one. Nothing is computed in the forward: the op has already
// written its result into v.
// The maps work on a scratch copy of the whole storage, so any geometry of base and view works
// (as long as the view does not overlap itself, which in-place ops refuse anyway).
ViewRegion view_region(const Tensor& view, const Tensor& base) {
  ViewRegion r;
  r.sizes.assign(view.sizes().data(), view.sizes().size());
  r.strides.assign(view.strides().data(), view.strides().size());
  r.base_sizes.assign(base.sizes().data(), base.sizes().size());
  r.base_strides.assign(base.strides().data(), base.strides().size());
  r.offset = view.storage_offset();
  r.base_offset = base.storage_offset();
  r.storage_numel = int64_t(base.storage()->nbytes() / itemsize(base.dtype()));
  return r;
}

namespace {
Tensor scratch_storage(const Tensor& like, const ViewRegion& r) {
  return zeros({r.storage_numel}, TensorOptions(like.dtype()).device(like.device()));
}
Tensor at_base(const Tensor& buf, const ViewRegion& r) {
  return make_view(buf, r.base_sizes, r.base_strides, r.base_offset);
}
Tensor at_view(const Tensor& buf, const ViewRegion& r) {
  return make_view(buf, r.sizes, r.strides, r.offset);
}
}  // namespace

Tensor region_of(const Tensor& whole, const ViewRegion& r) {
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor buf = scratch_storage(whole, r);
    Tensor dst = at_base(buf, r);
    copy_(dst, whole);
    out = clone(at_view(buf, r), MemoryFormat::Contiguous);
  }
  if (any_requires_grad(whole)) {
    record("AsStridedBackward0", {&whole}, {&out},
           [r](TensorList& g, Node&) { return TensorList{embed_region(g[0], r)}; });
  }
  return out;
}

Tensor zero_region(const Tensor& whole, const ViewRegion& r) {
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor buf = scratch_storage(whole, r);
    Tensor dst = at_base(buf, r);
    copy_(dst, whole);
    Tensor hole = at_view(buf, r);
    zero_(hole);
    out = clone(at_base(buf, r), MemoryFormat::Contiguous);
  }
  if (any_requires_grad(whole)) {
    record("CopySlicesZeroBackward", {&whole}, {&out},
           [r](TensorList& g, Node&) { return TensorList{zero_region(g[0], r)}; });
  }
  return out;
}

Tensor embed_region(const Tensor& part, const ViewRegion& r) {
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor buf = scratch_storage(part, r);
    Tensor dst = at_view(buf, r);
    copy_(dst, part);
    out = clone(at_base(buf, r), MemoryFormat::Contiguous);
  }
  if (any_requires_grad(part)) {
    record("AsStridedScatterBackward0", {&part}, {&out},
           [r](TensorList& g, Node&) { return TensorList{region_of(g[0], r)}; });
  }
  return out;
}

void rebase_view_history(const Tensor& view, const Tensor& value) {
  const Tensor base(view.impl()->view_base());
  // A real view of a complex base (view_as_real, real, imag) is a region of the base's (re, im)
  // pairs: the region is taken in view_as_real(base), whose elements have the view's dtype, and
  // gradients cross between the two with view_as_real / view_as_complex.
  const bool pairs = view.dtype() != base.dtype();
  EMBER_CHECK(!pairs || (is_complex(base.dtype()) && view.dtype() == to_real_dtype(base.dtype())),
              "[in-place] an in-place op on a ", view.dtype(), " view of a ", base.dtype(),
              " tensor is not supported while the tensor requires grad");
  const ViewRegion r = view_region(view, pairs ? view_as_real(detach(base)) : base);
  // base_old stands for the base's value before the op, with the base's history so far.
  Tensor base_old = detach(base);
  if (AutogradMeta* m = autograd_meta(base)) {
    AutogradMeta& om = ensure_autograd_meta(base_old);
    om.grad_fn = m->grad_fn;
    om.output_nr = m->output_nr;
    om.requires_grad = m->requires_grad;
  }
  record("CopySlices", {&base_old, &value}, {&base}, [r, pairs](TensorList& g, Node& n) {
    const Tensor whole = pairs ? view_as_real(g[0]) : g[0];
    TensorList out(2);
    if (n.next_edges()[0].valid()) {
      const Tensor rest = zero_region(whole, r);
      out[0] = pairs ? view_as_complex(rest) : rest;
    }
    if (n.next_edges()[1].valid()) out[1] = region_of(whole, r);
    return out;
  });
  mark_inplace(base);
  // The view looks at the base's new value: its history is its region of it. Taken now, the
  // view is fresh again (other views of the base taken before the op are stale).
  record("AsStridedBackward0", {&base}, {&view}, [r, pairs](TensorList& g, Node&) {
    const Tensor whole = embed_region(g[0], r);
    return TensorList{pairs ? view_as_complex(whole) : whole};
  });
  view.impl()->set_view_base(base.impl_ref(), inplace_history(base));
}

}  // namespace detail
}  // namespace ember
