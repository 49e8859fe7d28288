// Kernel slots of the neural-network ops: pooling (max, average, adaptive, unpool) and resampling
// (interpolate, pixel_shuffle, unfold/fold) (ops/nn_pool.cpp).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct PoolKernels {};

}  // namespace ember
