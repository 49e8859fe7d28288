// Kernel slots of the neural-network ops: normalisation (batch, layer, group, instance, local
// response, normalize) and dropout (ops/nn_norm.cpp).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct NormKernels {};

}  // namespace ember
