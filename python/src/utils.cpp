// Threads, memory statistics, print options and the op registry.
#include <nanobind/stl/map.h>

#include "init.h"

namespace ember::py {

void init_utils(nb::module_& m) {
  m.def("get_num_threads", &get_num_threads);
  m.def("set_num_threads", &set_num_threads, nb::arg("num"));

  m.def("memory_stats", [] {
    const MemoryStats s = cpu_allocator().stats();
    nb::dict d;
    d["allocated_bytes"] = s.allocated_bytes;
    d["reserved_bytes"] = s.reserved_bytes;
    d["peak_allocated_bytes"] = s.peak_allocated_bytes;
    d["peak_reserved_bytes"] = s.peak_reserved_bytes;
    d["num_allocs"] = s.num_allocs;
    d["num_cache_hits"] = s.num_cache_hits;
    d["num_system_allocs"] = s.num_system_allocs;
    return d;
  });
  m.def("memory_allocated", [] { return cpu_allocator().stats().allocated_bytes; });
  m.def("memory_reserved", [] { return cpu_allocator().stats().reserved_bytes; });
  m.def("max_memory_allocated", [] { return cpu_allocator().stats().peak_allocated_bytes; });
  m.def("max_memory_reserved", [] { return cpu_allocator().stats().peak_reserved_bytes; });
  m.def("reset_peak_memory_stats", [] { cpu_allocator().reset_peak_stats(); });
  m.def("empty_cache", [] { cpu_allocator().empty_cache(); });
  m.def(
      "set_cache_limit", [](int64_t b) { cpu_allocator().set_cache_limit(b); }, nb::arg("bytes"));

  m.def(
      "_set_printoptions",
      [](std::optional<int> precision, std::optional<int64_t> threshold,
         std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth, nb::handle sci_mode,
         bool reset) {
        PrintOptions& o = print_options();
        if (reset) o = PrintOptions();
        if (precision) o.precision = *precision;
        if (threshold) o.threshold = *threshold;
        if (edgeitems) o.edgeitems = *edgeitems;
        if (linewidth) o.linewidth = *linewidth;
        if (!sci_mode.is_none())
          o.sci_mode = nb::cast<bool>(sci_mode);
        else if (reset)
          o.sci_mode.reset();
      },
      nb::arg("precision").none(), nb::arg("threshold").none(), nb::arg("edgeitems").none(),
      nb::arg("linewidth").none(), nb::arg("sci_mode").none(), nb::arg("reset"));

  // [(name, kind, [dtypes], differentiable)] for the op-table coverage test.
  m.def("_op_registry", [] {
    nb::list out;
    for (const OpInfo& op : op_registry()) {
      nb::list dtypes;
      for (int i = 0; i < kNumDTypes; ++i)
        if (op.dtypes.contains(DType(i))) dtypes.append(dtype_object(DType(i)));
      out.append(nb::make_tuple(std::string(op.name), std::string(op_kind_name(op.kind)), dtypes,
                                op.differentiable, std::string(op.topic)));
    }
    return out;
  });
  m.def("_set_size_type", &set_size_type);
  m.def("_result_type", [](TensorOrScalar a, TensorOrScalar b) {
    EMBER_CHECK_TYPE(a.tensor || b.tensor, "result_type needs at least one Tensor");
    if (a.tensor && b.tensor) return result_type(*a.tensor, *b.tensor);
    return a.tensor ? result_type(*a.tensor, b.scalar) : result_type(*b.tensor, a.scalar);
  });
}

}  // namespace ember::py
