// Kernel slots of the resampling ops (ops/nn_resample.cpp): interpolate, and unfold/fold
// (im2col/col2im). pixel_shuffle and pixel_unshuffle are views and copies, with no kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/backend/kernels_nn_pool.h"
#include "ember/core/tensor.h"

namespace ember {

// Separable resampling (interpolate): along each spatial dim, output coordinate o reads `taps[d]`
// input coordinates index[d][o * taps + t] (already clamped into the input) with weights
// weight[d][o * taps + t], and out = sum over tap combinations of the product of the weights
// times the input. Nearest modes have 1 tap, linear 2, cubic 4. The weights are computed in the
// op-math type of the tensors (float for float32) and stored here exactly.
struct InterpPlan {
  PoolShape shape;  // batch, channels, in, out, channels_last
  int64_t taps[3] = {1, 1, 1};
  std::vector<int64_t> index[3];
  std::vector<double> weight[3];
};

struct ResampleKernels {
  // out = the plan's resampling of in (both dense in the plan's layout).
  using Interpolate = void (*)(const Tensor& out, const Tensor& in, const InterpPlan& plan);
  // grad_in = zeros, then every grad_out element added to its taps' inputs times the weights.
  using InterpolateBackward = void (*)(const Tensor& grad_in,
                                       const Tensor& grad_out,
                                       const InterpPlan& plan);
  // im2col: in [N, C, H, W] contiguous, out [N, C * kh * kw, OH * OW] contiguous, with
  // out[n][(c * kh + i) * kw + j][oh * OW + ow] = in[n][c][oh * sh - ph + i * dh]
  // [ow * sw - pw + j * dw], 0 outside the input. shape.in/out[1..2] are (H, W) and (OH, OW).
  using Im2Col = void (*)(const Tensor& out, const Tensor& in, const PoolShape& shape);
  // col2im, the adjoint: out [N, C, H, W] = zeros, then every column element added back.
  using Col2Im = void (*)(const Tensor& out, const Tensor& cols, const PoolShape& shape);

  Interpolate interpolate = nullptr;
  InterpolateBackward interpolate_backward = nullptr;
  Im2Col im2col = nullptr;
  Col2Im col2im = nullptr;
};

}  // namespace ember
