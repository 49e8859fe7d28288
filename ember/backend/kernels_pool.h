// Kernel slots of the neural-network ops: pooling (max, average, adaptive, unpool) and resampling
// (interpolate, pixel_shuffle, unfold/fold) (ops/nn_pool.cpp, ops/nn_resample.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// One pooling problem over up to three spatial dims, in (d, h, w) order. 1-d and 2-d pools have
// leading spatial dims of size 1 (kernel 1, stride 1, no padding). Tensors given to the kernels
// are dense: N, C, spatial... row-major ("NCHW"), or N, spatial..., C row-major when
// `channels_last` ("NHWC"), with the sizes below whatever their rank.
struct PoolShape {
  int64_t batch = 1, channels = 1;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  // Adaptive pooling: window o of a dim is [floor(o * in / out), ceil((o + 1) * in / out)), and
  // kernel/stride/pad/dilation are unused.
  bool adaptive = false;
  bool channels_last = false;

  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// How average pooling divides a window's sum: by the window size clipped to the input and its
// padding (count_include_pad), by the number of input elements in it, or by `divisor` when nonzero
// (divisor_override, which may be negative).
struct AvgDivisor {
  bool count_include_pad = true;
  int64_t divisor = 0;
};

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

struct PoolKernels {
  // out = the max of each window; `indices` (int64, defined or not) receives the position of
  // the max in the input plane, d * H * W + h * W + w: the first one on ties, the last NaN if
  // any (PyTorch's order). Used for max pooling and adaptive max pooling (shape.adaptive).
  using MaxPool = void (*)(const Tensor& out,
                           const Tensor& indices,
                           const Tensor& in,
                           const PoolShape& shape);
  // grad_in = zeros, then grad_in[plane][indices[o]] += grad_out[o] for every output o.
  using MaxPoolBackward = void (*)(const Tensor& grad_in,
                                   const Tensor& grad_out,
                                   const Tensor& indices,
                                   const PoolShape& shape);
  // out = the mean of each window (sum / divisor); adaptive windows divide by their size.
  using AvgPool = void (*)(const Tensor& out,
                           const Tensor& in,
                           const PoolShape& shape,
                           AvgDivisor div);
  // grad_in = zeros, then each grad_out[o] / divisor added to every input element of window o.
  using AvgPoolBackward = void (*)(const Tensor& grad_in,
                                   const Tensor& grad_out,
                                   const PoolShape& shape,
                                   AvgDivisor div);
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

  MaxPool max_pool = nullptr;
  MaxPoolBackward max_pool_backward = nullptr;
  AvgPool avg_pool = nullptr;
  AvgPoolBackward avg_pool_backward = nullptr;
  Interpolate interpolate = nullptr;
  InterpolateBackward interpolate_backward = nullptr;
  Im2Col im2col = nullptr;
  Col2Im col2im = nullptr;
};

}  // namespace ember
