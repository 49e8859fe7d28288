// Neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d) through oneDNN, linear and
// bilinear.
#pragma once

#include "ember/core/tensor.h"

namespace ember {}  // namespace ember
