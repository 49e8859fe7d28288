#include "ember/core/tensor_impl.h"

#include "ember/core/shape.h"

namespace ember {

TensorImpl::TensorImpl(
    Ref<Storage> storage, DType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset)
    : storage_(std::move(storage)),
      sizes_(sizes.data(), sizes.size()),
      strides_(strides.data(), strides.size()),
      offset_(offset),
      dtype_(dtype) {
  refresh();
}

void TensorImpl::set_data(const TensorImpl& src) {
  storage_ = src.storage_;
  dtype_ = src.dtype_;
  sizes_ = src.sizes_;
  strides_ = src.strides_;
  offset_ = src.offset_;
  base_.reset();  // as PyTorch: x.data = y makes x look at y's memory, not a view of y's base
  base_history_ = 0;
  refresh();
}

void TensorImpl::refresh() {
  EMBER_ASSERT(sizes_.size() == strides_.size(), "sizes and strides differ in length");
  numel_ = numel_of(sizes_);
  contiguous_ = is_contiguous_layout(sizes_, strides_);
  dense_ = contiguous_ || is_dense_layout(sizes_, strides_);
}

}  // namespace ember
