// Bindings of the views and copies as Tensor methods and functions: view, reshape, permute,
// transpose, expand, squeeze, narrow, select, as_strided, clone, contiguous, to and the dtype
// casts.
#include "init.h"

namespace ember::py {
namespace {

Tensor to_impl(const Tensor& self,
               std::optional<DType> dtype,
               std::optional<Device> device,
               bool copy) {
  Tensor out = self;
  if (device && !(*device == out.device())) out = out.to(*device, false);
  if (dtype && *dtype != out.dtype()) out = to_dtype(out, *dtype);
  if (copy && out.is_same(self)) out = clone(self);
  return out;
}

}  // namespace

void init_view(nb::module_& m) {
  auto& cls = tensor_class();
  cls.def("view",
          [](const Tensor& t, nb::args shape) -> nb::object {
            if (shape.size() == 1 && nb::isinstance<DTypeObject>(shape[0])) {
              EMBER_FAIL_KIND(ErrorKind::NotImplemented, "[view] view(dtype) is not supported yet");
            }
            return wrap(view(t, shape_from_args(shape, "view")));
          })
      .def("reshape", [](const Tensor& t,
                         nb::args shape) { return reshape(t, shape_from_args(shape, "reshape")); })
      .def("expand", [](const Tensor& t,
                        nb::args shape) { return expand(t, shape_from_args(shape, "expand")); })
      .def("permute", [](const Tensor& t,
                         nb::args dims) { return permute(t, shape_from_args(dims, "permute")); })
      .def("sum_to_size",
           [](const Tensor& t, nb::args size) {
             return sum_to_size(t, shape_from_args(size, "sum_to_size"));
           })
      .def(
          "view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); },
          nb::arg("other"))
      .def(
          "reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); },
          nb::arg("other"))
      .def(
          "expand_as", [](const Tensor& t, const Tensor& o) { return expand(t, o.sizes()); },
          nb::arg("other"))
      .def_prop_ro("T",
                   [](const Tensor& t) {
                     DimVector dims;
                     for (int64_t d = t.dim() - 1; d >= 0; --d) dims.push_back(d);
                     return permute(t, dims);
                   })
      .def_prop_ro("mT", [](const Tensor& t) {
        EMBER_CHECK(t.dim() >= 2,
                    "[mT] tensor.mT is only supported on matrices or batches of "
                    "matrices. Got ",
                    t.dim(), "-D tensor.");
        return transpose(t, -2, -1);
      });
  m.def(
      "reshape", [](const Tensor& t, DimVector shape) { return reshape(t, shape); },
      nb::arg("input"), nb::arg("shape"));
  m.def(
      "permute", [](const Tensor& t, DimVector dims) { return permute(t, dims); }, nb::arg("input"),
      nb::arg("dims"));
  def_both(
      m, "transpose", [](const Tensor& t, int64_t d0, int64_t d1) { return transpose(t, d0, d1); },
      nb::arg("dim0"), nb::arg("dim1"));
  def_both(
      m, "swapaxes", [](const Tensor& t, int64_t d0, int64_t d1) { return transpose(t, d0, d1); },
      nb::arg("axis0"), nb::arg("axis1"));
  def_both(m, "t", [](const Tensor& t) { return ember::t(t); });
  def_both(
      m, "squeeze",
      [](const Tensor& t, std::optional<DimVector> dim) {
        if (!dim) return squeeze(t);
        Tensor out = t;
        // Several dims: squeeze from the last so the earlier indices stay valid.
        DimVector dims;
        for (int64_t d : *dim) dims.push_back(wrap_dim(d, t.dim(), "squeeze"));
        std::sort(dims.begin(), dims.end());
        for (size_t i = 1; i < dims.size(); ++i) {
          EMBER_CHECK(dims[i] != dims[i - 1], "[squeeze] dim ", dims[i],
                      " appears multiple times in the list of dims");
        }
        for (size_t i = dims.size(); i-- > 0;) out = squeeze(out, dims[i]);
        return out;
      },
      nb::arg("dim") = nb::none());
  def_both(
      m, "unsqueeze", [](const Tensor& t, int64_t dim) { return unsqueeze(t, dim); },
      nb::arg("dim"));
  def_both(
      m, "flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); },
      nb::arg("start_dim") = 0, nb::arg("end_dim") = -1);
  def_both(
      m, "narrow",
      [](const Tensor& t, int64_t dim, int64_t start, int64_t length) {
        return narrow(t, dim, start, length);
      },
      nb::arg("dim"), nb::arg("start"), nb::arg("length"));
  def_both(
      m, "select",
      [](const Tensor& t, int64_t dim, int64_t index) { return select(t, dim, index); },
      nb::arg("dim"), nb::arg("index"));
  def_both(
      m, "clone", [](const Tensor& t, MemoryFormat format) { return clone(t, format); },
      nb::kw_only(), nb::arg("memory_format") = MemoryFormat::Preserve);
  def_both(
      m, "as_strided",
      [](const Tensor& t, DimVector size, DimVector stride, std::optional<int64_t> offset) {
        return as_strided(t, size, stride, offset);
      },
      nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none());
  // The gradients of select and slicing, as ops of their own (their backward is select/slice).
  m.def(
      "_select_backward",
      [](const Tensor& g, DimVector sizes, int64_t dim, int64_t index) {
        return select_backward(g, sizes, dim, index);
      },
      nb::arg("grad"), nb::arg("input_sizes"), nb::arg("dim"), nb::arg("index"));
  m.def(
      "_slice_backward",
      [](const Tensor& g, DimVector sizes, int64_t dim, int64_t start, int64_t end, int64_t step) {
        return slice_backward(g, sizes, dim, start, end, step);
      },
      nb::arg("grad"), nb::arg("input_sizes"), nb::arg("dim"), nb::arg("start"), nb::arg("end"),
      nb::arg("step"));
  def_both(m, "detach", [](const Tensor& t) { return detach(t); });
  cls.def(
      "contiguous",
      [](nb::handle self, MemoryFormat format) -> nb::object {
        const Tensor& t = nb::cast<const Tensor&>(self);
        Tensor out = contiguous(t, format);
        return out.is_same(t) ? nb::borrow(self) : wrap(std::move(out));
      },
      nb::arg("memory_format") = MemoryFormat::Contiguous);
  cls.def("detach_", [](nb::handle self) {
    nb::cast<Tensor&>(self).detach_();
    return nb::borrow(self);
  });

  // to(dtype), to(device), to(device, dtype), to(other), with keywords as PyTorch.
  cls.def("to", [](nb::handle self, nb::args args, nb::kwargs kwargs) -> nb::object {
    const Tensor& t = nb::cast<const Tensor&>(self);
    std::optional<DType> dtype;
    std::optional<Device> device;
    bool copy = false;
    MemoryFormat format = MemoryFormat::Preserve;
    for (nb::handle a : args) {
      if (nb::isinstance<Tensor>(a)) {
        dtype = nb::cast<const Tensor&>(a).dtype();
        device = nb::cast<const Tensor&>(a).device();
      } else if (nb::isinstance<DTypeObject>(a)) {
        dtype = arg_cast<DType>(a, "dtype", "an ember.dtype");
      } else if (a.is_none()) {
        continue;
      } else if (nb::isinstance<Device>(a) || nb::isinstance<nb::str>(a)) {
        device = device_arg(a);
      } else if (PyBool_Check(a.ptr())) {
        continue;  // non_blocking
      } else {
        type_error("to() received an invalid combination of arguments");
      }
    }
    for (auto [k, v] : kwargs) {
      const std::string key = nb::cast<std::string>(k);
      if (key == "dtype") {
        if (!v.is_none()) dtype = arg_cast<DType>(v, "to(): dtype", "an ember.dtype");
      } else if (key == "device") {
        if (!v.is_none()) device = device_arg(v);
      } else if (key == "copy") {
        copy = arg_cast<bool>(v, "to(): copy", "a bool");
      } else if (key == "memory_format") {
        format = arg_cast<MemoryFormat>(v, "to(): memory_format", "an ember.memory_format");
      } else if (key != "non_blocking") {
        type_error("to() got an unexpected keyword argument '" + key + "'");
      }
    }
    Tensor out = to_impl(t, dtype, device, copy);
    // to(memory_format=...) copies unless the tensor's suggested format is already that one, as
    // PyTorch: a transposed matrix stays as it is, an N x C x 1 x 1 tensor takes the format's
    // strides.
    if (format != MemoryFormat::Preserve && out.suggest_memory_format() != format)
      out = clone(out, format);
    return out.is_same(t) ? nb::borrow(self) : wrap(std::move(out));
  });
  struct Cast {
    const char* name;
    DType dtype;
  };
  for (Cast c :
       {Cast{"float", kFloat32}, Cast{"double", kFloat64}, Cast{"half", kFloat16},
        Cast{"bfloat16", kBFloat16}, Cast{"int", kInt32}, Cast{"long", kInt64},
        Cast{"short", kInt16}, Cast{"char", kInt8}, Cast{"byte", kUInt8}, Cast{"bool", kBool}}) {
    const DType dt = c.dtype;
    cls.def(c.name, [dt](nb::handle self) -> nb::object {
      const Tensor& t = nb::cast<const Tensor&>(self);
      return t.dtype() == dt ? nb::borrow(self) : wrap(to_dtype(t, dt));
    });
  }
  cls.def("cpu", [](nb::handle self) -> nb::object {
    const Tensor& t = nb::cast<const Tensor&>(self);
    return t.device().is_cpu() ? nb::borrow(self) : wrap(t.to(kCPU));
  });
  cls.def(
      "type_as", [](const Tensor& t, const Tensor& o) { return to_dtype(t, o.dtype()); },
      nb::arg("other"));
}

}  // namespace ember::py
