// CPU kernels of the neural-network ops: convolution through oneDNN, linear and bilinear.
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_conv.h"

namespace ember::cpu {
namespace {

const ConvKernels kConvKernels{};

}  // namespace

void register_nn_conv(KernelTable& t) { t.conv = &kConvKernels; }

}  // namespace ember::cpu
