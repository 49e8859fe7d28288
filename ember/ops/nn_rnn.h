// Neural-network ops: recurrent cells and sequences (RNN, LSTM, GRU) and
// scaled_dot_product_attention.
#pragma once

#include "ember/core/tensor.h"

namespace ember {}  // namespace ember
