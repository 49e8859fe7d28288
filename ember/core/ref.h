// Intrusive reference counting for Storage and TensorImpl: one allocation per object, a handle is
// one pointer, and memory is freed the moment the last handle goes (as in the paper, no GC).
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;

  void incref() const { refcount_.fetch_add(1, std::memory_order_relaxed); }
  void decref() const {
    if (refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  uint32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<uint32_t> refcount_{0};
};

// Owning handle to a RefCounted T.
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(T* p) : p_(p) {
    if (p_) p_->incref();
  }
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->incref();
  }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  Ref(const Ref<U>& o) : Ref(o.get()) {}
  ~Ref() {
    if (p_) p_->decref();
  }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void reset() { Ref().swap(*this); }
  void swap(Ref& o) noexcept { std::swap(p_, o.p_); }
  friend bool operator==(const Ref& a, const Ref& b) { return a.p_ == b.p_; }

 private:
  T* p_ = nullptr;
};

template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

}  // namespace ember
