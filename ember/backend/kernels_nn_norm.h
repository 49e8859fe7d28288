// Kernel slots of the normalisation ops (ops/nn_norm.cpp): batch, layer, group and instance norm
// (local response norm and normalize are composites).
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

// The norm kernels take float32 or float64 tensors (the ops compute 16-bit floats in float32);
// weight, bias and statistics have the input's dtype and are contiguous; an undefined tensor
// stands for an absent one (no weight, no running stats, a gradient nobody needs). Per-channel
// and per-row sums are split into pieces by the shape alone and added in a fixed order, so the
// results do not depend on the thread count.
struct NormKernels {
  // Batch norm: x is (N, C, *) and either contiguous or channels-last (C the innermost dim, then
  // the spatial dims, then N, with no gaps); out, and the gradients below, have x's strides.
  // Training: the batch's per-channel mean and biased variance var; save_mean = mean and
  // save_invstd = 1 / sqrt(var + eps) ([C]); the running stats, where defined, become
  // (1 - momentum) * r + momentum * s with s = mean and the unbiased variance;
  // out = (x - mean) * save_invstd * weight + bias.
  using BatchNormTrain = void (*)(const Tensor& out,
                                  const Tensor& save_mean,
                                  const Tensor& save_invstd,
                                  const Tensor& x,
                                  const Tensor& weight,
                                  const Tensor& bias,
                                  const Tensor& running_mean,
                                  const Tensor& running_var,
                                  double momentum,
                                  double eps);
  // Evaluation: out = (x - mean) / sqrt(var + eps) * weight + bias with the given [C] stats.
  using BatchNormEval = void (*)(const Tensor& out,
                                 const Tensor& x,
                                 const Tensor& mean,
                                 const Tensor& var,
                                 const Tensor& weight,
                                 const Tensor& bias,
                                 double eps);
  // Backward: g has x's sizes and strides; mean and invstd [C] are the batch's (train) or the
  // running ones (1 / sqrt(running_var + eps)), which are constants. Writes the defined ones of
  // grad_input, grad_weight and grad_bias ([C]).
  using BatchNormBackward = void (*)(const Tensor& grad_input,
                                     const Tensor& grad_weight,
                                     const Tensor& grad_bias,
                                     const Tensor& g,
                                     const Tensor& x,
                                     const Tensor& mean,
                                     const Tensor& invstd,
                                     const Tensor& weight,
                                     bool train);
  // Layer norm: x contiguous, normalised over rows of its last `n` elements (M = numel / n
  // rows); out contiguous; mean and rstd hold M values; weight and bias n.
  using LayerNormForward = void (*)(const Tensor& out,
                                    const Tensor& mean,
                                    const Tensor& rstd,
                                    const Tensor& x,
                                    const Tensor& weight,
                                    const Tensor& bias,
                                    int64_t n,
                                    double eps);
  using LayerNormBackward = void (*)(const Tensor& grad_input,
                                     const Tensor& grad_weight,
                                     const Tensor& grad_bias,
                                     const Tensor& g,
                                     const Tensor& x,
                                     const Tensor& mean,
                                     const Tensor& rstd,
                                     const Tensor& weight,
                                     int64_t n);
  // Group norm: x contiguous (N, C, *), `groups` divides C; mean and rstd [N, groups]; weight
  // and bias [C]; g and grad_input contiguous.
  using GroupNormForward = void (*)(const Tensor& out,
                                    const Tensor& mean,
                                    const Tensor& rstd,
                                    const Tensor& x,
                                    const Tensor& weight,
                                    const Tensor& bias,
                                    int64_t groups,
                                    double eps);
  using GroupNormBackward = void (*)(const Tensor& grad_input,
                                     const Tensor& grad_weight,
                                     const Tensor& grad_bias,
                                     const Tensor& g,
                                     const Tensor& x,
                                     const Tensor& mean,
                                     const Tensor& rstd,
                                     const Tensor& weight,
                                     int64_t groups);
  BatchNormTrain batch_norm_train = nullptr;
  BatchNormEval batch_norm_eval = nullptr;
  BatchNormBackward batch_norm_backward = nullptr;
  LayerNormForward layer_norm = nullptr;
  LayerNormBackward layer_norm_backward = nullptr;
  GroupNormForward group_norm = nullptr;
  GroupNormBackward group_norm_backward = nullptr;
};

}  // namespace ember
