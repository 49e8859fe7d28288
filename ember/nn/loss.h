// Losses as modules (CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss,
// BCELoss, BCEWithLogitsLoss, KLDivLoss): forward(input, target) calls the op of the same name
// (ember/ops/nn_loss.h, which C++ code may also call directly). Class weights are buffers, as
// in PyTorch, so they appear in state_dict() and follow to().
#pragma once

#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

struct CrossEntropyLossOptions {
  Tensor weight = {};
  int64_t ignore_index = -100;
  std::string reduction = "mean";
  double label_smoothing = 0.0;
};

class CrossEntropyLoss : public Module {
 public:
  explicit CrossEntropyLoss(CrossEntropyLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight = {};
  int64_t ignore_index;
  std::string reduction;
  double label_smoothing;
};

struct NLLLossOptions {
  Tensor weight = {};
  int64_t ignore_index = -100;
  std::string reduction = "mean";
};

class NLLLoss : public Module {
 public:
  explicit NLLLoss(NLLLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight = {};
  int64_t ignore_index;
  std::string reduction;
};

struct BCELossOptions {
  Tensor weight = {};
  std::string reduction = "mean";
};

class BCELoss : public Module {
 public:
  explicit BCELoss(BCELossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight = {};
  std::string reduction;
};

struct BCEWithLogitsLossOptions {
  Tensor weight = {};
  std::string reduction = "mean";
  Tensor pos_weight = {};
};

class BCEWithLogitsLoss : public Module {
 public:
  explicit BCEWithLogitsLoss(BCEWithLogitsLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  Tensor weight, pos_weight;
  std::string reduction;
};

// Losses whose only setting is the reduction.
#define EMBER_NN_REDUCTION_LOSS(Name)                                \
  class Name : public Module {                                       \
   public:                                                           \
    explicit Name(std::string reduction = "mean");                   \
    Tensor forward(const Tensor& input, const Tensor& target) const; \
    std::string reduction;                                           \
  };
EMBER_NN_REDUCTION_LOSS(MSELoss)
EMBER_NN_REDUCTION_LOSS(L1Loss)
#undef EMBER_NN_REDUCTION_LOSS

class SmoothL1Loss : public Module {
 public:
  explicit SmoothL1Loss(std::string reduction = "mean", double beta = 1.0);
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
  double beta;
};

class HuberLoss : public Module {
 public:
  explicit HuberLoss(std::string reduction = "mean", double delta = 1.0);
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
  double delta;
};

class KLDivLoss : public Module {
 public:
  explicit KLDivLoss(std::string reduction = "mean", bool log_target = false);
  Tensor forward(const Tensor& input, const Tensor& target) const;
  std::string reduction;
  bool log_target;
};

}  // namespace ember::nn
