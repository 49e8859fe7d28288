#include "ember/optim/adam.h"

#include "ember/ops/creation.h"
#include "ember/ops/optim.h"

namespace ember::optim {
namespace {

template <class Options>
void check_adam(const Options& o, const char* cls) {
  EMBER_CHECK_VALUE(o.lr >= 0, "[", cls, "] Invalid learning rate: ", o.lr);
  EMBER_CHECK_VALUE(o.eps >= 0, "[", cls, "] Invalid epsilon value: ", o.eps);
  EMBER_CHECK_VALUE(o.betas.first >= 0 && o.betas.first < 1, "[", cls,
                    "] Invalid beta parameter at index 0: ", o.betas.first);
  EMBER_CHECK_VALUE(o.betas.second >= 0 && o.betas.second < 1, "[", cls,
                    "] Invalid beta parameter at index 1: ", o.betas.second);
  EMBER_CHECK_VALUE(o.weight_decay >= 0, "[", cls,
                    "] Invalid weight_decay value: ", o.weight_decay);
}

// One fused_adam_ call per group over the parameters that have a gradient; state is created on
// a parameter's first step as PyTorch does (step 0, zero moments).
template <class Group>
void adam_step(std::vector<Group>& groups,
               std::vector<std::vector<ParamState>>& state,
               bool decoupled) {
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& o = groups[g].options;
    std::vector<Tensor> params, grads, m, v, vmax, steps;
    for (size_t j = 0; j < groups[g].params.size(); ++j) {
      const Tensor& p = groups[g].params[j];
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      ParamState& st = state[g][j];
      if (st.empty()) {
        st["step"] = scalar_tensor(0.0, TensorOptions(kFloat32));
        st["exp_avg"] = zeros_like(p);
        st["exp_avg_sq"] = zeros_like(p);
      }
      if (o.amsgrad && !st.contains("max_exp_avg_sq")) st["max_exp_avg_sq"] = zeros_like(p);
      params.push_back(p);
      grads.push_back(std::move(grad));
      m.push_back(st["exp_avg"]);
      v.push_back(st["exp_avg_sq"]);
      if (o.amsgrad) vmax.push_back(st["max_exp_avg_sq"]);
      steps.push_back(st["step"]);
    }
    if (params.empty()) continue;
    fused_adam_(params, grads, m, v, vmax, steps, o.lr, o.betas.first, o.betas.second,
                o.weight_decay, o.eps, o.amsgrad, o.maximize, decoupled);
  }
}

}  // namespace

void AdamOptions::check(const char* cls) const { check_adam(*this, cls); }
void AdamWOptions::check(const char* cls) const { check_adam(*this, cls); }

void Adam::step() { adam_step(groups_, state_, false); }
void AdamW::step() { adam_step(groups_, state_, true); }

}  // namespace ember::optim
