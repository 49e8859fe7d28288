// Factories (zeros, arange, full, eye, *_like, new_*) and ember.tensor(data) from nested Python
// sequences. The random factories (rand, ...) are in random.cpp.
#include "init.h"

namespace ember::py {
namespace {

// For the new_* methods: self's dtype and device unless given.
TensorOptions options_like(const Tensor& self,
                           std::optional<DType> dtype,
                           std::optional<Device> device,
                           bool requires_grad) {
  return options(dtype.value_or(self.dtype()), device.value_or(self.device()), requires_grad);
}

// ---- ember.tensor(data) ----------------------------------------------------------------------

enum class Kind { None, Bool, Int, Float, Complex };  // widening order

bool is_sequence(nb::handle h) { return PyList_Check(h.ptr()) || PyTuple_Check(h.ptr()); }

// Walks the nested data once: finds the shape and the widest kind of number in it.
void infer(nb::handle h, size_t depth, DimVector& shape, Kind& kind, bool& seen) {
  if (is_sequence(h)) {
    EMBER_CHECK_VALUE(depth < 64,
                      "[tensor] too many dimensions: the data is nested more than 64 "
                      "lists deep");
    const int64_t n = int64_t(PySequence_Fast_GET_SIZE(h.ptr()));
    if (!seen && depth == shape.size()) shape.push_back(n);
    EMBER_CHECK_VALUE(depth < shape.size() && shape[depth] == n,
                      "[tensor] expected sequence of "
                      "length ",
                      depth < shape.size() ? shape[depth] : 0, " at dim ", depth, " (got ", n, ")");
    PyObject** items = PySequence_Fast_ITEMS(h.ptr());
    for (int64_t i = 0; i < n; ++i) infer(items[i], depth + 1, shape, kind, seen);
    if (n == 0) seen = true;
    return;
  }
  if (!seen) seen = true;
  EMBER_CHECK_VALUE(depth == shape.size(), "[tensor] expected a sequence at dim ", depth,
                    " but got a number: the nested lists are ragged");
  PyObject* o = h.ptr();
  auto widen = [&](Kind k) {
    if (int(k) > int(kind)) kind = k;
  };
  if (PyBool_Check(o)) return widen(Kind::Bool);
  if (PyLong_Check(o) || (PyIndex_Check(o) && !PyFloat_Check(o) && !nb::isinstance<Tensor>(h))) {
    return widen(Kind::Int);
  }
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK_VALUE(t.numel() == 1,
                      "[tensor] only one-element tensors can be elements of the "
                      "data, got one of shape ",
                      t.sizes());
    return widen(is_complex(t.dtype())   ? Kind::Complex
                 : t.is_floating_point() ? Kind::Float
                 : t.dtype() == kBool    ? Kind::Bool
                                         : Kind::Int);
  }
  if (PyFloat_Check(o)) return widen(Kind::Float);
  // NumPy's complex64 is no Python complex, but has __complex__ (an attribute lookup: after the
  // common kinds, which ember.tensor(list) meets per element).
  if (PyComplex_Check(o) || PyObject_HasAttrString(o, "__complex__")) return widen(Kind::Complex);
  if (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float) return widen(Kind::Float);
  type_error("[tensor] could not infer dtype of " + py_type_name(h));
}

template <class T>
void fill(nb::handle h, T*& out) {
  if (is_sequence(h)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(h.ptr());
    PyObject** items = PySequence_Fast_ITEMS(h.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) fill(items[i], out);
    return;
  }
  Scalar s;
  if (nb::isinstance<Tensor>(h)) {
    s = nb::cast<const Tensor&>(h).item();
  } else if (!nb::try_cast<Scalar>(h, s)) {
    type_error("[tensor] expected a number");
  }
  *out++ = s.checked_to<T>();
}

Tensor tensor_from_data(nb::handle data,
                        std::optional<DType> dtype,
                        std::optional<Device> device,
                        bool requires_grad) {
  // A range is data as its list is (torch.tensor(range(3)), x[range(2), y]).
  if (PyRange_Check(data.ptr())) {
    return tensor_from_data(nb::list(data), dtype, device, requires_grad);
  }
  if (nb::isinstance<Tensor>(data)) {
    // As PyTorch: a copy, cut from the graph.
    Tensor t = clone(detach(nb::cast<const Tensor&>(data)), MemoryFormat::Contiguous);
    if (dtype) t = to_dtype(t, *dtype);
    if (requires_grad) t.requires_grad_(true);
    return t;
  }
  if (!is_sequence(data) && !PyBool_Check(data.ptr()) && !PyLong_Check(data.ptr()) &&
      !PyFloat_Check(data.ptr()) && !PyComplex_Check(data.ptr())) {
    // NumPy arrays and anything else with the buffer protocol or DLPack: a copy.
    nb::object asarray = nb::module_::import_("ember").attr("from_dlpack");
    Tensor t = clone(nb::cast<Tensor>(asarray(data)), MemoryFormat::Contiguous);
    if (dtype) t = to_dtype(t, *dtype);
    if (requires_grad) t.requires_grad_(true);
    return t;
  }
  // Lists inside are read through PySequence_Fast, so tuples and lists mix freely.
  nb::object fast = nb::borrow(data);
  DimVector shape;
  Kind kind = Kind::None;
  bool seen = false;
  infer(fast, 0, shape, kind, seen);
  // No numbers at all (empty lists): the default float dtype, as PyTorch.
  const DType natural = kind == Kind::Bool      ? kBool
                        : kind == Kind::Int     ? kInt64
                        : kind == Kind::Complex ? to_complex_dtype(get_default_dtype())
                                                : get_default_dtype();
  const DType dt = dtype.value_or(natural);
  Tensor t = empty(shape, TensorOptions(dt));
  dispatch_dtype<kAllTypesAndComplex>(dt, "tensor", [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    fill<T>(fast, p);
  });
  if (device && !device->is_cpu()) t = t.to(*device);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

}  // namespace

void init_creation(nb::module_& m) {
  // empty(*size), zeros(*size), ones(*size): the size as varargs or one sequence.
#define EMBER_BIND_SIZED(name)                                           \
  m.def(                                                                 \
      #name,                                                             \
      [](nb::args size, EMBER_OPTION_PARAMS) {                           \
        return name(shape_from_args(size, #name), options(dt, dev, rg)); \
      },                                                                 \
      nb::arg("size"), nb::kw_only(), EMBER_OPTION_ARGS);
  EMBER_BIND_SIZED(zeros)
  EMBER_BIND_SIZED(ones)
#undef EMBER_BIND_SIZED
  m.def(
      "empty",
      [](nb::args size, EMBER_OPTION_PARAMS, MemoryFormat format) {
        return empty(shape_from_args(size, "empty"), options(dt, dev, rg), format);
      },
      nb::arg("size"), nb::kw_only(), EMBER_OPTION_ARGS,
      nb::arg("memory_format") = MemoryFormat::Contiguous);
  m.def(
      "full",
      [](DimVector size, const Scalar& v, EMBER_OPTION_PARAMS) {
        return full(size, v, options(dt, dev, rg));
      },
      nb::arg("size"), nb::arg("fill_value"), nb::kw_only(), EMBER_OPTION_ARGS);
  // arange(end), arange(start, end), arange(start, end, step).
  m.def(
      "arange",
      [](const Scalar& a, std::optional<Scalar> b, const Scalar& step, EMBER_OPTION_PARAMS) {
        return b ? arange(a, *b, step, options(dt, dev, rg))
                 : arange(0, a, step, options(dt, dev, rg));
      },
      nb::arg("start"), nb::arg("end") = nb::none(), nb::arg("step") = 1, nb::kw_only(),
      EMBER_OPTION_ARGS);
  m.def(
      "linspace",
      [](const Scalar& a, const Scalar& b, int64_t steps, EMBER_OPTION_PARAMS) {
        return linspace(a, b, steps, options(dt, dev, rg));
      },
      nb::arg("start"), nb::arg("end"), nb::arg("steps"), nb::kw_only(), EMBER_OPTION_ARGS);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> mcols, EMBER_OPTION_PARAMS) {
        return eye(n, mcols, options(dt, dev, rg));
      },
      nb::arg("n"), nb::arg("m") = nb::none(), nb::kw_only(), EMBER_OPTION_ARGS);
  m.def(
      "empty_strided",
      [](DimVector size, DimVector stride, EMBER_OPTION_PARAMS) {
        return empty_strided(size, stride, options(dt, dev, rg));
      },
      nb::arg("size"), nb::arg("stride"), nb::kw_only(), EMBER_OPTION_ARGS);
  m.def(
      "scalar_tensor",
      [](const Scalar& v, EMBER_OPTION_PARAMS) {
        return scalar_tensor(v,
                             options(dt ? dt : std::optional<DType>(get_default_dtype()), dev, rg));
      },
      nb::arg("s"), nb::kw_only(), EMBER_OPTION_ARGS);

  // empty_like, zeros_like, ones_like keep the input's layout (memory_format=preserve_format).
#define EMBER_BIND_LIKE_FORMAT(name)                                  \
  m.def(                                                              \
      #name,                                                          \
      [](const Tensor& t, EMBER_OPTION_PARAMS, MemoryFormat format) { \
        return name(t, options(dt, dev, rg), format);                 \
      },                                                              \
      nb::arg("input"), nb::kw_only(), EMBER_OPTION_ARGS,             \
      nb::arg("memory_format") = MemoryFormat::Preserve);
  EMBER_BIND_LIKE_FORMAT(empty_like)
  EMBER_BIND_LIKE_FORMAT(zeros_like)
  EMBER_BIND_LIKE_FORMAT(ones_like)
#undef EMBER_BIND_LIKE_FORMAT
  m.def(
      "full_like",
      [](const Tensor& t, const Scalar& v, EMBER_OPTION_PARAMS, MemoryFormat format) {
        return full_like(t, v, options(dt, dev, rg), format);
      },
      nb::arg("input"), nb::arg("fill_value"), nb::kw_only(), EMBER_OPTION_ARGS,
      nb::arg("memory_format") = MemoryFormat::Preserve);

  // new_* methods: same dtype and device as self unless given.
  auto& cls = tensor_class();
#define EMBER_BIND_NEW(pyname, fn)                                              \
  cls.def(                                                                      \
      pyname,                                                                   \
      [](const Tensor& t, nb::args size, EMBER_OPTION_PARAMS) {                 \
        return fn(shape_from_args(size, pyname), options_like(t, dt, dev, rg)); \
      },                                                                        \
      nb::arg("size"), nb::kw_only(), EMBER_OPTION_ARGS);
  EMBER_BIND_NEW("new_zeros", zeros)
  EMBER_BIND_NEW("new_ones", ones)
  EMBER_BIND_NEW("new_empty", empty)
#undef EMBER_BIND_NEW
  cls.def(
      "new_full",
      [](const Tensor& t, DimVector size, const Scalar& v, EMBER_OPTION_PARAMS) {
        return full(size, v, options_like(t, dt, dev, rg));
      },
      nb::arg("size"), nb::arg("fill_value"), nb::kw_only(), EMBER_OPTION_ARGS);
  cls.def(
      "new_tensor",
      [](const Tensor& t, nb::handle data, EMBER_OPTION_PARAMS) {
        return tensor_from_data(data, dt.value_or(t.dtype()), dev, rg);
      },
      nb::arg("data"), nb::kw_only(), EMBER_OPTION_ARGS);

  m.def("tensor", &tensor_from_data, nb::arg("data"), nb::kw_only(), EMBER_OPTION_ARGS);
  m.def("get_default_dtype", &get_default_dtype);
  m.def("set_default_dtype", &set_default_dtype, nb::arg("d"));
}

}  // namespace ember::py
