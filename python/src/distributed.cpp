// ember._C._distributed: stores, process groups, Work and the DDP Reducer (ember/distributed/),
// what ember.distributed and ember.nn.parallel build PyTorch's API on. Everything that can wait
// on another process runs without the GIL.
#include <nanobind/stl/chrono.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "ember/distributed/process_group.h"
#include "ember/distributed/reducer.h"
#include "init.h"

namespace ember::py {
namespace {

using namespace ember::distributed;
using Release = nb::call_guard<nb::gil_scoped_release>;

// Store values are bytes; PyTorch's set also takes str (encoded as UTF-8).
Bytes to_bytes(nb::handle v) {
  if (nb::isinstance<nb::bytes>(v)) {
    nb::bytes b = nb::borrow<nb::bytes>(v);
    const auto* p = static_cast<const uint8_t*>(b.data());
    return Bytes(p, p + b.size());
  }
  if (nb::isinstance<nb::str>(v)) {
    const std::string s = nb::cast<std::string>(v);
    return Bytes(s.begin(), s.end());
  }
  if (nb::isinstance<nb::bytearray>(v) || nb::hasattr(v, "__bytes__")) {
    return to_bytes(nb::bytes(nb::steal(PyBytes_FromObject(v.ptr()))));
  }
  throw nb::type_error("Store values must be bytes or str");
}
nb::bytes from_bytes(const Bytes& b) {
  return nb::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace

void init_distributed(nb::module_& m) {
  nb::module_ d = m.def_submodule("_distributed", "collectives across processes (Gloo)");

  nb::class_<Store>(d, "Store")
      .def(
          "set",
          [](Store& s, const std::string& k, nb::handle v) {
            Bytes b = to_bytes(v);
            nb::gil_scoped_release release;
            s.set(k, b);
          },
          nb::arg("key"), nb::arg("value"))
      .def(
          "get",
          [](Store& s, const std::string& k) {
            Bytes b;
            {
              nb::gil_scoped_release release;
              b = s.get(k);
            }
            return from_bytes(b);
          },
          nb::arg("key"))
      .def("add", &Store::add, nb::arg("key"), nb::arg("value"), Release())
      .def(
          "compare_set",
          [](Store& s, const std::string& k, nb::handle expected, nb::handle desired) {
            Bytes e = to_bytes(expected), v = to_bytes(desired), r;
            {
              nb::gil_scoped_release release;
              r = s.compare_set(k, e, v);
            }
            return from_bytes(r);
          },
          nb::arg("key"), nb::arg("expected_value"), nb::arg("desired_value"))
      .def("check", &Store::check, nb::arg("keys"), Release())
      .def("delete_key", &Store::delete_key, nb::arg("key"), Release())
      .def("num_keys", &Store::num_keys, Release())
      .def(
          "wait", [](Store& s, const std::vector<std::string>& keys) { s.wait(keys); },
          nb::arg("keys"), Release())
      .def(
          "wait",
          [](Store& s, const std::vector<std::string>& keys, Millis timeout) {
            s.wait(keys, timeout);
          },
          nb::arg("keys"), nb::arg("timeout"), Release())
      .def("set_timeout", &Store::set_timeout, nb::arg("timeout"))
      .def_prop_ro("timeout", &Store::timeout);

  nb::class_<HashStore, Store>(d, "HashStore").def(nb::init<>());
  nb::class_<FileStore, Store>(d, "FileStore")
      .def(nb::init<std::string, int, Millis>(), nb::arg("file_name"), nb::arg("world_size") = -1,
           nb::arg("timeout") = kDefaultStoreTimeout, Release())
      .def_prop_ro("path", &FileStore::path);
  nb::class_<PrefixStore, Store>(d, "PrefixStore")
      .def(nb::init<std::string, std::shared_ptr<Store>>(), nb::arg("prefix"), nb::arg("store"))
      .def_prop_ro("underlying_store", &PrefixStore::underlying);
  nb::class_<TCPStore, Store>(d, "TCPStore")
      .def(nb::init<std::string, int, int, bool, Millis, bool>(), nb::arg("host_name"),
           nb::arg("port"), nb::arg("world_size") = -1, nb::arg("is_master") = false,
           nb::arg("timeout") = kDefaultStoreTimeout, nb::arg("wait_for_workers") = true, Release())
      .def_prop_ro("host", &TCPStore::host)
      .def_prop_ro("port", &TCPStore::port);

  nb::enum_<ReduceOp>(d, "ReduceOp")
      .value("SUM", ReduceOp::Sum)
      .value("AVG", ReduceOp::Avg)
      .value("PRODUCT", ReduceOp::Product)
      .value("MIN", ReduceOp::Min)
      .value("MAX", ReduceOp::Max)
      .value("BAND", ReduceOp::BAnd)
      .value("BOR", ReduceOp::BOr)
      .value("BXOR", ReduceOp::BXor);

  nb::class_<Work>(d, "Work")
      .def(
          "wait",
          [](Work& w, std::optional<Millis> timeout) {
            w.wait(timeout.value_or(Millis(-1)));
            return true;
          },
          nb::arg("timeout") = nb::none(), Release())
      .def("is_completed", &Work::is_completed)
      .def("is_success", &Work::is_success)
      .def("exception",
           [](Work& w) -> nb::object {
             std::exception_ptr e = w.exception();
             if (!e) return nb::none();
             try {
               std::rethrow_exception(e);
             } catch (const std::exception& ex) {
               return nb::module_::import_("builtins").attr("RuntimeError")(ex.what());
             }
           })
      .def("result", &Work::result)
      .def("_source_rank", [](Work& w) {
        auto* r = dynamic_cast<RecvWork*>(&w);
        return r ? r->source_rank() : -1;
      });

  nb::class_<ProcessGroup>(d, "ProcessGroup")
      .def("rank", &ProcessGroup::rank)
      .def("size", &ProcessGroup::size)
      .def("name", &ProcessGroup::backend)
      .def_prop_ro("timeout", &ProcessGroup::timeout)
      .def("allreduce", &ProcessGroup::allreduce, nb::arg("tensor"), nb::arg("op"), Release())
      .def("broadcast", &ProcessGroup::broadcast, nb::arg("tensor"), nb::arg("root"), Release())
      .def("reduce", &ProcessGroup::reduce, nb::arg("tensor"), nb::arg("root"), nb::arg("op"),
           Release())
      .def("allgather", &ProcessGroup::allgather, nb::arg("outputs"), nb::arg("input"), Release())
      .def("allgather_into_tensor", &ProcessGroup::allgather_into_tensor, nb::arg("output"),
           nb::arg("input"), Release())
      .def("gather", &ProcessGroup::gather, nb::arg("outputs"), nb::arg("input"), nb::arg("root"),
           Release())
      .def("scatter", &ProcessGroup::scatter, nb::arg("output"), nb::arg("inputs"), nb::arg("root"),
           Release())
      .def("reduce_scatter_tensor", &ProcessGroup::reduce_scatter_tensor, nb::arg("output"),
           nb::arg("input"), nb::arg("op"), Release())
      .def("alltoall_base", &ProcessGroup::alltoall_base, nb::arg("output"), nb::arg("input"),
           nb::arg("output_splits"), nb::arg("input_splits"), Release())
      .def("barrier", &ProcessGroup::barrier, Release())
      .def("send", &ProcessGroup::send, nb::arg("tensor"), nb::arg("dst"), nb::arg("tag"),
           Release())
      .def("recv", &ProcessGroup::recv, nb::arg("tensor"), nb::arg("src"), nb::arg("tag"),
           Release());

  d.def(
      "make_gloo",
      [](std::shared_ptr<Store> store, int rank, int size, Millis timeout) {
        ProcessGroupOptions o;
        o.timeout = timeout;
        return make_process_group_gloo(std::move(store), rank, size, o);
      },
      nb::arg("store"), nb::arg("rank"), nb::arg("size"), nb::arg("timeout"), Release());

  nb::class_<Reducer>(d, "Reducer")
      .def(
          "__init__",
          [](Reducer* self, std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group,
             size_t bucket_cap_bytes, size_t first_bucket_bytes, bool find_unused, bool as_view) {
            ReducerOptions o;
            o.bucket_cap_bytes = bucket_cap_bytes;
            o.first_bucket_bytes = first_bucket_bytes;
            o.find_unused_parameters = find_unused;
            o.gradient_as_bucket_view = as_view;
            new (self) Reducer(std::move(params), std::move(group), o);
          },
          nb::arg("params"), nb::arg("group"), nb::arg("bucket_cap_bytes"),
          nb::arg("first_bucket_bytes"), nb::arg("find_unused_parameters"),
          nb::arg("gradient_as_bucket_view"))
      .def("prepare_for_backward", &Reducer::prepare_for_backward, nb::arg("outputs"))
      .def("set_sync", &Reducer::set_sync, nb::arg("sync"))
      .def("shadow_backward", &Reducer::shadow_backward, Release())
      .def("bucket_indices", &Reducer::bucket_indices);

  d.def(
      "broadcast_coalesced",
      [](ProcessGroup& g, const TensorList& ts, int root) { broadcast_coalesced(g, ts, root); },
      nb::arg("group"), nb::arg("tensors"), nb::arg("root") = 0, Release());
}

}  // namespace ember::py
