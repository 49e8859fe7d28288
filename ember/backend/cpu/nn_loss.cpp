// CPU kernels of the neural-network ops: losses and embeddings.
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_loss.h"

namespace ember::cpu {
namespace {

const LossKernels kLossKernels{};

}  // namespace

void register_nn_loss(KernelTable& t) { t.loss = &kLossKernels; }

}  // namespace ember::cpu
