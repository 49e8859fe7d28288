// ember::optim::SGD: torch.optim.SGD's options and update, one fused call per group and step.
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

// Plain options struct: SGD opt(params, {.lr = 0.1, .momentum = 0.9, .nesterov = true}).
struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;

  void check(const char* cls) const;  // PyTorch's checks: lr >= 0, ..., nesterov's conditions
  template <class F>
  void visit(F&& f) {
    f("lr", lr);
    f("momentum", momentum);
    f("dampening", dampening);
    f("weight_decay", weight_decay);
    f("nesterov", nesterov);
    f("maximize", maximize);
  }
};

class SGD : public OptimizerWithOptions<SGDOptions> {
 public:
  explicit SGD(std::vector<Tensor> params, const SGDOptions& options = {})
      : OptimizerWithOptions(std::move(params), options, "SGD") {}
  void step() override;
  double momentum(size_t g) const override { return groups_.at(g).options.momentum; }
  void set_momentum(size_t g, double m) override { groups_.at(g).options.momentum = m; }
};

}  // namespace ember::optim
