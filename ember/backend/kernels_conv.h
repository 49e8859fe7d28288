// Kernel slots of the neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d) through
// oneDNN, linear and bilinear (ops/nn_conv.cpp).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct ConvKernels {};

}  // namespace ember
