// Kernel slots of the neural-network ops: losses (cross_entropy, nll, mse, ...) and embeddings
// (embedding, embedding_bag) (ops/nn_loss.cpp).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct LossKernels {};

}  // namespace ember
