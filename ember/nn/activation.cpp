#include "ember/nn/activation.h"

#include <vector>

#include "ember/nn/repr_util.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/softmax.h"

namespace ember::nn {

Tensor ReLU::forward(const Tensor& input) const { return relu(input); }
Tensor ReLU6::forward(const Tensor& input) const { return relu6(input); }
Tensor SELU::forward(const Tensor& input) const { return selu(input); }
Tensor SiLU::forward(const Tensor& input) const { return silu(input); }
Tensor Mish::forward(const Tensor& input) const { return mish(input); }
Tensor Tanh::forward(const Tensor& input) const { return tanh(input); }
Tensor Sigmoid::forward(const Tensor& input) const { return sigmoid(input); }
Tensor Hardsigmoid::forward(const Tensor& input) const { return hardsigmoid(input); }
Tensor Hardswish::forward(const Tensor& input) const { return hardswish(input); }
Tensor Softsign::forward(const Tensor& input) const { return softsign(input); }

GELU::GELU(std::string approximate) : Module("GELU"), approximate(std::move(approximate)) {
  EMBER_CHECK_VALUE(this->approximate == "none" || this->approximate == "tanh",
                    "[GELU] approximate must be 'none' or 'tanh', got '", this->approximate, "'");
}
Tensor GELU::forward(const Tensor& input) const { return gelu(input, approximate); }

Tensor LeakyReLU::forward(const Tensor& input) const { return leaky_relu(input, negative_slope); }
std::string LeakyReLU::extra_repr() const {
  return "negative_slope=" + detail::py_float(negative_slope);
}

Tensor ELU::forward(const Tensor& input) const { return elu(input, alpha); }
std::string ELU::extra_repr() const { return "alpha=" + detail::py_float(alpha); }

Tensor Softplus::forward(const Tensor& input) const { return softplus(input, beta, threshold); }
std::string Softplus::extra_repr() const {
  return "beta=" + detail::py_float(beta) + ", threshold=" + detail::py_float(threshold);
}

Hardtanh::Hardtanh(double min_val, double max_val)
    : Module("Hardtanh"), min_val(min_val), max_val(max_val) {
  EMBER_CHECK_VALUE(max_val > min_val, "[Hardtanh] max_val must be greater than min_val, got ",
                    min_val, " and ", max_val);
}
Tensor Hardtanh::forward(const Tensor& input) const { return hardtanh(input, min_val, max_val); }
std::string Hardtanh::extra_repr() const {
  return "min_val=" + detail::py_float(min_val) + ", max_val=" + detail::py_float(max_val);
}

PReLU::PReLU(int64_t num_parameters, double init)
    : Module("PReLU"), num_parameters(num_parameters) {
  EMBER_CHECK_VALUE(num_parameters > 0, "[PReLU] num_parameters must be positive, got ",
                    num_parameters);
  weight = register_parameter("weight", full({num_parameters}, init));
}

// Composed from where and mul (ember has no fused prelu op); autograd gives both gradients.
Tensor PReLU::forward(const Tensor& input) const {
  Tensor w = weight;
  if (num_parameters > 1) {
    EMBER_CHECK_VALUE(input.dim() >= 1, "[PReLU] a 0-d input needs num_parameters=1");
    const int64_t channel_dim = input.dim() >= 2 ? 1 : 0;
    EMBER_CHECK_VALUE(input.size(channel_dim) == num_parameters, "[PReLU] expected ",
                      num_parameters, " channels in dim ", channel_dim, ", got ",
                      input.size(channel_dim));
    std::vector<int64_t> shape(size_t(input.dim()), 1);
    shape[size_t(channel_dim)] = num_parameters;
    w = weight.view(shape);
  }
  return where(input >= 0, input, w * input);
}

Tensor Softmax::forward(const Tensor& input) const { return softmax(input, dim); }
Tensor LogSoftmax::forward(const Tensor& input) const { return log_softmax(input, dim); }

}  // namespace ember::nn
