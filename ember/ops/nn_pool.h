// Neural-network ops: pooling (max, average, adaptive, unpool) and resampling (interpolate,
// pixel_shuffle, unfold/fold).
#pragma once

#include "ember/core/tensor.h"

namespace ember {}  // namespace ember
