// Bindings of the neural-network ops: recurrent cells and sequences (RNN, LSTM, GRU) and
// scaled_dot_product_attention.
#include "init.h"

namespace ember::py {

void init_nn_rnn(nb::module_& m) { (void)m; }

}  // namespace ember::py
