// ember::optim::Adam and AdamW: torch.optim.Adam / AdamW's options and update (bias correction,
// amsgrad, maximize), one fused call per group and step.
#pragma once

#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

// Plain options struct: Adam opt(params, {.lr = 1e-3, .betas = {0.9, 0.99}}).
struct AdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;  // L2: added to the gradient
  bool amsgrad = false;
  bool maximize = false;

  void check(const char* cls) const;  // PyTorch's checks: lr >= 0, 0 <= beta < 1, ...
  template <class F>
  void visit(F&& f) {
    f("lr", lr);
    f("beta1", betas.first);
    f("beta2", betas.second);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("amsgrad", amsgrad);
    f("maximize", maximize);
  }
};

// AdamW's options: the same fields, with PyTorch's default weight_decay of 1e-2 (decoupled:
// p *= 1 - lr * weight_decay before the Adam step).
struct AdamWOptions {
  double lr = 1e-3;
  std::pair<double, double> betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;

  void check(const char* cls) const;
  template <class F>
  void visit(F&& f) {
    f("lr", lr);
    f("beta1", betas.first);
    f("beta2", betas.second);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("amsgrad", amsgrad);
    f("maximize", maximize);
  }
};

class Adam : public OptimizerWithOptions<AdamOptions> {
 public:
  explicit Adam(std::vector<Tensor> params, const AdamOptions& options = {})
      : OptimizerWithOptions(std::move(params), options, "Adam") {}
  void step() override;
  double momentum(size_t g) const override { return groups_.at(g).options.betas.first; }
  void set_momentum(size_t g, double m) override { groups_.at(g).options.betas.first = m; }
};

class AdamW : public OptimizerWithOptions<AdamWOptions> {
 public:
  explicit AdamW(std::vector<Tensor> params, const AdamWOptions& options = {})
      : OptimizerWithOptions(std::move(params), options, "AdamW") {}
  void step() override;
  double momentum(size_t g) const override { return groups_.at(g).options.betas.first; }
  void set_momentum(size_t g, double m) override { groups_.at(g).options.betas.first = m; }
};

}  // namespace ember::optim
