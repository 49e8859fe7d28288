// Kernel slots of the losses (ops/nn_loss.cpp): the fused cross entropy; the other losses are
// composites. Class-index targets reaching these kernels are int64.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct LossKernels {
  // Class-index targets (int64, any shape and strides): true when every target is in
  // [0, classes) or equals ignore_index; otherwise false with one bad target value in *bad.
  using CheckTargets = bool (*)(const Tensor& target,
                                int64_t classes,
                                int64_t ignore_index,
                                int64_t* bad);
  // Fused cross entropy over class indices (float32 / float64). x is [N, C, S] with any strides
  // (lines along dim 1), target [N, S] int64 (checked), weight undefined or contiguous [C] of x's
  // dtype. Per line, with t its target, w_c the weights (1 without), W = sum(w), eps the label
  // smoothing and lse = log(sum(exp(x))):
  //   loss = (1 - eps) * w_t * (lse - x_t) + eps / C * (W * lse - sum(w_c * x_c)), wt = w_t;
  // loss, lse and wt are contiguous [N, S] of x's dtype and all 0 where t == ignore_index.
  using CrossEntropyForward = void (*)(const Tensor& loss,
                                       const Tensor& lse,
                                       const Tensor& wt,
                                       const Tensor& x,
                                       const Tensor& target,
                                       const Tensor& weight,
                                       int64_t ignore_index,
                                       double label_smoothing);
  // Its gradient: grad_x [N, C, S] (any strides) = g * (p_c * ((1 - eps) w_t + eps W / C)
  // - (1 - eps) w_t [c == t] - eps / C * w_c) with p = exp(x - lse), 0 on ignored lines;
  // g [N, S] of x's dtype, any strides (stride 0 for a reduced loss).
  using CrossEntropyBackward = void (*)(const Tensor& grad_x,
                                        const Tensor& g,
                                        const Tensor& x,
                                        const Tensor& target,
                                        const Tensor& weight,
                                        const Tensor& lse,
                                        int64_t ignore_index,
                                        double label_smoothing);
  CheckTargets check_targets = nullptr;
  CrossEntropyForward cross_entropy_forward = nullptr;
  CrossEntropyBackward cross_entropy_backward = nullptr;
};

}  // namespace ember
