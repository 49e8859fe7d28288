// Neural-network ops: pooling (max, average, adaptive, unpool) and resampling (interpolate,
// pixel_shuffle, unfold/fold).
#include "ember/ops/nn_pool.h"

#include "ember/ops/registry.h"

namespace ember {

std::span<const OpInfo> nn_pool_op_infos() { return {}; }

}  // namespace ember
