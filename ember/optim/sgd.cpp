#include "ember/optim/sgd.h"

#include "ember/ops/optim.h"

namespace ember::optim {

void SGDOptions::check(const char* cls) const {
  EMBER_CHECK_VALUE(lr >= 0, "[", cls, "] Invalid learning rate: ", lr);
  EMBER_CHECK_VALUE(momentum >= 0, "[", cls, "] Invalid momentum value: ", momentum);
  EMBER_CHECK_VALUE(weight_decay >= 0, "[", cls, "] Invalid weight_decay value: ", weight_decay);
  EMBER_CHECK_VALUE(!nesterov || (momentum > 0 && dampening == 0), "[", cls,
                    "] Nesterov momentum requires a momentum and zero dampening");
}

void SGD::step() {
  for (size_t g = 0; g < groups_.size(); ++g) {
    const SGDOptions& o = groups_[g].options;
    std::vector<Tensor> params, grads, bufs;
    std::vector<size_t> index;
    for (size_t j = 0; j < groups_[g].params.size(); ++j) {
      const Tensor& p = groups_[g].params[j];
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      params.push_back(p);
      grads.push_back(std::move(grad));
      auto it = state_[g][j].find("momentum_buffer");
      bufs.push_back(it == state_[g][j].end() ? Tensor() : it->second);
      index.push_back(j);
    }
    if (params.empty()) continue;
    const std::vector<Tensor> out = fused_sgd_(params, grads, bufs, o.lr, o.momentum, o.dampening,
                                               o.weight_decay, o.nesterov, o.maximize);
    for (size_t k = 0; k < out.size(); ++k) state_[g][index[k]]["momentum_buffer"] = out[k];
  }
}

}  // namespace ember::optim
