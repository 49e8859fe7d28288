// Zero-copy exchange with NumPy and DLPack (nanobind's ndarray does the protocol work).
#include <nanobind/ndarray.h>

#include "init.h"

namespace ember::py {
namespace {

using InArray = nb::ndarray<nb::ro>;

DType dtype_from_dlpack(nb::dlpack::dtype d) {
  using Code = nb::dlpack::dtype_code;
  const auto code = Code(d.code);
  if (d.lanes == 1) {
    if (code == Code::Bool && d.bits == 8) return kBool;
    if (code == Code::UInt && d.bits == 8) return kUInt8;
    if (code == Code::Int) {
      switch (d.bits) {
        case 8:
          return kInt8;
        case 16:
          return kInt16;
        case 32:
          return kInt32;
        case 64:
          return kInt64;
      }
    }
    if (code == Code::Float) {
      switch (d.bits) {
        case 16:
          return kFloat16;
        case 32:
          return kFloat32;
        case 64:
          return kFloat64;
      }
    }
    if (code == Code::Bfloat && d.bits == 16) return kBFloat16;
    if (code == Code::Complex && d.bits == 64) return kComplex64;
    if (code == Code::Complex && d.bits == 128) return kComplex128;
  }
  type_error("can't convert an array of DLPack dtype (code " + std::to_string(d.code) + ", " +
             std::to_string(d.bits) + " bits, " + std::to_string(d.lanes) +
             " lanes) to a tensor; ember supports bool, uint8, int8-64, float16, bfloat16, "
             "float32, float64, complex64 and complex128");
}

nb::dlpack::dtype dlpack_dtype(DType t) {
  using Code = nb::dlpack::dtype_code;
  const uint8_t bits = uint8_t(itemsize(t) * 8);
  Code code = Code::Float;
  if (t == kBool)
    code = Code::Bool;
  else if (t == kUInt8)
    code = Code::UInt;
  else if (is_integral(t))
    code = Code::Int;
  else if (t == kBFloat16)
    code = Code::Bfloat;
  else if (is_complex(t))
    code = Code::Complex;
  return nb::dlpack::dtype{uint8_t(code), bits, 1};
}

// A tensor over the array's memory; the array stays alive until the last tensor on it goes.
Tensor tensor_from_array(const InArray& arr) {
  EMBER_CHECK_TYPE(arr.device_type() == nb::device::cpu::value,
                   "[from_dlpack] only CPU arrays can be shared with ember for now (got device "
                   "type ",
                   arr.device_type(), ")");
  const DType dt = dtype_from_dlpack(arr.dtype());
  DimVector sizes, strides;
  for (size_t i = 0; i < arr.ndim(); ++i) {
    sizes.push_back(int64_t(arr.shape(i)));
    strides.push_back(arr.stride(i));
    EMBER_CHECK_VALUE(arr.stride(i) >= 0 || arr.shape(i) <= 1,
                      "At least one stride in the given numpy array is negative, and tensors "
                      "with negative strides are not currently supported. (You can probably work "
                      "around this by making a copy of your array with array.copy().)");
  }
  auto* keep = new InArray(arr);
  ExternalDeleter deleter{[](void* ctx) {
                            // The array's owner is a Python object: release it under the GIL.
                            if (!Py_IsInitialized()) return;
                            nb::gil_scoped_acquire gil;
                            delete static_cast<InArray*>(ctx);
                          },
                          keep};
  return from_blob(const_cast<void*>(arr.data()), sizes, strides, dt, deleter);
}

// isinstance(h, numpy.ndarray), subclasses (np.memmap) included, without importing NumPy when the
// object cannot be one.
bool is_numpy_array(nb::handle h) {
  if (!PyObject_HasAttrString(h.ptr(), "__array_interface__")) return false;
  nb::object ndarray = nb::module_::import_("numpy").attr("ndarray");
  return PyObject_IsInstance(h.ptr(), ndarray.ptr()) == 1;
}

// nb::ndarray describing t's memory, owned by a capsule that holds a reference to t.
template <class Framework>
nb::ndarray<Framework> to_array(const Tensor& t) {
  std::vector<size_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  nb::capsule owner(new Tensor(t), [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  return nb::ndarray<Framework>(t.data_ptr(), t.dim(), shape.data(), owner, strides.data(),
                                dlpack_dtype(t.dtype()), nb::device::cpu::value);
}

nb::object numpy(const Tensor& t, bool force) {
  Tensor src = t;
  if (force) {
    src = detach(t);
  } else {
    EMBER_CHECK(!t.requires_grad(),
                "Can't call numpy() on Tensor that requires grad. Use "
                "tensor.detach().numpy() instead.");
  }
  EMBER_CHECK_TYPE(src.device().is_cpu(), "can't convert ", src.device(),
                   " device type tensor "
                   "to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  EMBER_CHECK_TYPE(src.dtype() != kBFloat16,
                   "Got unsupported ScalarType BFloat16: NumPy has no "
                   "bfloat16; convert with .float() first");
  return nb::cast(to_array<nb::numpy>(src));
}

}  // namespace

void init_interop(nb::module_& m) {
  m.def(
      "from_numpy",
      [](nb::handle arr) {
        if (!is_numpy_array(arr)) {
          type_error("expected np.ndarray (got " + py_type_name(arr) + ")");
        }
        InArray a;
        if (!nb::try_cast(arr, a)) {
          type_error(
              "can't convert np.ndarray of type " +
              nb::cast<std::string>(nb::steal<nb::str>(PyObject_Str(arr.attr("dtype").ptr()))) +
              ". The only supported types are: float64, float32, float16, int64, int32, "
              "int16, int8, uint8, and bool.");
        }
        return tensor_from_array(a);
      },
      nb::arg("ndarray"));
  m.def(
      "from_dlpack",
      [](nb::handle obj) -> nb::object {
        if (nb::isinstance<Tensor>(obj)) return nb::borrow(obj);
        InArray arr;
        if (!nb::try_cast(obj, arr)) {
          type_error("from_dlpack: expected an object with __dlpack__ (or a DLPack capsule), got " +
                     py_type_name(obj));
        }
        return wrap(tensor_from_array(arr));
      },
      nb::arg("ext_tensor"));

  auto& cls = tensor_class();
  cls.def("numpy", &numpy, nb::kw_only(), nb::arg("force") = false)
      .def(
          "__array__",
          [](const Tensor& t, nb::handle dtype, nb::handle copy) {
            // NumPy 2's protocol: copy=True must copy, copy=False must not (or raise).
            nb::object arr = numpy(t, false);
            const bool must_copy =
                copy.is_valid() && !copy.is_none() && PyObject_IsTrue(copy.ptr());
            const bool no_copy = copy.is_valid() && !copy.is_none() && !PyObject_IsTrue(copy.ptr());
            if (!dtype.is_none()) {
              nb::object converted = arr.attr("astype")(dtype, nb::arg("copy") = false);
              if (no_copy && !converted.is(arr)) {
                throw nb::value_error(
                    "__array__: converting the dtype needs a copy, but "
                    "copy=False was given");
              }
              return must_copy && converted.is(arr) ? arr.attr("copy")() : converted;
            }
            return must_copy ? arr.attr("copy")() : arr;
          },
          nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack__",
           [](const Tensor& t, nb::kwargs kwargs) {
             EMBER_CHECK(!t.requires_grad(),
                         "Can't export tensors that require gradient, use "
                         "tensor.detach()");
             EMBER_CHECK(t.device().is_cpu(),
                         "[__dlpack__] only CPU tensors can be exported for now");
             nb::object arr =
                 nb::cast(to_array<nb::array_api>(t));  // has __dlpack__ (versioned too)
             return arr.attr("__dlpack__")(**kwargs);
           })
      .def("__dlpack_device__",
           [](const Tensor& t) { return nb::make_tuple(int(nb::device::cpu::value), 0); });
}

}  // namespace ember::py
