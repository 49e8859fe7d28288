// ember::optim::Optimizer: parameter groups with per-group options, per-parameter state, zero_grad
// and a state dict, for the C++ optimizers (SGD, Adam, AdamW) whose step() is one fused call per
// group (ember/ops/optim.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/io/state_dict.h"

namespace ember::optim {

// The state of one parameter: named tensors ("step", "exp_avg", ...), as PyTorch's state[p].
using ParamState = std::map<std::string, Tensor>;

// What every optimizer offers, whatever its options: what schedulers and training loops use.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual void step() = 0;
  // Gradients of every parameter: undefined (set_to_none, PyTorch's default) or zeroed.
  void zero_grad(bool set_to_none = true);

  virtual size_t num_param_groups() const = 0;
  virtual const std::vector<Tensor>& params(size_t group) const = 0;
  virtual double lr(size_t group) const = 0;
  virtual void set_lr(size_t group, double lr) = 0;
  // Adam's beta1 or SGD's momentum, for schedulers that cycle momentum (OneCycleLR); 0 if none.
  virtual double momentum(size_t group) const { return 0; }
  virtual void set_momentum(size_t group, double m) {}

  // The state of parameter j of group g (empty before its first step).
  ParamState& state(size_t group, size_t j);

  // PyTorch's layout flattened into names: "state.<id>.<name>" per state tensor, where <id>
  // numbers the parameters across groups in order, and "param_groups.<g>.<option>" per option as
  // a float64 scalar (bools as 0 / 1). load_state_dict checks the group and parameter counts and
  // the state's shapes against this optimizer's, and raises on a mismatch.
  StateDict state_dict() const;
  void load_state_dict(const StateDict& sd);

 protected:
  // Every option of group g as (name, value), and setting them back: what the state dict holds.
  virtual std::vector<std::pair<std::string, double>> group_options(size_t group) const = 0;
  virtual void set_group_option(size_t group, const std::string& name, double value) = 0;
  // Checks a new group's parameters (floating leaves, none already in the optimizer) and adds
  // their (empty) state slots.
  void add_params(const std::vector<Tensor>& params, const char* cls);

  std::vector<std::vector<ParamState>> state_;  // [group][param]
};

// The part that depends on the options: groups of (params, options) with `defaults`.
// Options is a plain struct (SGDOptions, AdamOptions) with a visit(f) that calls f(name, field)
// for each option.
template <class Options>
class OptimizerWithOptions : public Optimizer {
 public:
  struct ParamGroup {
    std::vector<Tensor> params;
    Options options;
  };

  const Options& defaults() const { return defaults_; }
  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }

  // A group with its own options (torch's add_param_group({'params': ..., 'lr': ...})).
  void add_param_group(std::vector<Tensor> params, const Options& options) {
    Options o = options;
    o.check(name());
    add_params(params, name());
    groups_.push_back({std::move(params), o});
  }
  void add_param_group(std::vector<Tensor> params) {
    add_param_group(std::move(params), defaults_);
  }

  size_t num_param_groups() const override { return groups_.size(); }
  const std::vector<Tensor>& params(size_t g) const override { return groups_.at(g).params; }
  double lr(size_t g) const override { return groups_.at(g).options.lr; }
  void set_lr(size_t g, double lr) override { groups_.at(g).options.lr = lr; }

 protected:
  // `name`: the class, for error messages ("Adam").
  OptimizerWithOptions(std::vector<Tensor> params, const Options& defaults, const char* cls)
      : name_(cls), defaults_(defaults) {
    EMBER_CHECK_VALUE(!params.empty(), "[", name(), "] got an empty parameter list");
    add_param_group(std::move(params), defaults);
  }
  const char* name() const { return name_; }

  std::vector<std::pair<std::string, double>> group_options(size_t g) const override {
    std::vector<std::pair<std::string, double>> out;
    Options o = groups_.at(g).options;
    o.visit([&](const char* n, auto& v) { out.emplace_back(n, double(v)); });
    return out;
  }
  void set_group_option(size_t g, const std::string& n, double value) override {
    bool found = false;
    groups_.at(g).options.visit([&](const char* field, auto& v) {
      if (n == field) {
        v = static_cast<std::remove_reference_t<decltype(v)>>(value);
        found = true;
      }
    });
    EMBER_CHECK_VALUE(found, "[", name(), "] load_state_dict: unknown option '", n, "'");
  }

  const char* name_;
  Options defaults_;
  std::vector<ParamGroup> groups_;
};

}  // namespace ember::optim
