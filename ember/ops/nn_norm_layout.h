// Internal to ops/nn_norm.cpp and ops/nn_dropout.cpp: the two memory layouts their kernels take
// (contiguous, and channels-last: C the innermost dim of a 4-d or 5-d tensor), found from strides.
#pragma once

#include "ember/core/tensor.h"

namespace ember::detail {

// A 4-d or 5-d tensor laid out densely as (N, *spatial, C) and not plain contiguous (PyTorch's
// channels_last / channels_last_3d); size-1 dims may have any stride.
bool is_channels_last(const Tensor& t);
// The channels-last strides of `sizes` (4 or 5 dims).
DimVector channels_last_strides(IntArrayRef sizes);
// `t` itself when it already has the layout (channels-last when `channels_last`, else
// contiguous), otherwise a copy in that layout; no autograd history.
Tensor in_layout(const Tensor& t, bool channels_last);
// An uninitialised tensor of `sizes` in the layout.
Tensor empty_in_layout(IntArrayRef sizes, DType dtype, Device device, bool channels_last);

}  // namespace ember::detail
