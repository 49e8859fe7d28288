// ember._C._io: the safetensors reader and writer under ember.save / ember.load
// (python/ember/serialization.py lays nested Python objects out as named tensors).
#include <nanobind/stl/map.h>

#include "init.h"

namespace ember::py {
namespace {

using Items = std::vector<std::pair<std::string, Tensor>>;

StateDict to_state_dict(const Items& items) {
  StateDict sd;
  for (const auto& [name, t] : items) {
    // serialization.py makes the names unique; a repeat here would silently drop a tensor.
    EMBER_CHECK(!sd.contains(name), "[ember.save] the name '", name, "' is used twice");
    sd.insert(name, t);
  }
  return sd;
}

nb::tuple to_python(io::Checkpoint ck) {
  nb::list items;
  for (auto& [name, t] : ck.tensors) items.append(nb::make_tuple(name, wrap(std::move(t))));
  return nb::make_tuple(items, nb::cast(ck.metadata));
}

}  // namespace

void init_io(nb::module_& m) {
  nb::module_ io = m.def_submodule("_io", "safetensors files: ember.save and ember.load");
  io.def(
      "save",
      [](const Items& items, const std::string& path, const io::Metadata& metadata) {
        StateDict sd = to_state_dict(items);
        nb::gil_scoped_release release;
        save(sd, path, metadata);
      },
      nb::arg("items"), nb::arg("path"), nb::arg("metadata"),
      "Writes (name, tensor) pairs and string metadata to `path` atomically.");
  io.def(
      "to_bytes",
      [](const Items& items, const io::Metadata& metadata) {
        StateDict sd = to_state_dict(items);
        std::string bytes;
        {
          nb::gil_scoped_release release;
          bytes = io::to_bytes(sd, metadata);
        }
        return nb::bytes(bytes.data(), bytes.size());
      },
      nb::arg("items"), nb::arg("metadata"), "The bytes of a safetensors file.");
  io.def(
      "load",
      [](const std::string& path) {
        io::Checkpoint ck;
        {
          nb::gil_scoped_release release;
          ck = load_with_metadata(path);
        }
        return to_python(std::move(ck));
      },
      nb::arg("path"), "([(name, tensor), ...] in file order, metadata) of a safetensors file.");
  io.def(
      "from_bytes",
      [](nb::bytes data, const std::string& source) {
        return to_python(io::decode(static_cast<const uint8_t*>(data.data()), data.size(), source));
      },
      nb::arg("data"), nb::arg("source"), "load() of a file's bytes; `source` names it in errors.");
}

}  // namespace ember::py
