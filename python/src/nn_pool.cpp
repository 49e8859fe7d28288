// Bindings of the neural-network ops: pooling (max, average, adaptive, unpool) and resampling
// (interpolate, pixel_shuffle, unfold/fold).
#include "init.h"

namespace ember::py {

void init_nn_pool(nb::module_& m) { (void)m; }

}  // namespace ember::py
