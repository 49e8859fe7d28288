#include "ember/nn/init.h"

#include <cmath>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/ops/random.h"

namespace ember::nn::init {

double calculate_gain(std::string_view nonlinearity, double param) {
  static constexpr std::string_view kLinear[] = {
      "linear",           "conv1d",           "conv2d",           "conv3d",
      "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid"};
  for (std::string_view n : kLinear)
    if (nonlinearity == n) return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1.0 + param * param));
  if (nonlinearity == "selu") return 3.0 / 4.0;
  EMBER_FAIL_KIND(ErrorKind::Value, "[nn::init::calculate_gain] unsupported nonlinearity '",
                  nonlinearity, "'");
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_VALUE(tensor.dim() >= 2,
                    "[nn::init] fan in and fan out can not be computed for a tensor with fewer "
                    "than 2 dimensions, got ",
                    tensor.dim());
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor& uniform_(Tensor& tensor, double a, double b, Generator* generator) {
  NoGradGuard no_grad;
  return ember::uniform_(tensor, a, b, generator);
}

Tensor& normal_(Tensor& tensor, double mean, double std, Generator* generator) {
  NoGradGuard no_grad;
  return ember::normal_(tensor, mean, std, generator);
}

Tensor& constant_(Tensor& tensor, double value) {
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor& zeros_(Tensor& tensor) { return constant_(tensor, 0.0); }
Tensor& ones_(Tensor& tensor) { return constant_(tensor, 1.0); }

Tensor& xavier_uniform_(Tensor& tensor, double gain, Generator* generator) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double a = gain * std::sqrt(6.0 / double(fan_in + fan_out));
  return init::uniform_(tensor, -a, a, generator);
}

Tensor& xavier_normal_(Tensor& tensor, double gain, Generator* generator) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return init::normal_(tensor, 0.0, gain * std::sqrt(2.0 / double(fan_in + fan_out)), generator);
}

static double kaiming_std(const Tensor& tensor,
                          double a,
                          std::string_view mode,
                          std::string_view nonlinearity,
                          const char* fn) {
  EMBER_CHECK_VALUE(mode == "fan_in" || mode == "fan_out", "[nn::init::", fn,
                    "] mode must be 'fan_in' or 'fan_out', got '", mode, "'");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const int64_t fan = mode == "fan_in" ? fan_in : fan_out;
  EMBER_CHECK_VALUE(fan > 0, "[nn::init::", fn, "] cannot initialise a tensor with zero elements");
  return calculate_gain(nonlinearity, a) / std::sqrt(double(fan));
}

Tensor& kaiming_uniform_(Tensor& tensor,
                         double a,
                         std::string_view mode,
                         std::string_view nonlinearity,
                         Generator* generator) {
  // U(-b, b) has standard deviation b / sqrt(3).
  const double bound =
      std::sqrt(3.0) * kaiming_std(tensor, a, mode, nonlinearity, "kaiming_uniform_");
  return init::uniform_(tensor, -bound, bound, generator);
}

Tensor& kaiming_normal_(Tensor& tensor,
                        double a,
                        std::string_view mode,
                        std::string_view nonlinearity,
                        Generator* generator) {
  return init::normal_(tensor, 0.0, kaiming_std(tensor, a, mode, nonlinearity, "kaiming_normal_"),
                       generator);
}

}  // namespace ember::nn::init
