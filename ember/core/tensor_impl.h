// TensorImpl: what a tensor is. Sizes and strides (in elements) over a Storage, a dtype, and
// autograd metadata that stays null for tensors that need no gradient.
#pragma once

#include <memory>

#include "ember/core/array_ref.h"
#include "ember/core/dtype.h"
#include "ember/core/storage.h"

namespace ember {

// Defined by autograd (AutogradMeta in ember/autograd/node.h); core only owns it.
struct AutogradMetaBase {
  virtual ~AutogradMetaBase() = default;
};

class TensorImpl final : public RefCounted {
 public:
  TensorImpl(
      Ref<Storage> storage, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset);

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return int64_t(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return offset_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  const Ref<Storage>& storage() const { return storage_; }

  // is_contiguous() == (strides == contiguous_strides(sizes)), ignoring dims of size 1, and
  // always true when numel() == 0. Cached: kernels test it on every call.
  bool is_contiguous() const { return contiguous_; }
  // Elements fill one block of memory exactly once, in some dim order (is_dense_layout). Cached:
  // elementwise ops test it to keep a permuted layout such as channels-last.
  bool is_non_overlapping_and_dense() const { return dense_; }

  // Address of element 0, i.e. storage data + offset * itemsize.
  void* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * int64_t(itemsize(dtype_));
  }

  // Makes this tensor look at other data (Python's `x.data = y`); autograd metadata stays and the
  // tensor is not a view afterwards.
  void set_data(const TensorImpl& src);

  AutogradMetaBase* autograd_meta() const { return autograd_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaBase> meta) { autograd_ = std::move(meta); }

  // For views: the tensor whose storage this one looks at (never itself a view), and the base's
  // in-place history count (autograd's, see Note [Views and in-place history]) when the view was
  // made.
  const Ref<TensorImpl>& view_base() const { return base_; }
  uint32_t view_base_history() const { return base_history_; }
  void set_view_base(Ref<TensorImpl> base, uint32_t history = 0) {
    base_ = std::move(base);
    base_history_ = history;
  }

 private:
  void refresh();

  Ref<Storage> storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 1;
  DType dtype_;
  bool contiguous_ = true;
  bool dense_ = true;
  std::unique_ptr<AutogradMetaBase> autograd_;
  Ref<TensorImpl> base_;
  uint32_t base_history_ = 0;
};

}  // namespace ember
