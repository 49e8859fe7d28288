// View ops (share storage with their input) and the copies next to them.
#pragma once

#include <optional>

#include "ember/core/tensor.h"

namespace ember {

Tensor view(const Tensor& self, IntArrayRef shape);
// A view when the strides allow it, otherwise a copy (as PyTorch).
Tensor reshape(const Tensor& self, IntArrayRef shape);
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
// Transpose of a tensor of at most 2 dims.
Tensor t(const Tensor& self);
Tensor expand(const Tensor& self, IntArrayRef shape);  // -1 keeps a dim's size
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
// self[start:end:step] along dim, with Python's clamping of start and end; step > 0.
Tensor slice(const Tensor& self,
             int64_t dim,
             std::optional<int64_t> start,
             std::optional<int64_t> end,
             int64_t step = 1);
Tensor as_strided(const Tensor& self,
                  IntArrayRef size,
                  IntArrayRef stride,
                  std::optional<int64_t> storage_offset = std::nullopt);
// self when it already has `format`'s layout, else a copy in it.
Tensor contiguous(const Tensor& self, MemoryFormat format = MemoryFormat::Contiguous);
// A copy; Preserve (the default, as PyTorch) keeps self's strides when self is dense.
Tensor clone(const Tensor& self, MemoryFormat format = MemoryFormat::Preserve);
Tensor detach(const Tensor& self);
// Converts (or copies, with copy) keeping self's layout, as clone with Preserve.
Tensor to_dtype(const Tensor& self, DType dtype, bool copy = false);
// A contiguous copy on `device` (self itself when it is already there and copy is false).
Tensor to_device(const Tensor& self, Device device, bool copy = false);
// Sums `self` down to `shape` (the inverse of broadcasting): the gradient of expand.
Tensor sum_to_size(const Tensor& self, IntArrayRef shape);

// Gradients of the indexing views: zeros of `input_sizes` with `grad` written at the view.
Tensor select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, int64_t index);
Tensor slice_backward(const Tensor& grad,
                      IntArrayRef input_sizes,
                      int64_t dim,
                      int64_t start,
                      int64_t end,
                      int64_t step);

namespace detail {
// A view of self's storage as `dtype` with the given geometry (in elements of `dtype`), remembering
// self's base as make_view does: view_as_real and view_as_complex.
Tensor make_view_as(
    const Tensor& self, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

// Note [In-place ops on views]: the geometry of a view `v` of its base `b` in their shared
// storage, and the three linear maps between a tensor of b's shape ("whole") and one of v's
// shape ("part") that the rebased history of an in-place op on v needs. Each is differentiable
// (its backward is another of the three), so double backward works through them.
struct ViewRegion {
  DimVector sizes, strides, base_sizes, base_strides;
  int64_t offset = 0, base_offset = 0, storage_numel = 0;
};
ViewRegion view_region(const Tensor& view, const Tensor& base);
// whole's elements at the view's place: a contiguous tensor of the view's shape.
Tensor region_of(const Tensor& whole, const ViewRegion& r);
// whole with the view's elements set to zero.
Tensor zero_region(const Tensor& whole, const ViewRegion& r);
// zeros of the base's shape with `part` at the view's place.
Tensor embed_region(const Tensor& part, const ViewRegion& r);
// After an in-place op wrote `value` (a recorded tensor of view's shape) into `view`: the base's
// history becomes "its old value with the view's elements replaced by value" (PyTorch's
// CopySlices), and the view's history its region of the base's new value.
void rebase_view_history(const Tensor& view, const Tensor& value);
}  // namespace detail

}  // namespace ember
