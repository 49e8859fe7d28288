// Neural-network ops: losses (cross_entropy, nll, mse, ...) and embeddings (embedding,
// embedding_bag).
#pragma once

#include "ember/core/tensor.h"

namespace ember {}  // namespace ember
