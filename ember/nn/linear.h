// Linear layers and reshaping layers: Identity, Linear, Bilinear, Flatten, Unflatten.
#pragma once

#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& input) const { return input; }
};

struct LinearOptions {
  bool bias = true;
};

// y = x W^T + b; W [out, in] from kaiming_uniform_(a = sqrt(5)), b from U(+-1/sqrt(in)).
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, LinearOptions options = {});
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_features, out_features;
  Tensor weight, bias;  // bias undefined when options.bias is false
};

// y[o] = x1^T W[o] x2 + b[o]; W [out, in1, in2], all from U(+-1/sqrt(in1)).
class Bilinear : public Module {
 public:
  Bilinear(int64_t in1_features,
           int64_t in2_features,
           int64_t out_features,
           LinearOptions options = {});
  Tensor forward(const Tensor& input1, const Tensor& input2) const;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in1_features, in2_features, out_features;
  Tensor weight, bias;
};

class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

  int64_t start_dim, end_dim;
};

class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, std::vector<int64_t> unflattened_size);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

  int64_t dim;
  std::vector<int64_t> unflattened_size;
};

}  // namespace ember::nn
