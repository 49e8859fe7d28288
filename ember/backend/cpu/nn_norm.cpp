// CPU kernels of the neural-network ops: normalisation and dropout.
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_norm.h"

namespace ember::cpu {
namespace {

const NormKernels kNormKernels{};

}  // namespace

void register_nn_norm(KernelTable& t) { t.norm = &kNormKernels; }

}  // namespace ember::cpu
