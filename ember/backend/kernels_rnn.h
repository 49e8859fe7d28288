// Kernel slots of the neural-network ops: recurrent cells and sequences (RNN, LSTM, GRU) and
// scaled_dot_product_attention (ops/nn_rnn.cpp).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct RnnKernels {};

}  // namespace ember
