// Activations as modules (ReLU, GELU, SiLU, Tanh, Sigmoid, LeakyReLU, Softmax, ...): no state,
// forward calls the op of the same name. Each one can sit in a Sequential.
#pragma once

#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

// Parameterless activations: forward is the op, extra_repr is empty.
#define EMBER_NN_SIMPLE_ACTIVATION(Name)       \
  class Name : public Module {                 \
   public:                                     \
    Name() : Module(#Name) {}                  \
    Tensor forward(const Tensor& input) const; \
  };
EMBER_NN_SIMPLE_ACTIVATION(ReLU)
EMBER_NN_SIMPLE_ACTIVATION(ReLU6)
EMBER_NN_SIMPLE_ACTIVATION(SELU)
EMBER_NN_SIMPLE_ACTIVATION(SiLU)
EMBER_NN_SIMPLE_ACTIVATION(Mish)
EMBER_NN_SIMPLE_ACTIVATION(Tanh)
EMBER_NN_SIMPLE_ACTIVATION(Sigmoid)
EMBER_NN_SIMPLE_ACTIVATION(Hardsigmoid)
EMBER_NN_SIMPLE_ACTIVATION(Hardswish)
EMBER_NN_SIMPLE_ACTIVATION(Softsign)
#undef EMBER_NN_SIMPLE_ACTIVATION

class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  std::string approximate;
};

class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double negative_slope = 0.01)
      : Module("LeakyReLU"), negative_slope(negative_slope) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  double negative_slope;
};

class ELU : public Module {
 public:
  explicit ELU(double alpha = 1.0) : Module("ELU"), alpha(alpha) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  double alpha;
};

class Softplus : public Module {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0)
      : Module("Softplus"), beta(beta), threshold(threshold) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  double beta, threshold;
};

class Hardtanh : public Module {
 public:
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  double min_val, max_val;
};

// max(0, x) + weight * min(0, x), with one learnable slope or one per channel (dim 1).
class PReLU : public Module {
 public:
  explicit PReLU(int64_t num_parameters = 1, double init = 0.25);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override {
    return "num_parameters=" + std::to_string(num_parameters);
  }
  int64_t num_parameters;
  Tensor weight;
};

// dim is required here: PyTorch's implicit-dim choice (dim=None) is deprecated.
class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim) : Module("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  int64_t dim;
};

class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(int64_t dim) : Module("LogSoftmax"), dim(dim) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  int64_t dim;
};

}  // namespace ember::nn
