// ember::nn::Module: the base of the C++ layers. It owns named parameters, buffers and child
// modules, and gives PyTorch's traversal, train/eval, dtype moves and state dicts. Layers are
// held by std::shared_ptr and each has its own non-virtual `forward` (libtorch's pattern, without
// its ModuleHolder wrappers: see docs/design/cpp_frontend.md).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/io/state_dict.h"

namespace ember::nn {

// A size argument of a layer: one value for every spatial dim (`.stride = 2`) or one per dim
// (`.stride = {2, 1}`). Owning, unlike IntArrayRef, so that options structs can hold it.
struct Ints {
  std::vector<int64_t> values;
  Ints(int64_t v) : values{v} {}
  Ints(std::initializer_list<int64_t> l) : values(l) {}
  Ints(std::vector<int64_t> v) : values(std::move(v)) {}
  operator IntArrayRef() const { return values; }
  // The value repeated to n dims (a layer's stored, PyTorch-style tuple); an error otherwise.
  std::vector<int64_t> expand(size_t n, const char* layer, const char* what) const;
};

// What load_state_dict did not match (PyTorch's _IncompatibleKeys); empty after a strict load.
struct LoadStateDictResult {
  std::vector<std::string> missing_keys, unexpected_keys;
};

class Module : public std::enable_shared_from_this<Module> {
 public:
  // `type_name` is the class name that printing shows ("Linear").
  explicit Module(std::string type_name = "Module");
  virtual ~Module() = default;
  // Parameters are shared handles: a copied module would alias its original's tensors, so copies
  // are refused (PyTorch's copy.deepcopy has no cheap C++ counterpart here).
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& type_name() const { return type_name_; }

  // ---- Registration ---------------------------------------------------------------------------
  // Adds (or replaces) a parameter: a leaf tensor that requires grad when `requires_grad`. An
  // undefined tensor registers a `None` slot (e.g. a bias turned off) that traversals skip.
  // Returns the stored handle.
  Tensor& register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  // A buffer: state that is not trained (running statistics). Non-persistent buffers are left
  // out of state_dict().
  Tensor& register_buffer(const std::string& name, Tensor t, bool persistent = true);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    EMBER_CHECK_VALUE(module != nullptr, "[", type_name_, ".register_module] module '", name,
                      "' is null");
    add_child(name, module);
    return module;
  }

  // ---- Traversal (PyTorch's dotted names, registration order) ----------------------------------
  // Each parameter once, even when shared by several modules (PyTorch's remove_duplicate).
  std::vector<std::pair<std::string, Tensor>> named_parameters(bool recurse = true) const;
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const;
  std::vector<std::shared_ptr<Module>> children() const;
  // This module (name "") and every descendant, each once. Needs the module to be held by a
  // std::shared_ptr (std::make_shared).
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_modules();
  std::vector<std::shared_ptr<Module>> modules();
  // Lookup by dotted name ("features.0.weight"); throws an IndexError naming the key otherwise.
  Tensor& parameter(const std::string& name);
  Tensor& buffer(const std::string& name);
  std::shared_ptr<Module> submodule(const std::string& name) const;

  // ---- Modes and moves ------------------------------------------------------------------------
  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  // Converts floating parameters and buffers (and their gradients) in place: the handles that
  // layers and optimizers hold see the new dtype, as in PyTorch. Integer buffers are kept.
  Module& to(DType dtype);
  Module& to(Device device);
  // Calls fn on every descendant, children first, then on this module (PyTorch's apply, e.g. for
  // a custom initialisation).
  Module& apply(const std::function<void(Module&)>& fn);
  // Gradients to undefined (set_to_none) or to zero.
  void zero_grad(bool set_to_none = true);

  // ---- State ----------------------------------------------------------------------------------
  // Parameters then persistent buffers of each module, depth first, under dotted names (keys
  // exactly as PyTorch's). Values are detached handles of the module's tensors (no copy).
  StateDict state_dict() const;
  // Copies each entry into the tensor of the same name, in place and without autograd. strict:
  // missing and unexpected keys are an error (RuntimeError listing them); a shape mismatch is
  // always one. Nothing is changed when the check fails.
  // Returns the keys that were missing or unexpected (only possible when not strict).
  LoadStateDictResult load_state_dict(const StateDict& state, bool strict = true);

  // ---- Printing ---------------------------------------------------------------------------------
  // The text inside a leaf's parentheses, as PyTorch's extra_repr ("in_features=2, ...").
  virtual std::string extra_repr() const { return ""; }
  // PyTorch's nested repr: "Sequential(\n  (0): Linear(...)\n)".
  std::string repr() const;

 protected:
  void add_child(const std::string& name, std::shared_ptr<Module> module);
  bool training_ = true;

 private:
  struct Buffer {
    Tensor tensor;
    bool persistent;
  };
  void check_name(const std::string& name, const char* what) const;
  void collect_named(std::vector<std::pair<std::string, Tensor>>& out,
                     const std::string& prefix,
                     bool recurse,
                     bool params) const;
  void collect_state(StateDict& out, const std::string& prefix) const;
  // The tensors load_state_dict may write to: parameters and persistent buffers, with their
  // dotted names, None slots excluded.
  void collect_slots(std::vector<std::pair<std::string, Tensor*>>& out, const std::string& prefix);

  std::string type_name_;
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Buffer>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

std::ostream& operator<<(std::ostream& os, const Module& m);

}  // namespace ember::nn
