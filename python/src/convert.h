// Python <-> C++ conversions shared by the binding files: dtype and device objects, numbers as
// Scalars, shapes and dim lists, and "tensor or number" arguments.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "ember/ember.h"

namespace nb = nanobind;

namespace ember::py {

// ember.float32 etc.: one Python object per dtype, so `x.dtype is ember.float32` holds.
struct DTypeObject {
  DType value;
};
nb::handle dtype_object(DType t);

// A Tensor argument that may also be given as a Python number (weak scalar) or bool.
struct TensorOrScalar {
  const Tensor* tensor = nullptr;
  Scalar scalar;
};

// "the op" in error messages for bad argument types: TypeError like PyTorch.
[[noreturn]] void type_error(const std::string& msg);

// Shape from f(2, 3), f((2, 3)), f([2, 3]) or f(ember.Size(...)).
DimVector shape_from_args(const nb::args& args, const char* op);
// A Python int (or an object with __index__) as int64; TypeError otherwise.
int64_t to_int64(nb::handle h, const char* what);

// The type name of a Python object, for error messages.
std::string py_type_name(nb::handle h);
// `h` as T, or a TypeError: "<what> must be <expected>, got <type>".
template <class T>
T arg_cast(nb::handle h, const char* what, const char* expected) {
  T value{};
  if (!nb::try_cast<T>(h, value)) {
    type_error(std::string(what) + " must be " + expected + ", got " + py_type_name(h));
  }
  return value;
}
// A device from an ember.device, a string such as "cpu" or "cuda:1", or a CUDA index.
Device device_arg(nb::handle h);

// Wraps a Tensor for Python (moves it into a new Python object).
inline nb::object wrap(Tensor t) { return nb::cast(std::move(t), nb::rv_policy::move); }
// ember.Size of the given sizes.
nb::object make_size(IntArrayRef sizes);
void set_size_type(nb::handle type);
bool is_size(nb::handle h);  // an ember.Size

}  // namespace ember::py

namespace nanobind::detail {

template <>
struct type_caster<ember::DType> {
  NB_TYPE_CASTER(ember::DType, const_name("ember.dtype"))
  bool from_python(handle src, uint8_t flags, cleanup_list* cleanup) noexcept;
  static handle from_cpp(ember::DType v, rv_policy, cleanup_list*) noexcept {
    return ember::py::dtype_object(v).inc_ref();
  }
};

template <>
struct type_caster<ember::Scalar> {
  NB_TYPE_CASTER(ember::Scalar, const_name("Union[bool, int, float]"))
  bool from_python(handle src, uint8_t flags, cleanup_list* cleanup) noexcept;
  static handle from_cpp(const ember::Scalar& s, rv_policy, cleanup_list*) noexcept;
};

// Shapes and dim lists: an int or a sequence of ints.
template <>
struct type_caster<ember::DimVector> {
  NB_TYPE_CASTER(ember::DimVector, const_name("Union[int, Sequence[int]]"))
  bool from_python(handle src, uint8_t flags, cleanup_list* cleanup) noexcept;
  static handle from_cpp(const ember::DimVector& v, rv_policy, cleanup_list*) noexcept {
    return ember::py::make_size(v).release();
  }
};

template <>
struct type_caster<ember::py::TensorOrScalar> {
  NB_TYPE_CASTER(ember::py::TensorOrScalar, const_name("Union[Tensor, bool, int, float]"))
  bool from_python(handle src, uint8_t flags, cleanup_list* cleanup) noexcept;
  static handle from_cpp(const ember::py::TensorOrScalar&, rv_policy, cleanup_list*) noexcept {
    return handle();
  }
};

}  // namespace nanobind::detail
