// Bindings of the neural-network ops: losses (cross_entropy, nll, mse, ...) and embeddings
// (embedding, embedding_bag).
#include "init.h"

namespace ember::py {

void init_nn_loss(nb::module_& m) { (void)m; }

}  // namespace ember::py
