// ArrayRef: a non-owning view of contiguous values, built from a braced list, a vector, a
// SmallVector or one value, so that `x.view({2, 3})` and `x.sum(1)` need no allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "ember/core/small_vector.h"

namespace ember {

template <class T>
class ArrayRef {
 public:
  using value_type = T;
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  // The list must outlive the ArrayRef: fine for call arguments, wrong for stored members.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(std::initializer_list<T> list)
      : data_(list.begin() == list.end() ? nullptr : list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop
  template <class A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}
  template <size_t N>
  ArrayRef(const SmallVector<T, N>& v) : data_(v.data()), size_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }

  friend bool operator==(ArrayRef a, ArrayRef b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;
// Sizes and strides: inline up to 6 dims, which covers nearly every tensor in practice.
using DimVector = SmallVector<int64_t, 6>;

// Prints like PyTorch's messages: [2, 3].
template <class T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}
template <class T, size_t N>
std::ostream& operator<<(std::ostream& os, const SmallVector<T, N>& v) {
  return os << ArrayRef<T>(v);
}

}  // namespace ember
