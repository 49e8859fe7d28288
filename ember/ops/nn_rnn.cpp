// Neural-network ops: recurrent cells and sequences (RNN, LSTM, GRU) and
// scaled_dot_product_attention.
#include "ember/ops/nn_rnn.h"

#include "ember/ops/registry.h"

namespace ember {

std::span<const OpInfo> nn_rnn_op_infos() { return {}; }

}  // namespace ember
