// The accessors of Tensor that need no op; the op methods are in ops/tensor_methods.cpp.
#include "ember/core/tensor.h"

#include "ember/core/shape.h"

namespace ember {

int64_t Tensor::size(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "[size] dimension specified as ", dim,
                    " but tensor has no dimensions");
  return impl_->sizes()[size_t(wrap_dim(dim, this->dim(), "size"))];
}

int64_t Tensor::stride(int64_t dim) const {
  EMBER_CHECK_INDEX(this->dim() > 0, "[stride] dimension specified as ", dim,
                    " but tensor has no dimensions");
  return impl_->strides()[size_t(wrap_dim(dim, this->dim(), "stride"))];
}

bool Tensor::is_contiguous(MemoryFormat format) const {
  if (format == MemoryFormat::Contiguous) return is_contiguous();
  EMBER_CHECK(format != MemoryFormat::Preserve,
              "[is_contiguous] preserve_format is not a layout a tensor can have");
  return is_layout_of(sizes(), strides(), format);
}

MemoryFormat Tensor::suggest_memory_format() const {
  const int64_t nd = dim();
  if (nd != 4 && nd != 5) return MemoryFormat::Contiguous;
  const MemoryFormat cl = nd == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
  if (!is_layout_of(sizes(), strides(), cl)) return MemoryFormat::Contiguous;
  if (!is_contiguous()) return cl;
  // Both layouts describe the memory (size-1 dims): channels-last when the channel stride is 1
  // and the innermost spatial dim steps over the channels, as channels_last's strides do.
  return strides()[1] == 1 && sizes()[1] > 1 && strides()[size_t(nd - 1)] == sizes()[1]
             ? cl
             : MemoryFormat::Contiguous;
}

void Tensor::check_dtype(DType expected, const char* what) const {
  EMBER_CHECK_TYPE(dtype() == expected, "[", what, "] expected a tensor of dtype ", expected,
                   ", got ", dtype());
}

Scalar Tensor::item() const {
  EMBER_CHECK(defined(), "[item] called on an undefined tensor");
  EMBER_CHECK(numel() == 1, "[item] a tensor with ", numel(),
              " elements cannot be converted to a Python number (item() needs exactly one)");
  if (!device().is_cpu()) return detach().to(kCPU).item();
  return dispatch_dtype<kAllTypesAndComplex>(dtype(), "item", [&]<class T>() -> Scalar {
    return Scalar(*static_cast<const T*>(impl_->data()));
  });
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  if (!device().is_cpu()) return detach().to(kCPU).to_vector<T>();
  std::vector<T> out;
  out.reserve(size_t(numel()));
  const int64_t nd = dim();
  DimVector idx(size_t(nd), 0);
  dispatch_dtype<kAllTypesAndComplex>(dtype(), "to_vector", [&]<class S>() {
    const S* base = static_cast<const S*>(impl_->data());
    for (int64_t n = 0; n < numel(); ++n) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd; ++d) off += idx[d] * strides()[d];
      out.push_back(Scalar(base[off]).to<T>());
      for (int64_t d = nd - 1; d >= 0; --d) {  // odometer increment, last dim fastest
        if (++idx[d] < sizes()[d]) break;
        idx[d] = 0;
      }
    }
  });
  return out;
}

template std::vector<bool> Tensor::to_vector<bool>() const;
template std::vector<uint8_t> Tensor::to_vector<uint8_t>() const;
template std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<std::complex<float>> Tensor::to_vector<std::complex<float>>() const;
template std::vector<std::complex<double>> Tensor::to_vector<std::complex<double>>() const;

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.repr(); }

}  // namespace ember
