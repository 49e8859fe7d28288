// Bindings of the recurrent ops: cells and sequences (RNN, LSTM, GRU) as ember.rnn_tanh_cell ...
// ember.gru with torch's signatures.
#include <nanobind/stl/tuple.h>

#include "init.h"

namespace ember::py {
namespace {

using OptTensor = std::optional<Tensor>;

// The sequence functions' common arguments after hx and params, as torch names them.
#define EMBER_RNN_ARGS                                                                \
  nb::arg("has_biases"), nb::arg("num_layers"), nb::arg("dropout"), nb::arg("train"), \
      nb::arg("bidirectional"), nb::arg("batch_first")

}  // namespace

void init_nn_rnn(nb::module_& m) {
  m.def("rnn_tanh_cell", &rnn_tanh_cell, nb::arg("input"), nb::arg("hx"), nb::arg("w_ih"),
        nb::arg("w_hh"), nb::arg("b_ih").none() = nb::none(), nb::arg("b_hh").none() = nb::none());
  m.def("rnn_relu_cell", &rnn_relu_cell, nb::arg("input"), nb::arg("hx"), nb::arg("w_ih"),
        nb::arg("w_hh"), nb::arg("b_ih").none() = nb::none(), nb::arg("b_hh").none() = nb::none());
  m.def("gru_cell", &gru_cell, nb::arg("input"), nb::arg("hx"), nb::arg("w_ih"), nb::arg("w_hh"),
        nb::arg("b_ih").none() = nb::none(), nb::arg("b_hh").none() = nb::none());
  m.def("lstm_cell", &lstm_cell, nb::arg("input"), nb::arg("hx"), nb::arg("w_ih"), nb::arg("w_hh"),
        nb::arg("b_ih").none() = nb::none(), nb::arg("b_hh").none() = nb::none());

  m.def("rnn_tanh", &rnn_tanh, nb::arg("input"), nb::arg("hx"), nb::arg("params"), EMBER_RNN_ARGS);
  m.def("rnn_relu", &rnn_relu, nb::arg("input"), nb::arg("hx"), nb::arg("params"), EMBER_RNN_ARGS);
  m.def("gru", &gru, nb::arg("input"), nb::arg("hx"), nb::arg("params"), EMBER_RNN_ARGS);
  m.def("lstm", &lstm, nb::arg("input"), nb::arg("hx"), nb::arg("params"), EMBER_RNN_ARGS);
}

#undef EMBER_RNN_ARGS

}  // namespace ember::py
