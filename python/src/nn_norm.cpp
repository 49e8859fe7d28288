// Bindings of the neural-network ops: normalisation (batch, layer, group, instance, local response,
// normalize) and dropout.
#include "init.h"

namespace ember::py {

void init_nn_norm(nb::module_& m) { (void)m; }

}  // namespace ember::py
