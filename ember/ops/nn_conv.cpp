// Neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d) through oneDNN, linear and
// bilinear.
#include "ember/ops/nn_conv.h"

#include "ember/ops/registry.h"

namespace ember {

std::span<const OpInfo> nn_conv_op_infos() { return {}; }

}  // namespace ember
