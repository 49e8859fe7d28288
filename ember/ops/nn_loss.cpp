// Neural-network ops: losses (cross_entropy, nll, mse, ...) and embeddings (embedding,
// embedding_bag).
#include "ember/ops/nn_loss.h"

#include "ember/ops/registry.h"

namespace ember {

std::span<const OpInfo> nn_loss_op_infos() { return {}; }

}  // namespace ember
