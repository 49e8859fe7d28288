// Containers: Sequential (chains modules whose forward takes and returns one Tensor),
// ModuleList (holds modules for a hand-written forward) and Functional (a callable as a module).
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// Wraps a function Tensor -> Tensor, so that a lambda can sit in a Sequential.
class Functional : public Module {
 public:
  explicit Functional(std::function<Tensor(const Tensor&)> fn, std::string name = "Functional")
      : Module(std::move(name)), fn_(std::move(fn)) {}
  Tensor forward(const Tensor& input) const { return fn_(input); }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};

// What Sequential can hold: a module with `Tensor forward(const Tensor&)`.
template <class M>
concept SequentialModule = std::derived_from<M, Module> && requires(M& m, const Tensor& x) {
  { m.forward(x) } -> std::convertible_to<Tensor>;
};

// Runs its modules in order. Each entry is type-erased into a std::function when added, since
// C++ modules have no common virtual forward (their signatures differ, as libtorch's do).
// Children are named "0", "1", ... unless a name is given, so state_dict keys match PyTorch's.
class Sequential : public Module {
 public:
  template <SequentialModule... M>
  explicit Sequential(std::shared_ptr<M>... modules) : Module("Sequential") {
    (push_back(std::move(modules)), ...);
  }

  template <SequentialModule M>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::to_string(entries_.size()), std::move(module));
  }
  template <SequentialModule M>
  void push_back(const std::string& name, std::shared_ptr<M> module) {
    EMBER_CHECK_VALUE(module != nullptr, "[Sequential.push_back] module '", name, "' is null");
    // A replaced child would leave its old entry in the chain: names must be new.
    for (const auto& [k, m] : named_children())
      EMBER_CHECK_VALUE(k != name, "[Sequential.push_back] a module named '", name,
                        "' is already in the Sequential");
    register_module(name, module);
    entries_.push_back({module, [module](const Tensor& x) { return Tensor(module->forward(x)); }});
  }
  // A plain function becomes a Functional entry.
  void push_back(std::function<Tensor(const Tensor&)> fn) {
    push_back(std::make_shared<Functional>(std::move(fn)));
  }

  Tensor forward(const Tensor& input) const;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // The i-th module; an IndexError past the end (negative i counts from the end, as Python's).
  std::shared_ptr<Module> operator[](int64_t i) const { return entries_[index(i)].module; }
  // The i-th module as its own type; a TypeError if it is another type.
  template <class M>
  std::shared_ptr<M> at(int64_t i) const {
    auto m = std::dynamic_pointer_cast<M>((*this)[i]);
    EMBER_CHECK_TYPE(m != nullptr, "[Sequential.at] entry ", i, " is a ", (*this)[i]->type_name(),
                     ", not the requested type");
    return m;
  }

 private:
  struct Entry {
    std::shared_ptr<Module> module;
    std::function<Tensor(const Tensor&)> forward;
  };
  size_t index(int64_t i) const;
  std::vector<Entry> entries_;
};

// Holds modules (named "0", "1", ...) so that they are registered; forward is the user's.
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  template <class... M>
  explicit ModuleList(std::shared_ptr<M>... modules) : Module("ModuleList") {
    (push_back(std::move(modules)), ...);
  }

  template <class M>
  void push_back(std::shared_ptr<M> module) {
    register_module(std::to_string(modules_.size()), module);
    modules_.push_back(std::move(module));
  }

  size_t size() const { return modules_.size(); }
  bool empty() const { return modules_.empty(); }
  std::shared_ptr<Module> operator[](int64_t i) const { return modules_[index(i)]; }
  template <class M>
  std::shared_ptr<M> at(int64_t i) const {
    auto m = std::dynamic_pointer_cast<M>((*this)[i]);
    EMBER_CHECK_TYPE(m != nullptr, "[ModuleList.at] entry ", i, " is a ", (*this)[i]->type_name(),
                     ", not the requested type");
    return m;
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  size_t index(int64_t i) const;
  std::vector<std::shared_ptr<Module>> modules_;
};

}  // namespace ember::nn
