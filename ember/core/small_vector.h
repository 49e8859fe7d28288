// A vector of trivially copyable values that keeps its first N elements inline, so the sizes and
// strides of an ordinary tensor never touch the heap (per-op overhead is a metric here).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>

namespace ember {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable values");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(size_t n, T value = T()) { resize(n, value); }
  SmallVector(std::initializer_list<T> init) { assign(init.begin(), init.size()); }
  SmallVector(const T* data, size_t n) { assign(data, n); }
  SmallVector(const SmallVector& other) { assign(other.data(), other.size()); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  ~SmallVector() { release(); }

  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.data(), other.size());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }

  void assign(const T* src, size_t n) {
    reserve(n);
    if (n) std::memmove(data_, src, n * sizeof(T));
    size_ = n;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    size_t cap = capacity_ * 2 > n ? capacity_ * 2 : n;
    T* fresh = static_cast<T*>(std::malloc(cap * sizeof(T)));
    if (!fresh) throw std::bad_alloc();
    if (size_) std::memcpy(fresh, data_, size_ * sizeof(T));
    if (data_ != inline_data()) std::free(data_);
    data_ = fresh;
    capacity_ = cap;
  }
  void resize(size_t n, T value = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void push_back(T value) {
    if (size_ == capacity_) reserve(size_ + 1);
    data_[size_++] = value;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void insert(size_t pos, T value) {
    push_back(value);
    for (size_t i = size_ - 1; i > pos; --i) data_[i] = data_[i - 1];
    data_[pos] = value;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data_[i] = data_[i + 1];
    --size_;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i)
      if (!(a.data_[i] == b.data_[i])) return false;
    return true;
  }

 private:
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  void release() {
    if (data_ != inline_data()) std::free(data_);
    data_ = inline_data();
    capacity_ = N;
    size_ = 0;
  }
  // Leaves `other` empty; the heap buffer, if any, changes hands.
  void take(SmallVector& other) {
    if (other.data_ == other.inline_data()) {
      data_ = inline_data();
      capacity_ = N;
      std::memcpy(data_, other.data_, other.size_ * sizeof(T));
    } else {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_data();
      other.capacity_ = N;
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace ember
