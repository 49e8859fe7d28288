// ember::nn::init: PyTorch's parameter initialisers (torch.nn.init). Each fills its tensor in
// place without recording autograd and returns it; draws come from `generator` (the default one,
// seeded by ember::manual_seed, when null).
#pragma once

#include <string_view>
#include <utility>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember::nn::init {

// The recommended gain for a nonlinearity: "linear", "conv1d/2d/3d", "conv_transpose1d/2d/3d",
// "sigmoid" -> 1, "tanh" -> 5/3, "relu" -> sqrt(2), "leaky_relu" -> sqrt(2 / (1 + param^2))
// (param defaults to 0.01), "selu" -> 3/4. Anything else is a ValueError.
double calculate_gain(std::string_view nonlinearity, double param = 0.01);
// (fan_in, fan_out) of a weight of 2 or more dims: dim 1 and dim 0 times the receptive field
// (the product of the dims after the first two).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor& uniform_(Tensor& tensor, double a = 0.0, double b = 1.0, Generator* generator = nullptr);
Tensor& normal_(Tensor& tensor,
                double mean = 0.0,
                double std = 1.0,
                Generator* generator = nullptr);
Tensor& constant_(Tensor& tensor, double value);
Tensor& zeros_(Tensor& tensor);
Tensor& ones_(Tensor& tensor);
// U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).
Tensor& xavier_uniform_(Tensor& tensor, double gain = 1.0, Generator* generator = nullptr);
// N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor& xavier_normal_(Tensor& tensor, double gain = 1.0, Generator* generator = nullptr);
// U(-bound, bound) with bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a);
// mode "fan_in" or "fan_out".
Tensor& kaiming_uniform_(Tensor& tensor,
                         double a = 0.0,
                         std::string_view mode = "fan_in",
                         std::string_view nonlinearity = "leaky_relu",
                         Generator* generator = nullptr);
// N(0, std^2) with std = gain / sqrt(fan).
Tensor& kaiming_normal_(Tensor& tensor,
                        double a = 0.0,
                        std::string_view mode = "fan_in",
                        std::string_view nonlinearity = "leaky_relu",
                        Generator* generator = nullptr);

}  // namespace ember::nn::init
