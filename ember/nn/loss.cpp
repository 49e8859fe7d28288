#include "ember/nn/loss.h"

#include "ember/ops/nn_loss.h"

namespace ember::nn {

CrossEntropyLoss::CrossEntropyLoss(CrossEntropyLossOptions o)
    : Module("CrossEntropyLoss"),
      ignore_index(o.ignore_index),
      reduction(std::move(o.reduction)),
      label_smoothing(o.label_smoothing) {
  weight = register_buffer("weight", o.weight);
}
Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) const {
  return cross_entropy(input, target, weight, reduction, ignore_index, label_smoothing);
}

NLLLoss::NLLLoss(NLLLossOptions o)
    : Module("NLLLoss"), ignore_index(o.ignore_index), reduction(std::move(o.reduction)) {
  weight = register_buffer("weight", o.weight);
}
Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) const {
  return nll_loss(input, target, weight, reduction, ignore_index);
}

BCELoss::BCELoss(BCELossOptions o) : Module("BCELoss"), reduction(std::move(o.reduction)) {
  weight = register_buffer("weight", o.weight);
}
Tensor BCELoss::forward(const Tensor& input, const Tensor& target) const {
  return binary_cross_entropy(input, target, weight, reduction);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(BCEWithLogitsLossOptions o)
    : Module("BCEWithLogitsLoss"), reduction(std::move(o.reduction)) {
  weight = register_buffer("weight", o.weight);
  pos_weight = register_buffer("pos_weight", o.pos_weight);
}
Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) const {
  return binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight);
}

MSELoss::MSELoss(std::string reduction) : Module("MSELoss"), reduction(std::move(reduction)) {}
Tensor MSELoss::forward(const Tensor& input, const Tensor& target) const {
  return mse_loss(input, target, reduction);
}

L1Loss::L1Loss(std::string reduction) : Module("L1Loss"), reduction(std::move(reduction)) {}
Tensor L1Loss::forward(const Tensor& input, const Tensor& target) const {
  return l1_loss(input, target, reduction);
}

SmoothL1Loss::SmoothL1Loss(std::string reduction, double beta)
    : Module("SmoothL1Loss"), reduction(std::move(reduction)), beta(beta) {}
Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) const {
  return smooth_l1_loss(input, target, reduction, beta);
}

HuberLoss::HuberLoss(std::string reduction, double delta)
    : Module("HuberLoss"), reduction(std::move(reduction)), delta(delta) {}
Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) const {
  return huber_loss(input, target, reduction, delta);
}

KLDivLoss::KLDivLoss(std::string reduction, bool log_target)
    : Module("KLDivLoss"), reduction(std::move(reduction)), log_target(log_target) {}
Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) const {
  return kl_div(input, target, reduction, log_target);
}

}  // namespace ember::nn
