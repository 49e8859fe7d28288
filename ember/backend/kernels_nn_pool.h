// Kernel slots of the pooling ops (ops/nn_pool.cpp): max, average, adaptive, unpool. PoolShape also
// describes the resampling kernels' problems (kernels_nn_resample.h).
#pragma once

#include <cstdint>

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
  MaxPool max_pool = nullptr;
  MaxPoolBackward max_pool_backward = nullptr;
  AvgPool avg_pool = nullptr;
  AvgPoolBackward avg_pool_backward = nullptr;
};

}  // namespace ember
