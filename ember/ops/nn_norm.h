// Neural-network ops: normalisation (batch, layer, group, instance, local response, normalize) and
// dropout.
#pragma once

#include "ember/core/tensor.h"

namespace ember {}  // namespace ember
