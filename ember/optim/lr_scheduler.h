// Learning-rate schedulers for the C++ optimizers: StepLR and CosineAnnealingLR with PyTorch's
// (recursive) formulas, so a C++ and a Python training loop see the same learning rates.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  // Advances one epoch and sets every group's lr.
  void step();
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }

 protected:
  // Records the groups' initial lrs (base_lrs); derived constructors then call step() once, as
  // PyTorch's constructor does (last_epoch becomes 0).
  explicit LRScheduler(Optimizer& optimizer);
  // The lrs for last_epoch_ (already advanced), from the groups' current lrs.
  virtual std::vector<double> get_lr() const = 0;
  std::vector<double> current_lrs() const;

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  int64_t last_epoch_ = -1;
};

// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lr() const override;
  int64_t step_size_;
  double gamma_;
};

// Cosine annealing from the base lr down to eta_min over T_max epochs (then back up), in
// PyTorch's recursive form.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 private:
  std::vector<double> get_lr() const override;
  int64_t t_max_;
  double eta_min_;
};

}  // namespace ember::optim
