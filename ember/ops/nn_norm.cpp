// Neural-network ops: normalisation (batch, layer, group, instance, local response, normalize) and
// dropout.
#include "ember/ops/nn_norm.h"

#include "ember/ops/registry.h"

namespace ember {

std::span<const OpInfo> nn_norm_op_infos() { return {}; }

}  // namespace ember
