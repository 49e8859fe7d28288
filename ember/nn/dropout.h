// Dropout layers: active in training mode only (Module::train / eval), over ember::dropout and
// ember::feature_dropout; masks come from the default generator (ember::manual_seed).
#pragma once

#include "ember/nn/module.h"

namespace ember::nn {

class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  double p;

 protected:
  Dropout(const char* name, double p);
};

// Zeroes whole channels of (N, C, H, W) or unbatched (C, H, W) input.
class Dropout2d : public Dropout {
 public:
  explicit Dropout2d(double p = 0.5) : Dropout("Dropout2d", p) {}
  Tensor forward(const Tensor& input) const;
};

// Zeroes whole channels of (N, C, L) or unbatched (C, L) input.
class Dropout1d : public Dropout {
 public:
  explicit Dropout1d(double p = 0.5) : Dropout("Dropout1d", p) {}
  Tensor forward(const Tensor& input) const;
};

// Zeroes whole channels of (N, C, D, H, W) or unbatched (C, D, H, W) input.
class Dropout3d : public Dropout {
 public:
  explicit Dropout3d(double p = 0.5) : Dropout("Dropout3d", p) {}
  Tensor forward(const Tensor& input) const;
};

// Keeps the mean and variance of SELU activations (ember::alpha_dropout).
class AlphaDropout : public Dropout {
 public:
  explicit AlphaDropout(double p = 0.5) : Dropout("AlphaDropout", p) {}
  Tensor forward(const Tensor& input) const;
};

}  // namespace ember::nn
