#include "ember/optim/optimizer.h"

#include <charconv>
#include <set>
#include <string_view>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/creation.h"

namespace ember::optim {

void Optimizer::zero_grad(bool set_to_none) {
  for (size_t g = 0; g < num_param_groups(); ++g) {
    for (const Tensor& p : params(g)) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
      } else {
        NoGradGuard no_grad;
        grad.zero_();
      }
    }
  }
}

ParamState& Optimizer::state(size_t group, size_t j) { return state_.at(group).at(j); }

void Optimizer::add_params(const std::vector<Tensor>& params, const char* cls) {
  std::set<const TensorImpl*> seen;
  for (size_t g = 0; g < num_param_groups(); ++g)
    for (const Tensor& p : this->params(g)) seen.insert(p.impl());
  std::set<const TensorImpl*> mine;
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    EMBER_CHECK_VALUE(p.defined(), "[", cls, "] parameter ", i, " is an undefined tensor");
    EMBER_CHECK_VALUE(p.is_leaf(), "[", cls, "] can't optimize a non-leaf Tensor (parameter ", i,
                      ")");
    EMBER_CHECK_VALUE(p.is_floating_point(), "[", cls, "] parameter ", i, " has dtype ", p.dtype(),
                      ": optimizers need floating-point parameters");
    EMBER_CHECK_VALUE(mine.insert(p.impl()).second, "[", cls, "] parameter ", i,
                      " appears more than once in the group");
    EMBER_CHECK_VALUE(!seen.contains(p.impl()), "[", cls, "] parameter ", i,
                      " is already in another parameter group");
  }
  state_.emplace_back(params.size());
}

StateDict Optimizer::state_dict() const {
  StateDict sd;
  size_t id = 0;
  for (size_t g = 0; g < num_param_groups(); ++g) {
    for (const auto& [name, value] : group_options(g))
      sd.insert("param_groups." + std::to_string(g) + "." + name,
                scalar_tensor(value, TensorOptions(kFloat64)));
    for (const ParamState& st : state_[g]) {
      for (const auto& [name, t] : st) sd.insert("state." + std::to_string(id) + "." + name, t);
      ++id;
    }
  }
  return sd;
}

namespace {
// "<a>.<b>.<rest>" -> a, b-as-number, rest; false if the name is not of that form.
bool split_key(std::string_view key, std::string_view& head, size_t& index, std::string& rest) {
  const size_t d1 = key.find('.');
  if (d1 == std::string_view::npos) return false;
  const size_t d2 = key.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return false;
  head = key.substr(0, d1);
  const std::string_view num = key.substr(d1 + 1, d2 - d1 - 1);
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), index);
  if (ec != std::errc() || ptr != num.data() + num.size()) return false;
  rest = std::string(key.substr(d2 + 1));
  return true;
}
}  // namespace

void Optimizer::load_state_dict(const StateDict& sd) {
  // Parameter id -> (group, index), as state_dict numbered them.
  std::vector<std::pair<size_t, size_t>> where;
  for (size_t g = 0; g < num_param_groups(); ++g)
    for (size_t j = 0; j < params(g).size(); ++j) where.emplace_back(g, j);
  // Check everything before changing anything, so a bad dict leaves the optimizer as it was.
  std::vector<std::vector<ParamState>> state(num_param_groups());
  for (size_t g = 0; g < num_param_groups(); ++g) state[g].resize(params(g).size());
  std::vector<std::tuple<size_t, std::string, double>> options;
  std::set<size_t> groups_seen;
  for (const auto& [key, t] : sd) {
    std::string_view head;
    size_t index = 0;
    std::string rest;
    EMBER_CHECK_VALUE(
        split_key(key, head, index, rest) && (head == "state" || head == "param_groups"),
        "[Optimizer] load_state_dict: unexpected entry '", key, "'");
    if (head == "param_groups") {
      EMBER_CHECK_VALUE(index < num_param_groups(),
                        "[Optimizer] load_state_dict: the state dict "
                        "has more parameter groups than this optimizer's ",
                        num_param_groups());
      EMBER_CHECK_VALUE(t.numel() == 1, "[Optimizer] load_state_dict: '", key,
                        "' must hold one value");
      options.emplace_back(index, rest, t.item<double>());
      groups_seen.insert(index);
    } else {
      EMBER_CHECK_VALUE(index < where.size(), "[Optimizer] load_state_dict: state for parameter ",
                        index, " but this optimizer has ", where.size(), " parameters");
      const auto [g, j] = where[index];
      const Tensor& p = params(g)[j];
      // "step" is a scalar; every other state tensor has its parameter's shape.
      EMBER_CHECK_VALUE(rest == "step" || t.sizes() == p.sizes(), "[Optimizer] load_state_dict: '",
                        key, "' has shape ", t.sizes(), " but its parameter has shape ", p.sizes());
      // A copy, so the optimizer never shares memory with the dict it was loaded from.
      state[g][j][rest] =
          t.to(p.dtype() == t.dtype() || rest == "step" ? t.dtype() : p.dtype()).clone();
    }
  }
  EMBER_CHECK_VALUE(groups_seen.size() == num_param_groups(),
                    "[Optimizer] load_state_dict: the "
                    "state dict has ",
                    groups_seen.size(), " parameter groups, this optimizer ", num_param_groups());
  for (const auto& [g, name, value] : options) {
    bool known = false;
    for (const auto& [n, v] : group_options(g)) known = known || n == name;
    EMBER_CHECK_VALUE(known, "[Optimizer] load_state_dict: unknown option 'param_groups.", g, ".",
                      name, "'");
  }
  for (const auto& [g, name, value] : options) set_group_option(g, name, value);
  state_ = std::move(state);
}

}  // namespace ember::optim
