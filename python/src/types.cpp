// ember.dtype objects, ember.device and ember.Generator.
#include "init.h"

namespace ember::py {

void init_dtype_objects(nb::module_& m, nb::handle cls);

namespace {
// A seed from any Python int, taken modulo 2^64 (so initial_seed() always round-trips, and
// negative seeds work as in PyTorch).
uint64_t seed_arg(nb::handle h) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr())) {
    type_error("manual_seed expected an int, got " + py_type_name(h));
  }
  return PyLong_AsUnsignedLongLongMask(h.ptr());
}
}  // namespace

void init_types(nb::module_& m) {
  auto dtype_cls =
      nb::class_<DTypeObject>(m, "dtype")
          .def_prop_ro("is_floating_point",
                       [](const DTypeObject& d) { return is_floating(d.value); })
          .def_prop_ro("is_complex", [](const DTypeObject& d) { return is_complex(d.value); })
          // Methods, as PyTorch's: torch.complex64.to_real() is torch.float32.
          .def("to_real", [](const DTypeObject& d) { return to_real_dtype(d.value); })
          .def("to_complex",
               [](const DTypeObject& d) {
                 EMBER_CHECK(is_differentiable(d.value), "[dtype.to_complex] ", d.value,
                             " has no complex counterpart");
                 return to_complex_dtype(d.value);
               })
          .def_prop_ro("is_signed", [](const DTypeObject& d) { return is_signed(d.value); })
          .def_prop_ro("itemsize", [](const DTypeObject& d) { return itemsize(d.value); })
          .def("__repr__",
               [](const DTypeObject& d) { return "ember." + std::string(dtype_name(d.value)); })
          .def("__reduce__", [](const DTypeObject& d) { return std::string(dtype_name(d.value)); });
  init_dtype_objects(m, dtype_cls);
  // PyTorch's aliases.
  m.attr("half") = dtype_object(kFloat16);
  m.attr("float") = dtype_object(kFloat32);
  m.attr("double") = dtype_object(kFloat64);
  m.attr("short") = dtype_object(kInt16);
  m.attr("int") = dtype_object(kInt32);
  m.attr("long") = dtype_object(kInt64);
  m.attr("cfloat") = dtype_object(kComplex64);
  m.attr("cdouble") = dtype_object(kComplex128);
  m.def("promote_types", &promote_types, nb::arg("type1"), nb::arg("type2"));

  // ember.contiguous_format, ember.channels_last, ... as PyTorch's torch.memory_format values.
  nb::enum_<MemoryFormat>(m, "memory_format")
      .value("contiguous_format", MemoryFormat::Contiguous)
      .value("channels_last", MemoryFormat::ChannelsLast)
      .value("channels_last_3d", MemoryFormat::ChannelsLast3d)
      .value("preserve_format", MemoryFormat::Preserve)
      .export_values();

  nb::class_<Device>(m, "device")
      .def(nb::init<std::string_view>(), nb::arg("type"))
      .def(
          "__init__",
          [](Device* d, std::string_view type, int index) {
            new (d) Device(Device(type).type, int8_t(index));
          },
          nb::arg("type"), nb::arg("index"))
      .def_prop_ro("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "cuda"; })
      .def_prop_ro("index",
                   [](const Device& d) -> nb::object {
                     return d.index < 0 ? nb::object(nb::none()) : nb::object(nb::int_(d.index));
                   })
      .def("__str__", &Device::str)
      .def("__repr__",
           [](const Device& d) {
             std::string s = std::string("device(type='") + (d.is_cpu() ? "cpu" : "cuda") + "'";
             if (d.index >= 0) s += ", index=" + std::to_string(d.index);
             return s + ")";
           })
      .def(
          "__eq__", [](const Device& a, const Device& b) { return a == b; }, nb::is_operator())
      .def("__hash__", [](const Device& d) { return int(d.type) * 256 + d.index; });
  nb::implicitly_convertible<std::string_view, Device>();

  nb::class_<Generator>(m, "Generator")
      .def(
          "__init__",
          [](Generator* g, std::optional<Device> device) {
            EMBER_CHECK(!device || device->is_cpu(), "[Generator] only CPU generators exist");
            new (g) Generator();
          },
          nb::arg("device") = nb::none())
      .def(
          "manual_seed",
          [](nb::handle self, nb::handle seed) {
            nb::cast<Generator&>(self).manual_seed(seed_arg(seed));
            return self;
          },
          nb::arg("seed"))
      .def("seed", [](Generator& g) { return g.seed(); })
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state",
           [](const Generator& g) {
             const auto state = g.get_state();
             return tensor(std::vector<uint8_t>(state.begin(), state.end()), {}, kUInt8);
           })
      .def(
          "set_state",
          [](Generator& g, const Tensor& state) {
            EMBER_CHECK_TYPE(state.dtype() == kUInt8,
                             "[Generator.set_state] expected a uint8 "
                             "tensor (from get_state()), got ",
                             state.dtype());
            const auto bytes = contiguous(state).to_vector<uint8_t>();
            g.set_state(bytes.data(), bytes.size());
          },
          nb::arg("new_state"))
      .def_prop_ro("device", [](const Generator&) { return kCPU; });
  m.attr("default_generator") = nb::cast(&default_generator(), nb::rv_policy::reference);
  m.def(
      "manual_seed",
      [](nb::handle seed) {
        manual_seed(seed_arg(seed));
        return nb::module_::import_("ember").attr("default_generator");
      },
      nb::arg("seed"));
  m.def("seed", [] { return default_generator().seed(); });
  m.def("initial_seed", [] { return default_generator().initial_seed(); });
  m.def("get_rng_state", [] {
    const auto s = default_generator().get_state();
    return tensor(std::vector<uint8_t>(s.begin(), s.end()), {}, kUInt8);
  });
  m.def(
      "set_rng_state",
      [](const Tensor& state) {
        EMBER_CHECK_TYPE(state.dtype() == kUInt8,
                         "[set_rng_state] expected a uint8 tensor (from "
                         "get_rng_state()), got ",
                         state.dtype());
        const auto bytes = contiguous(state).to_vector<uint8_t>();
        default_generator().set_state(bytes.data(), bytes.size());
      },
      nb::arg("new_state"));
}

}  // namespace ember::py
