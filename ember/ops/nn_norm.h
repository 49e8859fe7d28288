// Normalisation ops: batch, layer, group, instance, local response norm and normalize (dropout is
// in nn_dropout.h). Names, arguments and semantics follow PyTorch (torch.batch_norm,
// torch.layer_norm, ..., torch.nn.functional.local_response_norm / normalize). Floating inputs
// only; float16 and bfloat16 are computed in float32.
#pragma once

#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// Normalises each channel (dim 1) of an (N, C, *) input: training uses the batch's mean and
// biased variance and updates running_mean / running_var in place ((1 - momentum) * r + momentum
// * s, the variance unbiased) when given; evaluation uses the running stats, which are then
// required. out = (x - mean) / sqrt(var + eps) * weight + bias; a channels-last input gives a
// channels-last output. Parameters and running stats have the input's dtype (or float32 for a
// float16 / bfloat16 input) and C elements.
Tensor batch_norm(const Tensor& input,
                  const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var,
                  bool training,
                  double momentum,
                  double eps);
// Normalises over the last normalized_shape.size() dims (which must equal normalized_shape);
// weight and bias have normalized_shape.
Tensor layer_norm(const Tensor& input,
                  IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt,
                  double eps = 1e-5);
// Root-mean-square norm over the last normalized_shape.size() dims: x / sqrt(mean(x^2) + eps) *
// weight; eps defaults to the machine epsilon of the computing dtype (torch.rms_norm).
Tensor rms_norm(const Tensor& input,
                IntArrayRef normalized_shape,
                const std::optional<Tensor>& weight = std::nullopt,
                std::optional<double> eps = std::nullopt);
// Normalises each group of C / num_groups channels of every sample of an (N, C, *) input, then
// scales and shifts per channel (weight and bias [C]).
Tensor group_norm(const Tensor& input,
                  int64_t num_groups,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt,
                  double eps = 1e-5);
// Normalises each (sample, channel) plane of an (N, C, *) input: batch_norm of the input seen as
// (1, N * C, *); running stats ([C]) are updated with the average over the samples.
// use_input_stats false: the running stats are used instead.
Tensor instance_norm(const Tensor& input,
                     const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias,
                     const std::optional<Tensor>& running_mean,
                     const std::optional<Tensor>& running_var,
                     bool use_input_stats,
                     double momentum,
                     double eps);
// AlexNet's local response norm across channels (dim 1) of an input of 3 or more dims:
// x / (k + alpha / size * sum of x^2 over `size` neighbouring channels)^beta, the window zero
// padded by size / 2 before and (size - 1) / 2 after (torch.nn.functional.local_response_norm).
Tensor local_response_norm(
    const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0);
// x / max(||x||_p over dim, eps) (torch.nn.functional.normalize).
Tensor normalize(const Tensor& input, double p = 2.0, IntArrayRef dim = {1}, double eps = 1e-12);

}  // namespace ember
