#include "ember/ops/creation.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

std::atomic<DType> default_dtype{kFloat32};

void check_size(IntArrayRef size, const char* op) {
  for (int64_t s : size) {
    EMBER_CHECK(s >= 0, "[", op, "] expected non-negative sizes, got ", size);
  }
}

// The dtype a fill value gives a tensor when none is asked for.
DType dtype_for(const Scalar& s) {
  return s.is_bool()       ? kBool
         : s.is_integral() ? kInt64
         : s.is_complex()  ? to_complex_dtype(get_default_dtype())
                           : get_default_dtype();
}

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad_) t.requires_grad_(true);
  return t;
}

TensorOptions like_options(const Tensor& like, TensorOptions o) {
  if (!o.dtype_) o.dtype_ = like.dtype();
  if (o.device_ == kCPU) o.device_ = like.device();
  return o;
}

const OpInfo kCreationOps[] = {
    {"empty", OpKind::Creation, kAllTypesAndComplex, false},
    {"empty_strided", OpKind::Creation, kAllTypesAndComplex, false},
    {"scalar_tensor", OpKind::Creation, kAllTypesAndComplex, false},
    {"zeros", OpKind::Creation, kAllTypesAndComplex, false},
    {"ones", OpKind::Creation, kAllTypesAndComplex, false},
    {"full", OpKind::Creation, kAllTypesAndComplex, false},
    {"arange", OpKind::Creation, kNumericTypes, false},
    {"linspace", OpKind::Creation, kNumericTypes, false},
    {"eye", OpKind::Creation, kAllTypesAndComplex, false},
    {"empty_like", OpKind::Creation, kAllTypesAndComplex, false},
    {"zeros_like", OpKind::Creation, kAllTypesAndComplex, false},
    {"ones_like", OpKind::Creation, kAllTypesAndComplex, false},
    {"full_like", OpKind::Creation, kAllTypesAndComplex, false},
    {"tensor", OpKind::Creation, kAllTypesAndComplex, false},
};

}  // namespace

std::span<const OpInfo> creation_op_infos() { return kCreationOps; }

DType get_default_dtype() { return default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(DType dtype) {
  EMBER_CHECK_TYPE(is_floating(dtype),
                   "[set_default_dtype] only floating-point types are supported as the default "
                   "type, got ",
                   dtype);
  default_dtype.store(dtype, std::memory_order_relaxed);
}

Tensor empty(IntArrayRef size, TensorOptions o) {
  check_size(size, "empty");
  const DType dt = o.dtype_ ? *o.dtype_ : get_default_dtype();
  Allocator* alloc = kernel(kernels(o.device_).allocator, o.device_, "empty");
  auto storage = make_ref<Storage>(storage_nbytes(numel_of(size), itemsize(dt)), alloc);
  Tensor t(make_ref<TensorImpl>(std::move(storage), dt, size, contiguous_strides(size), 0));
  return finish(std::move(t), o);
}

Tensor empty(IntArrayRef size, TensorOptions o, MemoryFormat format) {
  if (format == MemoryFormat::Contiguous || format == MemoryFormat::Preserve) return empty(size, o);
  return empty_strided(size, strides_for(size, format, "empty"), o);
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions o) {
  check_size(size, "empty_strided");
  EMBER_CHECK(size.size() == stride.size(), "[empty_strided] got ", size.size(), " sizes and ",
              stride.size(), " strides");
  const DType dt = o.dtype_ ? *o.dtype_ : get_default_dtype();
  const int64_t extent = storage_extent(size, stride, "empty_strided");
  auto storage =
      make_ref<Storage>(storage_nbytes(extent, itemsize(dt)),
                        kernel(kernels(o.device_).allocator, o.device_, "empty_strided"));
  return finish(Tensor(make_ref<TensorImpl>(std::move(storage), dt, size, stride, 0)), o);
}

namespace {
// full/zeros/ones: `op` names the caller in errors.
Tensor filled(IntArrayRef size, const Scalar& value, TensorOptions o, const char* op) {
  check_size(size, op);
  check_fill_value(value, o.dtype_.value_or(get_default_dtype()), op);
  Tensor t = empty(size, o.requires_grad(false));
  kernel(kernels(t.device()).elementwise.fill, t.device(), op)(t, value);
  return finish(t, o);
}
}  // namespace

Tensor full(IntArrayRef size, const Scalar& fill_value, TensorOptions o) {
  if (!o.dtype_) o.dtype_ = dtype_for(fill_value);
  return filled(size, fill_value, o, "full");
}

Tensor zeros(IntArrayRef size, TensorOptions o) {
  if (!o.dtype_) o.dtype_ = get_default_dtype();
  return filled(size, 0, o, "zeros");
}
Tensor ones(IntArrayRef size, TensorOptions o) {
  if (!o.dtype_) o.dtype_ = get_default_dtype();
  return filled(size, 1, o, "ones");
}
Tensor scalar_tensor(const Scalar& value, TensorOptions o) { return full({}, value, o); }

Tensor arange(const Scalar& end, TensorOptions o) { return arange(0, end, 1, o); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions o) {
  const bool all_int = !start.is_floating() && !end.is_floating() && !step.is_floating();
  if (!o.dtype_) o.dtype_ = all_int ? kInt64 : get_default_dtype();
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(st != 0, "[arange] step must be nonzero");
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "[arange] unsupported range: ", start, " -> ",
              end);
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "[arange] upper bound and larger bound inconsistent with step sign: start ", start,
              ", end ", end, ", step ", step);
  const int64_t n =
      all_int ? (end.to_int() - start.to_int() + step.to_int() + (st > 0 ? -1 : 1)) / step.to_int()
              : int64_t(std::ceil((e - s) / st));
  Tensor t = empty({n}, o.requires_grad(false));
  kernel(kernels(t.device()).creation.range, t.device(), "arange")(t, s, st, false);
  return finish(t, o);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions o) {
  EMBER_CHECK(steps >= 0, "[linspace] number of steps must be non-negative, got ", steps);
  if (!o.dtype_) o.dtype_ = get_default_dtype();
  Tensor t = empty({steps}, o.requires_grad(false));
  kernel(kernels(t.device()).creation.range, t.device(), "linspace")(t, start.to_double(),
                                                                     end.to_double(), true);
  return finish(t, o);
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions o) {
  const int64_t cols = m.value_or(n);
  EMBER_CHECK(n >= 0 && cols >= 0, "[eye] expected non-negative sizes, got n=", n, ", m=", cols);
  Tensor t = zeros({n, cols}, o.requires_grad(false));
  Tensor diag = as_strided(t, {n < cols ? n : cols}, {cols + 1}, 0);
  kernel(kernels(t.device()).elementwise.fill, t.device(), "eye")(diag, 1);
  return finish(t, o);
}

DimVector strides_like(const Tensor& like, MemoryFormat format) {
  if (format != MemoryFormat::Preserve) return strides_for(like.sizes(), format, "empty_like");
  if (like.is_contiguous()) return contiguous_strides(like.sizes());
  if (like.is_non_overlapping_and_dense()) return DimVector(like.strides().data(), like.dim());
  return strides_for(like.sizes(), like.suggest_memory_format(), "empty_like");
}

Tensor empty_like(const Tensor& like, TensorOptions o, MemoryFormat format) {
  if (like.is_contiguous() && format != MemoryFormat::ChannelsLast &&
      format != MemoryFormat::ChannelsLast3d)
    return empty(like.sizes(), like_options(like, o));  // the common case, without the checks
  return empty_strided(like.sizes(), strides_like(like, format), like_options(like, o));
}
Tensor full_like(const Tensor& like, const Scalar& v, TensorOptions o, MemoryFormat format) {
  o = like_options(like, o);
  check_fill_value(v, *o.dtype_, "full_like");
  Tensor t = empty_like(like, o.requires_grad(false), format);
  kernel(kernels(t.device()).elementwise.fill, t.device(), "full_like")(t, v);
  return finish(std::move(t), o);
}
Tensor zeros_like(const Tensor& like, TensorOptions o, MemoryFormat format) {
  return full_like(like, 0, o, format);
}
Tensor ones_like(const Tensor& like, TensorOptions o, MemoryFormat format) {
  return full_like(like, 1, o, format);
}

template <class T>
Tensor tensor(const std::vector<T>& values, IntArrayRef shape, TensorOptions o) {
  DimVector sizes =
      shape.empty() ? DimVector{int64_t(values.size())} : DimVector(shape.data(), shape.size());
  EMBER_CHECK_VALUE(numel_of(sizes) == int64_t(values.size()), "[tensor] shape ", sizes, " needs ",
                    numel_of(sizes), " values, got ", values.size());
  const DType natural = std::is_same_v<T, bool>     ? kBool
                        : std::is_integral_v<T>     ? kInt64
                        : std::is_same_v<T, double> ? get_default_dtype()
                                                    : dtype_of<T>;
  const DType target = o.dtype_.value_or(natural);
  Tensor t = empty(sizes, TensorOptions(dtype_of<T>));
  if constexpr (std::is_same_v<T, bool>) {
    bool* p = t.data_ptr<bool>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  } else if (!values.empty()) {
    std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  }
  if (target != t.dtype()) t = to_dtype(t, target);
  if (o.device_ != kCPU) t = t.to(o.device_);
  return finish(t, o);
}

template Tensor tensor(const std::vector<bool>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<uint8_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<int32_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<int64_t>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<float>&, IntArrayRef, TensorOptions);
template Tensor tensor(const std::vector<double>&, IntArrayRef, TensorOptions);

Tensor from_blob(void* data,
                 IntArrayRef sizes,
                 IntArrayRef strides,
                 DType dtype,
                 ExternalDeleter deleter,
                 Device device) {
  EMBER_CHECK(sizes.size() == strides.size(), "[from_blob] got ", sizes.size(), " sizes and ",
              strides.size(), " strides");
  const int64_t extent = storage_extent(sizes, strides, "from_blob");
  auto storage = make_ref<Storage>(data, storage_nbytes(extent, itemsize(dtype)), device, deleter);
  return Tensor(make_ref<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

}  // namespace ember
