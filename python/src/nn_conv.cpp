// Bindings of the neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d) through
// oneDNN, linear and bilinear.
#include "init.h"

namespace ember::py {

void init_nn_conv(nb::module_& m) { (void)m; }

}  // namespace ember::py
