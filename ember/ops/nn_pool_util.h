// Helpers shared by the pooling and resampling ops (nn_pool.cpp, nn_resample.cpp): layouts,
// argument lists, autograd node names. Internal to ember/ops.
#pragma once

#include <string>

#include "ember/backend/kernels_nn_pool.h"
#include "ember/core/tensor.h"

namespace ember::pool {

// Whether x's suggested memory format is channels-last (ChannelsLast or ChannelsLast3d).
bool is_channels_last(const Tensor& x);
// x as a dense tensor in the given layout (x itself when it already is one).
Tensor dense(const Tensor& x, bool channels_last);
// A new tensor of `sizes` (4-d or 5-d when channels_last) in the given layout.
Tensor empty_in(IntArrayRef sizes, const TensorOptions& options, bool channels_last);

// `values` (one value, or `n` values) as n values; `what` names the argument in the error:
// "[max_pool2d] kernel_size must be a single int or a tuple of 2 ints, got 3 values".
DimVector expand_arg(IntArrayRef values, int64_t n, const char* op, const char* what);

// "[op] not implemented for dtype bool" (NotImplementedError, as PyTorch) unless allowed.
void check_dtype(const Tensor& x, DTypeSet allowed, const char* op);

// "(1, 2)" for messages.
std::string str_of(IntArrayRef v);

}  // namespace ember::pool
