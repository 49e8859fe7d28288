// Pooling ops: max, average, adaptive, unpool (resampling is in nn_resample.h). PyTorch's semantics
// and argument order; every size argument takes one value (used for every spatial dim) or one per
// spatial dim. Inputs are batched (N, C, ...) or unbatched (C, ...); a channels-last input (NHWC
// strides) gives a channels-last output.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// ---- max pooling -------------------------------------------------------------------------------
// The max of each window of kernel_size elements, windows every `stride` (empty: kernel_size)
// over the input padded by `padding` (at most half the kernel) on both sides, window elements
// `dilation` apart. ceil_mode rounds the output size up, keeping only windows that start inside
// the input or its left padding. NaN propagates.
Tensor max_pool1d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride = {},
                  IntArrayRef padding = 0,
                  IntArrayRef dilation = 1,
                  bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride = {},
                  IntArrayRef padding = 0,
                  IntArrayRef dilation = 1,
                  bool ceil_mode = false);
Tensor max_pool3d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride = {},
                  IntArrayRef padding = 0,
                  IntArrayRef dilation = 1,
                  bool ceil_mode = false);
// The same, with the position of each max (int64): its flat index in the (n, c) input plane,
// d * H * W + h * W + w; the first one on ties, the last NaN if any.
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                  IntArrayRef kernel_size,
                                                  IntArrayRef stride = {},
                                                  IntArrayRef padding = 0,
                                                  IntArrayRef dilation = 1,
                                                  bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                  IntArrayRef kernel_size,
                                                  IntArrayRef stride = {},
                                                  IntArrayRef padding = 0,
                                                  IntArrayRef dilation = 1,
                                                  bool ceil_mode = false);
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                  IntArrayRef kernel_size,
                                                  IntArrayRef stride = {},
                                                  IntArrayRef padding = 0,
                                                  IntArrayRef dilation = 1,
                                                  bool ceil_mode = false);

// Scatters each input value to its index (as max_pool2d_with_indices gives them) in a zero
// output of size output_size (2 or 4 values; empty: (in - 1) * stride + kernel - 2 * padding).
Tensor max_unpool2d(const Tensor& input,
                    const Tensor& indices,
                    IntArrayRef kernel_size,
                    IntArrayRef stride = {},
                    IntArrayRef padding = 0,
                    IntArrayRef output_size = {});

// ---- average pooling ---------------------------------------------------------------------------
// The mean of each window (windows as in max pooling, no dilation). count_include_pad divides
// by the window size clipped to the padded input, otherwise by the number of input elements
// in it; divisor_override (nonzero) replaces either.
Tensor avg_pool1d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride = {},
                  IntArrayRef padding = 0,
                  bool ceil_mode = false,
                  bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride = {},
                  IntArrayRef padding = 0,
                  bool ceil_mode = false,
                  bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride = {},
                  IntArrayRef padding = 0,
                  bool ceil_mode = false,
                  bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);

// ---- adaptive pooling --------------------------------------------------------------------------
// Output o of a dim of size `in` pools input [floor(o * in / out), ceil((o + 1) * in / out)).
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size);
// Values and indices (flat in each input plane, as max_pool*_with_indices).
std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);

}  // namespace ember
