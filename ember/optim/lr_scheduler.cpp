#include "ember/optim/lr_scheduler.h"

#include <cmath>
#include <numbers>

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  base_lrs_ = current_lrs();
}

std::vector<double> LRScheduler::current_lrs() const {
  std::vector<double> lrs;
  for (size_t g = 0; g < optimizer_.num_param_groups(); ++g) lrs.push_back(optimizer_.lr(g));
  return lrs;
}

void LRScheduler::step() {
  ++last_epoch_;
  last_lr_ = get_lr();
  for (size_t g = 0; g < last_lr_.size(); ++g) optimizer_.set_lr(g, last_lr_[g]);
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_VALUE(step_size > 0, "[StepLR] step_size must be positive, got ", step_size);
  step();
}

std::vector<double> StepLR::get_lr() const {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK_VALUE(T_max > 0, "[CosineAnnealingLR] T_max must be positive, got ", T_max);
  step();
}

std::vector<double> CosineAnnealingLR::get_lr() const {
  std::vector<double> lrs = current_lrs();
  if (last_epoch_ == 0) return lrs;
  const double pi = std::numbers::pi;
  const double t = double(last_epoch_), tm = double(t_max_);
  // Python's modulo (never negative), as in PyTorch's formula.
  const int64_t period = 2 * t_max_;
  const int64_t phase = ((last_epoch_ - 1 - t_max_) % period + period) % period;
  for (size_t g = 0; g < lrs.size(); ++g) {
    if (phase == 0) {
      lrs[g] += (base_lrs_[g] - eta_min_) * (1 - std::cos(pi / tm)) / 2;
    } else {
      lrs[g] =
          (1 + std::cos(pi * t / tm)) / (1 + std::cos(pi * (t - 1) / tm)) * (lrs[g] - eta_min_) +
          eta_min_;
    }
  }
  return lrs;
}

}  // namespace ember::optim
