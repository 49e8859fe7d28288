#include "convert.h"

namespace ember::py {
namespace {
// Borrowed: the module's attributes own these objects for as long as the module lives.
nb::handle dtype_objects[kNumDTypes];
nb::handle size_type;
PyTypeObject* dtype_type = nullptr;
}  // namespace

nb::handle dtype_object(DType t) { return dtype_objects[int(t)]; }

void type_error(const std::string& msg) { throw nb::type_error(msg.c_str()); }

std::string py_type_name(nb::handle h) {
  return nb::cast<std::string>(nb::str(nb::handle(h.type()).attr("__name__")));
}

Device device_arg(nb::handle h) {
  if (nb::isinstance<Device>(h)) return nb::cast<Device>(h);
  if (nb::isinstance<nb::str>(h)) return Device(nb::cast<std::string>(h));
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
    return Device(DeviceType::CUDA, int8_t(to_int64(h, "device")));
  }
  type_error("device must be an ember.device, a string or an int, got " + py_type_name(h));
}

int64_t to_int64(nb::handle h, const char* what) {
  if (PyLong_CheckExact(h.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (!overflow) return v;
  } else if (!PyBool_Check(h.ptr()) && PyIndex_Check(h.ptr())) {
    nb::object idx = nb::steal(PyNumber_Index(h.ptr()));
    if (idx.is_valid()) return to_int64(idx, what);
    PyErr_Clear();
  } else if (PyBool_Check(h.ptr())) {
    return h.ptr() == Py_True;
  }
  type_error(std::string(what) + " must be an int, got " + py_type_name(h));
}

DimVector shape_from_args(const nb::args& args, const char* op) {
  DimVector out;
  if (args.size() == 1 && !PyLong_Check(args[0].ptr()) && PySequence_Check(args[0].ptr())) {
    nb::sequence seq = nb::borrow<nb::sequence>(args[0]);
    for (nb::handle h : seq) out.push_back(to_int64(h, op));
    return out;
  }
  for (nb::handle h : args) out.push_back(to_int64(h, op));
  return out;
}

nb::object make_size(IntArrayRef sizes) {
  PyObject* t = PyTuple_New(Py_ssize_t(sizes.size()));
  for (size_t i = 0; i < sizes.size(); ++i) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(sizes[i]));
  nb::object tuple = nb::steal(t);
  if (!size_type.is_valid()) return tuple;
  return nb::steal(PyObject_CallOneArg(size_type.ptr(), tuple.ptr()));
}

bool is_size(nb::handle h) {
  return size_type.is_valid() &&
         Py_TYPE(h.ptr()) == reinterpret_cast<PyTypeObject*>(size_type.ptr());
}

void set_size_type(nb::handle type) {
  nb::module_::import_("ember._C").attr("_Size") = type;
  size_type = type;
}

// Registered from module.cpp, after the dtype class exists.
void init_dtype_objects(nb::module_& m, nb::handle cls) {
  dtype_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
#define EMBER_DTYPE_OBJECT(name, type, str)         \
  m.attr(str) = nb::cast(DTypeObject{DType::name}); \
  dtype_objects[int(DType::name)] = m.attr(str);
  EMBER_FORALL_DTYPES(EMBER_DTYPE_OBJECT)
#undef EMBER_DTYPE_OBJECT
}

bool is_dtype_object(nb::handle h) { return dtype_type && Py_TYPE(h.ptr()) == dtype_type; }

}  // namespace ember::py

namespace nanobind::detail {

bool type_caster<ember::DType>::from_python(handle src, uint8_t, cleanup_list*) noexcept {
  if (ember::py::is_dtype_object(src)) {
    value = nb::inst_ptr<ember::py::DTypeObject>(src)->value;
    return true;
  }
  // Python's own types stand for their natural dtypes, as in PyTorch: float, int, bool.
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) {
    value = ember::kFloat64;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) {
    value = ember::kInt64;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) {
    value = ember::kBool;
    return true;
  }
  if (src.ptr() == reinterpret_cast<PyObject*>(&PyComplex_Type)) {
    value = ember::kComplex128;
    return true;
  }
  return false;
}

bool type_caster<ember::Scalar>::from_python(handle src, uint8_t, cleanup_list*) noexcept {
  PyObject* o = src.ptr();
  if (PyBool_Check(o)) {
    value = ember::Scalar(o == Py_True);
    return true;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    value = ember::Scalar(int64_t(v));
    return true;
  }
  if (PyFloat_Check(o)) {
    value = ember::Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (nb::isinstance<ember::Tensor>(src)) return false;
  // Python's complex, and numbers that convert to it (NumPy's complex64 has __complex__ and a
  // __float__ that would drop the imaginary part).
  if (PyComplex_Check(o) || PyObject_HasAttrString(o, "__complex__")) {
    const Py_complex c = PyComplex_AsCComplex(o);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value = ember::Scalar(std::complex<double>(c.real, c.imag));
    return true;
  }
  // NumPy scalars and other numbers: integers by __index__, the rest by __float__.
  if (PyIndex_Check(o)) {
    PyObject* idx = PyNumber_Index(o);
    if (idx) {
      const long long v = PyLong_AsLongLong(idx);
      Py_DECREF(idx);
      if (!PyErr_Occurred()) {
        value = ember::Scalar(int64_t(v));
        return true;
      }
    }
    PyErr_Clear();
    return false;
  }
  if (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float) {
    const double d = PyFloat_AsDouble(o);
    if (!PyErr_Occurred()) {
      value = ember::Scalar(d);
      return true;
    }
    PyErr_Clear();
  }
  return false;
}

handle type_caster<ember::Scalar>::from_cpp(const ember::Scalar& s,
                                            rv_policy,
                                            cleanup_list*) noexcept {
  if (s.is_bool()) return PyBool_FromLong(s.to_bool());
  if (s.is_integral()) return PyLong_FromLongLong(s.to_int());
  if (s.is_complex()) return PyComplex_FromDoubles(s.to_double(), s.imag());
  return PyFloat_FromDouble(s.to_double());
}

bool type_caster<ember::DimVector>::from_python(handle src, uint8_t, cleanup_list*) noexcept {
  value.clear();
  PyObject* o = src.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    const long long v = PyLong_AsLongLong(o);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    value.push_back(v);
    return true;
  }
  if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
  PyObject* seq = PySequence_Fast(o, "");
  if (!seq) {
    PyErr_Clear();
    return false;
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject** items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyBool_Check(items[i]) || !PyIndex_Check(items[i])) {
      Py_DECREF(seq);
      return false;
    }
    PyObject* idx = PyNumber_Index(items[i]);
    const long long v = idx ? PyLong_AsLongLong(idx) : -1;
    Py_XDECREF(idx);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      Py_DECREF(seq);
      return false;
    }
    value.push_back(v);
  }
  Py_DECREF(seq);
  return true;
}

bool type_caster<ember::py::TensorOrScalar>::from_python(handle src,
                                                         uint8_t flags,
                                                         cleanup_list* cleanup) noexcept {
  ember::Tensor* t = nullptr;
  if (nb::try_cast<ember::Tensor*>(src, t, false)) {
    value.tensor = t;
    return true;
  }
  type_caster<ember::Scalar> sc;
  if (sc.from_python(src, flags, cleanup)) {
    value.tensor = nullptr;
    value.scalar = sc.value;
    return true;
  }
  return false;
}

}  // namespace nanobind::detail
