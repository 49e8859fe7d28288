// Tensor: the value-semantic handle users hold. Copying a Tensor copies a pointer; the data is
// shared (as a PyTorch tensor). Methods that are ops forward to the free functions in ops/.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/scalar.h"
#include "ember/core/shape.h"
#include "ember/core/tensor_impl.h"

namespace ember {

class Tensor;
struct Node;

// Options for creation ops: ember::zeros({2, 3}, kFloat64) or
// ember::zeros({2, 3}, TensorOptions().dtype(kFloat64).requires_grad(true)).
struct TensorOptions {
  std::optional<DType> dtype_;
  Device device_ = kCPU;
  bool requires_grad_ = false;

  TensorOptions() = default;
  TensorOptions(DType d) : dtype_(d) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions dtype(DType d) const {
    auto o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions device(Device d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  TensorOptions requires_grad(bool r = true) const {
    auto o = *this;
    o.requires_grad_ = r;
    return o;
  }
};

// A hook on a tensor's gradient: returns a replacement, or an undefined Tensor to keep it.
using TensorHook = std::function<Tensor(const Tensor&)>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- What it is ------------------------------------------------------------------------
  bool defined() const { return bool(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const Ref<TensorImpl>& impl_ref() const { return impl_; }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef shape() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const;  // negative dims count from the end
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl_->numel(); }
  DType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_contiguous(MemoryFormat format) const;
  bool is_non_overlapping_and_dense() const { return impl_->is_non_overlapping_and_dense(); }
  // The layout new tensors made from this one should have: ChannelsLast (ChannelsLast3d) when
  // its strides are NHWC-dense (NDHWC) and not also plain contiguous, or when both hold but the
  // strides are the ones channels_last gives (an N x C x 1 x 1 tensor made channels-last).
  MemoryFormat suggest_memory_format() const;
  bool is_floating_point() const { return is_floating(dtype()); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  size_t element_size() const { return itemsize(dtype()); }
  size_t nbytes() const { return size_t(numel()) * element_size(); }
  const Ref<Storage>& storage() const { return impl_->storage(); }
  uint32_t version() const { return impl_->storage()->version(); }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  bool is_view() const { return bool(impl_->view_base()); }
  // The tensor this one is a view of, or an undefined Tensor.
  Tensor base() const { return Tensor(impl_->view_base()); }

  void* data_ptr() const { return impl_->data(); }
  // Typed pointer to element 0; throws a TypeError if T is not this tensor's dtype.
  template <class T>
  T* data_ptr() const {
    check_dtype(dtype_of<T>, "data_ptr");
    return static_cast<T*>(impl_->data());
  }

  // The value of a one-element tensor.
  Scalar item() const;
  template <class T>
  T item() const {
    return item().to<T>();
  }
  // All values, converted to T, in row-major order.
  template <class T>
  std::vector<T> to_vector() const;

  // ---- Autograd (ember/autograd) ---------------------------------------------------------
  bool requires_grad() const;
  // The in-place switch: a leaf starts or stops recording; a non-leaf can only turn it on.
  Tensor& requires_grad_(bool requires_grad = true);
  Tensor& set_requires_grad(bool requires_grad) { return requires_grad_(requires_grad); }
  // Accumulated gradient of a leaf (or of a tensor that called retain_grad()); may be undefined.
  Tensor grad() const;
  void set_grad(const Tensor& grad) const;
  const std::shared_ptr<Node>& grad_fn() const;
  bool is_leaf() const;
  void retain_grad() const;
  bool retains_grad() const;
  int64_t output_nr() const;
  // Backward from this tensor. `gradient` may be omitted only for a one-element tensor.
  void backward(const Tensor& gradient = Tensor(),
                bool retain_graph = false,
                bool create_graph = false) const;
  // The hook runs when this tensor's gradient is computed; returns a handle for remove_hook.
  int64_t register_hook(TensorHook hook) const;
  void remove_hook(int64_t handle) const;
  // A new tensor on the same storage, cut from the graph.
  Tensor detach() const;
  Tensor& detach_();

  // ---- Views and copies (ops/view.cpp) ----------------------------------------------------
  Tensor view(IntArrayRef shape) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor expand(IntArrayRef shape) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim,
               std::optional<int64_t> start,
               std::optional<int64_t> end,
               int64_t step = 1) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  Tensor clone(MemoryFormat format = MemoryFormat::Preserve) const;
  Tensor to(DType dtype, bool copy = false) const;
  Tensor to(Device device, bool copy = false) const;

  // ---- Arithmetic (ops/elementwise.cpp) ---------------------------------------------------
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor div(const Tensor& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor neg() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor sqrt() const;
  Tensor abs() const;
  Tensor eq(const Tensor& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor le(const Tensor& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor ge(const Tensor& other) const;

  // In place: these bump the version counter and return *this.
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other);
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(const Scalar& other);
  Tensor& zero_();
  Tensor& fill_(const Scalar& value);
  Tensor& copy_(const Tensor& src);

  // ---- Reductions and linear algebra ------------------------------------------------------
  Tensor sum(std::optional<DType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim,
             bool keepdim = false,
             std::optional<DType> dtype = std::nullopt) const;
  Tensor mean(std::optional<DType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim,
              bool keepdim = false,
              std::optional<DType> dtype = std::nullopt) const;
  Tensor max() const;
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;

  std::string repr() const;  // PyTorch's format: tensor([1., 2.], requires_grad=True)

 private:
  void check_dtype(DType expected, const char* what) const;
  Ref<TensorImpl> impl_;
};
// The handle is one pointer: copying, passing and returning it cost what a pointer does.
static_assert(sizeof(Tensor) == sizeof(void*));

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// Operators, as in Python. Scalars are weak: (int_tensor * 2.5) is float32.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

}  // namespace ember
