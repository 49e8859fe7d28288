#include "ember/nn/linear.h"

#include <cmath>

#include "ember/nn/init.h"
#include "ember/nn/repr_util.h"
#include "ember/ops/creation.h"
#include "ember/ops/nn_conv.h"
#include "ember/ops/shape.h"

namespace ember::nn {

Linear::Linear(int64_t in_features, int64_t out_features, LinearOptions options)
    : Module("Linear"), in_features(in_features), out_features(out_features) {
  EMBER_CHECK_VALUE(in_features >= 0 && out_features >= 0,
                    "[Linear] in_features and out_features must be non-negative, got ", in_features,
                    " and ", out_features);
  weight = register_parameter("weight", empty({out_features, in_features}));
  bias = register_parameter("bias", options.bias ? empty({out_features}) : Tensor());
  reset_parameters();
}

// PyTorch's Linear.reset_parameters: kaiming_uniform_(a = sqrt(5)) gives U(+-1/sqrt(in)).
void Linear::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = in_features > 0 ? 1.0 / std::sqrt(double(in_features)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& input) const { return linear(input, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) +
         ", out_features=" + std::to_string(out_features) +
         ", bias=" + detail::py_bool(bias.defined());
}

Bilinear::Bilinear(int64_t in1_features,
                   int64_t in2_features,
                   int64_t out_features,
                   LinearOptions options)
    : Module("Bilinear"),
      in1_features(in1_features),
      in2_features(in2_features),
      out_features(out_features) {
  weight = register_parameter("weight", empty({out_features, in1_features, in2_features}));
  bias = register_parameter("bias", options.bias ? empty({out_features}) : Tensor());
  reset_parameters();
}

void Bilinear::reset_parameters() {
  const double bound = in1_features > 0 ? 1.0 / std::sqrt(double(in1_features)) : 0.0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor Bilinear::forward(const Tensor& input1, const Tensor& input2) const {
  return bilinear(input1, input2, weight, bias);
}

std::string Bilinear::extra_repr() const {
  return "in1_features=" + std::to_string(in1_features) +
         ", in2_features=" + std::to_string(in2_features) +
         ", out_features=" + std::to_string(out_features) +
         ", bias=" + detail::py_bool(bias.defined());
}

Flatten::Flatten(int64_t start_dim, int64_t end_dim)
    : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}

Tensor Flatten::forward(const Tensor& input) const { return input.flatten(start_dim, end_dim); }

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

Unflatten::Unflatten(int64_t dim, std::vector<int64_t> unflattened_size)
    : Module("Unflatten"), dim(dim), unflattened_size(std::move(unflattened_size)) {}

Tensor Unflatten::forward(const Tensor& input) const {
  return unflatten(input, dim, unflattened_size);
}

std::string Unflatten::extra_repr() const {
  return "dim=" + std::to_string(dim) + ", unflattened_size=" + detail::py_tuple(unflattened_size);
}

}  // namespace ember::nn
