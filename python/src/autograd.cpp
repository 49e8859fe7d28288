// Autograd from Python: grad mode, backward and grad, grad_fn objects, hooks, and the node that
// runs a Python ember.autograd.Function's backward.
#include <nanobind/stl/shared_ptr.h>

#include "init.h"

namespace ember::py {
namespace {

// A strong reference to a Python object that may be dropped from any thread: the last release
// takes the GIL (a backward graph can die on a thread that does not hold it).
struct PyRef {
  PyObject* obj;
  explicit PyRef(nb::handle h) : obj(h.inc_ref().ptr()) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(obj);
  }
  nb::handle get() const { return obj; }
};

TensorHook make_hook(nb::handle fn) {
  auto ref = std::make_shared<PyRef>(fn);
  return [ref](const Tensor& grad) -> Tensor {
    nb::gil_scoped_acquire gil;
    nb::object r = ref->get()(grad);
    if (r.is_none()) return Tensor();
    if (!nb::isinstance<Tensor>(r)) type_error("a tensor hook must return a Tensor or None");
    return nb::cast<Tensor>(r);
  };
}

// Removes a hook from where it was registered: the node that was the tensor's grad_fn then
// (an in-place op may have moved the tensor on since), or the leaf itself.
struct HookHandle {
  std::weak_ptr<Node> node;
  Tensor leaf;  // set for hooks on leaves (kept alive by the handle, as long as it lives)
  int64_t id;
  void remove() {
    if (auto n = node.lock()) std::erase_if(n->hooks, [&](auto& h) { return h.id == id; });
    if (leaf.defined()) leaf.remove_hook(id);
    node.reset();
    leaf = Tensor();
  }
};

// The backward of a Python ember.autograd.Function.
struct PyFunctionNode final : Node {
  std::string name_;
  std::unique_ptr<PyRef> ctx;  // the FunctionCtx; its _backward_fn is the class's backward
  std::vector<SavedTensor> saved;
  std::vector<size_t> arg_of_input;  // forward argument position of each tensor input
  size_t num_args = 0;
  bool released = false;

  std::string name() const override { return name_; }

  TensorList apply(TensorList&& grads) override {
    if (released) throw_released(name_);
    nb::gil_scoped_acquire gil;
    nb::list unpacked;
    for (const SavedTensor& s : saved) {
      Tensor t = s.unpack(*this);
      unpacked.append(t.defined() ? wrap(std::move(t)) : nb::none());
    }
    nb::handle ctx_obj = ctx->get();
    ctx_obj.attr("_saved") = nb::tuple(unpacked);
    nb::list args;
    args.append(ctx_obj);
    for (Tensor& g : grads) args.append(g.defined() ? wrap(std::move(g)) : nb::none());
    nb::object result;
    try {
      result = ctx_obj.attr("_backward_fn")(*nb::tuple(args));
    } catch (...) {
      ctx_obj.attr("_saved") = nb::none();
      throw;
    }
    // The unpacked tensors may point back at this node: dropping them avoids a cycle through C++.
    ctx_obj.attr("_saved") = nb::none();
    nb::tuple res =
        nb::isinstance<nb::tuple>(result) ? nb::borrow<nb::tuple>(result) : nb::make_tuple(result);
    // Extra trailing Nones are allowed, as in PyTorch.
    size_t n = res.size();
    while (n > num_args && res[n - 1].is_none()) --n;
    EMBER_CHECK(n == num_args, "[", name_,
                "] function backward returned an incorrect number of "
                "gradients (expected ",
                num_args, ", got ", res.size(), ")");
    TensorList out;
    for (size_t arg : arg_of_input) {
      nb::handle g = res[arg];
      if (g.is_none()) {
        out.emplace_back();
      } else if (nb::isinstance<Tensor>(g)) {
        out.push_back(nb::cast<Tensor>(g));
      } else {
        type_error("[" + name_ + "] backward must return Tensors or None, got " + py_type_name(g));
      }
    }
    return out;
  }

  void release_variables() override {
    saved.clear();
    released = true;
  }
};

// Wires a Python Function's outputs to a PyFunctionNode; returns the outputs (an output that is
// one of the inputs comes back as an alias, so the input's own history stays intact).
nb::list attach_function(nb::handle ctx,
                         const std::string& name,
                         nb::tuple args,
                         nb::list outputs,
                         nb::list non_differentiable,
                         nb::tuple to_save) {
  auto node = std::make_shared<PyFunctionNode>();
  node->name_ = name;
  node->ctx = std::make_unique<PyRef>(ctx);
  node->num_args = args.size();
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (nb::isinstance<Tensor>(args[i])) {
      inputs.push_back(&nb::cast<const Tensor&>(args[i]));
      node->arg_of_input.push_back(i);
    }
  }
  std::vector<Tensor> outs;
  for (nb::handle o : outputs) {
    if (!nb::isinstance<Tensor>(o)) continue;
    Tensor t = nb::cast<Tensor>(o);
    for (const Tensor* in : inputs) {
      if (in->is_same(t)) t = detach(t);  // a fresh alias
    }
    outs.push_back(t);
  }
  std::vector<const Tensor*> diff;
  for (const Tensor& t : outs) {
    bool nd = !is_differentiable(t.dtype());
    for (nb::handle h : non_differentiable) {
      if (!nb::isinstance<Tensor>(h)) {
        type_error("mark_non_differentiable() only accepts tensors, got " + py_type_name(h));
      }
      nd |= nb::cast<const Tensor&>(h).is_same(t);
    }
    if (!nd) diff.push_back(&t);
  }
  set_history(node, inputs, diff);
  for (nb::handle s : to_save) {
    if (s.is_none()) {
      node->saved.emplace_back();
      continue;
    }
    if (!nb::isinstance<Tensor>(s)) {
      type_error("save_for_backward() only accepts tensors or None, got " + py_type_name(s));
    }
    const Tensor& t = nb::cast<const Tensor&>(s);
    int64_t output_nr = -1;
    for (const Tensor& o : outs)
      if (o.is_same(t) && o.grad_fn() == std::static_pointer_cast<Node>(node))
        output_nr = o.output_nr();
    node->saved.push_back(output_nr >= 0 ? SavedTensor(t, uint32_t(output_nr)) : SavedTensor(t));
  }
  nb::list result;  // the outputs in order, tensors replaced by the ones wired to the node
  size_t k = 0;
  for (nb::handle o : outputs) {
    if (nb::isinstance<Tensor>(o))
      result.append(wrap(outs[k++]));
    else
      result.append(o);
  }
  return result;
}

TensorList tensor_list(nb::handle seq, const char* what) {
  TensorList out;
  if (seq.is_none()) return out;
  if (nb::isinstance<Tensor>(seq)) return {nb::cast<Tensor>(seq)};
  for (nb::handle h : nb::borrow<nb::sequence>(seq)) {
    if (h.is_none()) {
      out.emplace_back();
    } else if (nb::isinstance<Tensor>(h)) {
      out.push_back(nb::cast<Tensor>(h));
    } else {
      type_error(std::string(what) + " must be Tensors (or None)");
    }
  }
  return out;
}

// Anomaly mode's trace of a forward call: Python's stack where the op was called.
std::string python_trace() {
  nb::gil_scoped_acquire gil;
  try {
    nb::object lines = nb::module_::import_("traceback").attr("format_stack")();
    return nb::cast<std::string>(nb::str("").attr("join")(lines));
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

void init_autograd(nb::module_& m) {
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled, nb::arg("mode"));
  AnomalyMode::set_trace_provider(&python_trace);
  m.def("_set_anomaly_enabled", &AnomalyMode::set_enabled, nb::arg("enabled"),
        nb::arg("check_nan") = true);
  m.def("_is_anomaly_enabled", &AnomalyMode::is_enabled);
  m.def("_is_anomaly_check_nan_enabled", &AnomalyMode::check_nan);
  // Tensor.register_post_accumulate_grad_hook (python/ember/_tensor.py) passes a callable that
  // looks the tensor up through a weak reference, so the hook does not keep it alive.
  m.def(
      "_register_post_accumulate_grad_hook",
      [](const Tensor& t, nb::handle fn) {
        auto ref = std::make_shared<PyRef>(fn);
        return register_post_accumulate_grad_hook(t, [ref](const Tensor&) {
          nb::gil_scoped_acquire gil;
          ref->get()();
        });
      },
      nb::arg("tensor"), nb::arg("hook"));
  // Variable._execution_engine.queue_callback: `fn` runs when the current backward has finished.
  m.def(
      "_queue_callback",
      [](nb::handle fn) {
        auto ref = std::make_shared<PyRef>(fn);
        queue_callback([ref] {
          nb::gil_scoped_acquire gil;
          ref->get()();
        });
      },
      nb::arg("callback"));
  m.def("_remove_post_accumulate_grad_hook", &remove_post_accumulate_grad_hook, nb::arg("tensor"),
        nb::arg("id"));
  // ember.autograd.graph.saved_tensors_hooks: pack's result (any Python object) is kept in a
  // PyRef until backward hands it to unpack.
  m.def(
      "_push_saved_tensor_hooks",
      [](nb::handle pack, nb::handle unpack) {
        auto p = std::make_shared<PyRef>(pack);
        auto u = std::make_shared<PyRef>(unpack);
        push_saved_tensor_hooks(
            {[p](const Tensor& t) -> std::shared_ptr<void> {
               nb::gil_scoped_acquire gil;
               nb::object r = p->get()(t);
               return std::make_shared<PyRef>(r);
             },
             [u](const std::shared_ptr<void>& packed) -> Tensor {
               nb::gil_scoped_acquire gil;
               nb::object r = u->get()(static_cast<const PyRef*>(packed.get())->get());
               if (!nb::isinstance<Tensor>(r)) {
                 type_error("saved_tensors_hooks: unpack_hook must return a Tensor");
               }
               return nb::cast<Tensor>(r);
             }});
      },
      nb::arg("pack_hook"), nb::arg("unpack_hook"));
  m.def("_pop_saved_tensor_hooks", &pop_saved_tensor_hooks);

  m.def(
      "_backward",
      [](nb::handle tensors, nb::handle grads, std::optional<bool> retain_graph, bool create_graph,
         nb::handle inputs) {
        ember::backward(tensor_list(tensors, "tensors"), tensor_list(grads, "grad_tensors"),
                        retain_graph, create_graph, tensor_list(inputs, "inputs"));
      },
      nb::arg("tensors"), nb::arg("grad_tensors").none(), nb::arg("retain_graph").none(),
      nb::arg("create_graph"), nb::arg("inputs").none());
  m.def(
      "_grad",
      [](nb::handle outputs, nb::handle inputs, nb::handle grad_outputs,
         std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
        const TensorList r = ember::grad(
            tensor_list(outputs, "outputs"), tensor_list(inputs, "inputs"),
            tensor_list(grad_outputs, "grad_outputs"), retain_graph, create_graph, allow_unused);
        nb::list out;
        for (const Tensor& t : r) out.append(t.defined() ? wrap(t) : nb::none());
        return nb::tuple(out);
      },
      nb::arg("outputs"), nb::arg("inputs"), nb::arg("grad_outputs").none(),
      nb::arg("retain_graph").none(), nb::arg("create_graph"), nb::arg("allow_unused"));
  m.def("_attach_function", &attach_function, nb::arg("ctx"), nb::arg("name"), nb::arg("args"),
        nb::arg("outputs"), nb::arg("non_differentiable"), nb::arg("to_save"));

  nb::class_<Node>(m, "Node")
      .def("name", &Node::name)
      .def_prop_ro("next_functions",
                   [](const Node& n) {
                     nb::list l;
                     for (const Edge& e : n.next_edges()) {
                       l.append(nb::make_tuple(e.node ? nb::cast(e.node) : nb::none(), e.input_nr));
                     }
                     return nb::tuple(l);
                   })
      .def_prop_ro("variable",
                   [](const Node& n) -> nb::object {
                     if (auto* acc = dynamic_cast<const AccumulateGrad*>(&n))
                       return wrap(acc->variable);
                     throw nb::attribute_error("'Node' object has no attribute 'variable'");
                   })
      .def("__repr__", [](const Node& n) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%p", static_cast<const void*>(&n));
        return "<" + n.name() + " object at " + buf + ">";
      });

  nb::class_<HookHandle>(m, "_HookHandle")
      .def("remove", &HookHandle::remove)
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](HookHandle& h, nb::args) { h.remove(); });

  auto& cls = tensor_class();
  cls.def_prop_rw("requires_grad", &Tensor::requires_grad,
                  [](Tensor& t, bool r) { t.requires_grad_(r); })
      .def(
          "requires_grad_",
          [](nb::handle self, bool r) {
            nb::cast<Tensor&>(self).requires_grad_(r);
            return nb::borrow(self);
          },
          nb::arg("requires_grad") = true)
      .def_prop_rw(
          "grad",
          [](const Tensor& t) -> nb::object {
            const Tensor g = t.grad();
            return g.defined() ? wrap(g) : nb::none();
          },
          [](const Tensor& t, std::optional<Tensor> g) { t.set_grad(g ? *g : Tensor()); },
          nb::arg("value").none())
      .def_prop_ro("grad_fn",
                   [](const Tensor& t) -> nb::object {
                     const auto& fn = t.grad_fn();
                     return fn ? nb::cast(fn) : nb::none();
                   })
      .def_prop_ro("is_leaf", &Tensor::is_leaf)
      .def_prop_ro("retains_grad", &Tensor::retains_grad)
      .def_prop_ro("output_nr", &Tensor::output_nr)
      .def_prop_rw(
          "data", [](const Tensor& t) { return detach(t); },
          [](Tensor& t, const Tensor& value) { t.impl()->set_data(*value.impl()); })
      .def("retain_grad", &Tensor::retain_grad)
      .def(
          "register_hook",
          [](const Tensor& t, nb::handle fn) {
            const int64_t id = t.register_hook(make_hook(fn));
            return t.grad_fn() ? HookHandle{t.grad_fn(), Tensor(), id} : HookHandle{{}, t, id};
          },
          nb::arg("hook"))
      .def(
          "backward",
          [](const Tensor& t, std::optional<Tensor> gradient, std::optional<bool> retain_graph,
             bool create_graph, nb::handle inputs) {
            ember::backward({t}, gradient ? TensorList{*gradient} : TensorList{}, retain_graph,
                            create_graph, tensor_list(inputs, "inputs"));
          },
          nb::arg("gradient").none() = nb::none(), nb::arg("retain_graph").none() = nb::none(),
          nb::arg("create_graph") = false, nb::kw_only(), nb::arg("inputs").none() = nb::none());
}

}  // namespace ember::py
