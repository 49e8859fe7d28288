// The Tensor class: properties, conversions, Python operators and indexing (x[idx], x[idx] = v).
#include "init.h"

namespace ember::py {
namespace {

// Alive only while the module initialises (a lasting reference would leak the type).
std::optional<nb::class_<Tensor>> tensor_cls;

nb::object scalar_to_python(const Scalar& s) {
  return nb::steal(nb::detail::type_caster<Scalar>::from_cpp(s, nb::rv_policy::move, nullptr));
}

nb::object tolist(const Tensor& t, int64_t dim, int64_t offset) {
  if (dim == t.dim()) {
    return dispatch_dtype<kAllTypesAndComplex>(t.dtype(), "tolist", [&]<class T>() {
      return scalar_to_python(Scalar(static_cast<const T*>(t.data_ptr())[offset]));
    });
  }
  const int64_t n = t.sizes()[dim], stride = t.strides()[dim];
  PyObject* list = PyList_New(Py_ssize_t(n));
  nb::object owner = nb::steal(list);
  for (int64_t i = 0; i < n; ++i) {
    PyList_SET_ITEM(list, i, tolist(t, dim + 1, offset + i * stride).release().ptr());
  }
  return owner;
}

// One Python slice applied to `dim`.
Tensor apply_slice(const Tensor& self, int64_t dim, nb::handle s) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(s.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
  EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
  const int64_t size = self.sizes()[dim];
  PySlice_AdjustIndices(Py_ssize_t(size), &start, &stop, step);
  if (stop < start) stop = start;
  return slice(self, dim, int64_t(start), int64_t(stop), int64_t(step));
}

bool is_int_index(nb::handle h) { return PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr()); }

// A non-basic index item (a tensor, a list, an array) as a tensor: lists and arrays go through
// ember.tensor, so [0, 2] and [True, False] become int64 and bool tensors.
Tensor index_tensor(nb::handle it) {
  if (nb::isinstance<Tensor>(it)) return nb::cast<Tensor>(it);
  return nb::cast<Tensor>(nb::module_::import_("ember").attr("tensor")(it));
}

// An integer index: a Python int or an object with __index__ that is not an array (NumPy arrays
// have __index__ too, but index as arrays; NumPy integer scalars have ndim 0).
bool is_int_like(nb::handle it) {
  if (PyBool_Check(it.ptr()) || nb::isinstance<Tensor>(it) || !PyIndex_Check(it.ptr()))
    return false;
  if (PyLong_Check(it.ptr()) || !nb::hasattr(it, "ndim")) return true;
  return nb::cast<int64_t>(it.attr("ndim")) == 0;
}

bool is_basic(nb::handle it) {
  return it.is_none() || it.ptr() == Py_Ellipsis || PySlice_Check(it.ptr()) || is_int_like(it);
}

bool list_as_tuple(nb::handle idx) {
  if (!PyList_Check(idx.ptr()) || PyList_GET_SIZE(idx.ptr()) >= 32) return false;
  for (nb::handle it : nb::borrow<nb::list>(idx)) {
    if (it.is_none() || it.ptr() == Py_Ellipsis || PySlice_Check(it.ptr()) ||
        nb::isinstance<Tensor>(it) || PyList_Check(it.ptr()) || PyTuple_Check(it.ptr())) {
      // PyTorch's deprecation warning, word for word in substance.
      PyErr_WarnEx(PyExc_UserWarning,
                   "Using a non-tuple sequence for multidimensional indexing is deprecated; use "
                   "x[tuple(seq)] instead of x[seq]",
                   1);
      return true;
    }
  }
  return false;
}

// x[idx] in two steps, as PyTorch: the basic items (ints, slices with steps, None, Ellipsis)
// give a view; the advanced ones (integer tensors and lists, bool masks) are then applied to that
// view's dims by ember::index. `adv` receives them aligned to the view's dims (empty if none).
Tensor basic_view(const Tensor& self, nb::handle idx, OptionalTensors& adv) {
  if (is_int_index(idx)) return select(self, 0, to_int64(idx, "index"));
  if (PySlice_Check(idx.ptr())) {
    EMBER_CHECK_INDEX(self.dim() > 0, "[index] invalid index of a 0-dim tensor");
    return apply_slice(self, 0, idx);
  }
  // A tuple is several items, and so is a short list holding a slice, Ellipsis, None, a tensor
  // or a sequence (NumPy's legacy rule, which PyTorch keeps: x[[slice(None), 0]] is x[:, 0]);
  // anything else, a list of ints included, is one item.
  nb::tuple items = PyTuple_Check(idx.ptr()) || list_as_tuple(idx) ? nb::tuple(nb::borrow(idx))
                                                                   : nb::make_tuple(idx);
  std::vector<std::optional<Tensor>> tensors;  // the advanced items, converted
  // How many dims the items consume, to know how many an Ellipsis stands for.
  int64_t consumed = 0;
  bool ellipsis = false;
  for (nb::handle it : items) {
    tensors.emplace_back();
    if (it.is_none()) continue;
    if (it.ptr() == Py_Ellipsis) {
      EMBER_CHECK_INDEX(!ellipsis, "an index can only have a single ellipsis ('...')");
      ellipsis = true;
      continue;
    }
    if (is_basic(it)) {
      ++consumed;
      continue;
    }
    if (PyBool_Check(it.ptr())) {
      EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                      "[index] a Python bool as an index (x[True]) is not supported yet");
    }
    if (!nb::isinstance<Tensor>(it) && !PySequence_Check(it.ptr()) &&
        !nb::hasattr(it, "__array__")) {
      type_error(
          "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors "
          "are valid indices (got " +
          py_type_name(it) + ")");
    }
    const Tensor t = index_tensor(it);
    consumed += (t.dtype() == kBool || t.dtype() == kUInt8) ? t.dim() : 1;
    tensors.back() = t;
  }
  EMBER_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim(),
                    " (got ", consumed, ")");
  Tensor out = self;
  int64_t dim = 0;
  std::vector<std::pair<int64_t, Tensor>> placed;  // (dim of `out`, index tensor)
  size_t k = 0;
  for (nb::handle it : items) {
    const auto& t = tensors[k++];
    if (t) {
      placed.emplace_back(dim, *t);
      dim += (t->dtype() == kBool || t->dtype() == kUInt8) ? t->dim() : 1;
    } else if (it.is_none()) {
      out = unsqueeze(out, dim++);
    } else if (it.ptr() == Py_Ellipsis) {
      dim += self.dim() - consumed;
    } else if (PySlice_Check(it.ptr())) {
      out = apply_slice(out, dim++, it);
    } else {
      out = select(out, dim, to_int64(it, "index"));  // the dim disappears
    }
  }
  // Later items only change dims at or after their own, so the recorded positions still hold.
  for (int64_t d = 0, p = 0; p < int64_t(placed.size());) {
    if (placed[size_t(p)].first == d) {
      const Tensor& t = placed[size_t(p++)].second;
      adv.push_back(t);
      d += (t.dtype() == kBool || t.dtype() == kUInt8) ? t.dim() : 1;
    } else {
      adv.push_back(std::nullopt);
      ++d;
    }
  }
  return out;
}

nb::object getitem(nb::handle self_h, nb::handle idx) {
  const Tensor& self = nb::cast<const Tensor&>(self_h);
  OptionalTensors adv;
  Tensor out = basic_view(self, idx, adv);
  if (!adv.empty()) return wrap(index(out, adv));
  // x[...] and x[()] still give a view, not the tensor itself.
  return wrap(out.is_same(self) ? view(self, self.sizes()) : out);
}

void setitem(Tensor& self, nb::handle idx, TensorOrScalar value) {
  OptionalTensors adv;
  Tensor target = basic_view(self, idx, adv);
  if (!adv.empty()) {
    const Tensor v =
        value.tensor ? *value.tensor : scalar_tensor(value.scalar, TensorOptions(target.dtype()));
    index_put_(target, adv, v.dtype() == target.dtype() ? v : v.to(target.dtype()), false);
  } else if (value.tensor) {
    copy_(target, *value.tensor);
  } else {
    fill_(target, value.scalar);
  }
}

nb::object item(const Tensor& t) { return scalar_to_python(t.item()); }

}  // namespace

nb::class_<Tensor>& tensor_class() { return *tensor_cls; }
void release_tensor_class() { tensor_cls.reset(); }

void init_tensor(nb::module_& m) {
  tensor_cls.emplace(m, "Tensor", nb::dynamic_attr(), nb::is_weak_referenceable());
  // ember.Tensor(...) as torch.Tensor: no argument gives an empty float tensor, sizes (or an
  // ember.Size) give an uninitialised one, a tensor gives an alias without history (how
  // Parameter(data) is built), a sequence or an array gives a copy in the default float dtype.
  tensor_cls
      ->def("__init__",
            [](Tensor* self, nb::args args) {
              if (args.size() == 0) {
                new (self) Tensor(empty({0}));
              } else if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) {
                new (self) Tensor(detach(nb::cast<const Tensor&>(args[0])));
              } else if (args.size() == 1 && !is_size(args[0]) &&
                         (PyList_Check(args[0].ptr()) || PyTuple_Check(args[0].ptr()) ||
                          PyObject_HasAttrString(args[0].ptr(), "__array_interface__") ||
                          PyObject_HasAttrString(args[0].ptr(), "__dlpack__"))) {
                nb::object data = nb::module_::import_("ember").attr("tensor")(
                    args[0], nb::arg("dtype") = dtype_object(get_default_dtype()));
                new (self) Tensor(nb::cast<Tensor>(data));
              } else {
                new (self) Tensor(empty(shape_from_args(args, "Tensor")));
              }
            })
      // ---- what it is
      .def_prop_ro("shape", [](const Tensor& t) { return make_size(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, std::optional<int64_t> dim) -> nb::object {
            if (dim) return nb::int_(t.size(*dim));
            return make_size(t.sizes());
          },
          nb::arg("dim") = nb::none())
      .def(
          "stride",
          [](const Tensor& t, std::optional<int64_t> dim) -> nb::object {
            if (dim) return nb::int_(t.stride(*dim));
            nb::list l;
            for (int64_t s : t.strides()) l.append(s);
            return nb::tuple(l);
          },
          nb::arg("dim") = nb::none())
      .def_prop_ro("dtype", &Tensor::dtype)
      .def_prop_ro("device", &Tensor::device)
      .def_prop_ro("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def_prop_ro("itemsize", &Tensor::element_size)
      .def_prop_ro("nbytes", &Tensor::nbytes)
      .def("storage_offset", &Tensor::storage_offset)
      .def(
          "is_contiguous",
          [](const Tensor& t, MemoryFormat format) { return t.is_contiguous(format); },
          nb::arg("memory_format") = MemoryFormat::Contiguous)
      .def("_is_non_overlapping_and_dense", &Tensor::is_non_overlapping_and_dense)
      .def("_suggest_memory_format", &Tensor::suggest_memory_format)
      .def("is_floating_point", &Tensor::is_floating_point)
      .def_prop_ro("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def_prop_ro("is_cuda", [](const Tensor& t) { return t.device().is_cuda(); })
      .def_prop_ro("_version", &Tensor::version)
      .def_prop_ro(
          "_base",
          [](const Tensor& t) -> nb::object { return t.is_view() ? wrap(t.base()) : nb::none(); })
      .def("_is_view", &Tensor::is_view)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) type_error("len() of a 0-d tensor");
             return t.sizes()[0];
           })
      .def("__repr__", &Tensor::repr)
      .def("__hash__", [](nb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      // ---- values
      .def("item", &item)
      .def("tolist",
           [](const Tensor& t) {
             const Tensor c = t.device().is_cpu() ? t : t.to(kCPU);
             return tolist(c, 0, 0);
           })
      .def("__bool__",
           [](const Tensor& t) {
             EMBER_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
             EMBER_CHECK(t.numel() == 1,
                         "Boolean value of Tensor with more than one value is "
                         "ambiguous");
             return t.item().to_bool();
           })
      .def("__float__", [](const Tensor& t) { return t.item().to_double(); })
      .def("__int__",
           [](const Tensor& t) {
             // Python's own float -> int: exact for large values, ValueError for NaN.
             const Scalar s = t.item();
             return s.is_floating() ? nb::steal(PyLong_FromDouble(s.to_double()))
                                    : nb::steal(PyLong_FromLongLong(s.to_int()));
           })
      .def("__index__",
           [](const Tensor& t) {
             EMBER_CHECK_TYPE(
                 !t.is_floating_point() && t.dtype() != kBool && t.numel() == 1,
                 "only integer tensors of a single element can be converted to an index");
             return t.item().to_int();
           })
      // ---- indexing
      // None is an index (x[None] adds a dim), so these arguments accept it.
      .def("__getitem__", &getitem, nb::arg("index").none())
      .def("__setitem__", &setitem, nb::arg("index").none(), nb::arg("value"));
}

}  // namespace ember::py
