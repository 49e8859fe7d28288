// CPU kernels of the neural-network ops: pooling and resampling.
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_pool.h"

namespace ember::cpu {
namespace {

const PoolKernels kPoolKernels{};

}  // namespace

void register_nn_pool(KernelTable& t) { t.pool = &kPoolKernels; }

}  // namespace ember::cpu
