// Bindings of the neural-network ops: recurrent cells and sequences (RNN, LSTM, GRU) as
// ember.rnn_tanh_cell ... ember.gru with torch's signatures, and scaled_dot_product_attention
// (ember._C._nn, wrapped by ember.nn.functional).
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

  nb::module_ nn = m.def_submodule("_nn", "ember.nn.functional's C++ functions");
  nn.def(
      "scaled_dot_product_attention",
      [](const Tensor& q, const Tensor& k, const Tensor& v, const OptTensor& attn_mask,
         double dropout_p, bool is_causal, std::optional<double> scale, bool enable_gqa) {
        return scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale,
                                            enable_gqa);
      },
      nb::arg("query"), nb::arg("key"), nb::arg("value"), nb::arg("attn_mask").none() = nb::none(),
      nb::arg("dropout_p") = 0.0, nb::arg("is_causal") = false,
      nb::arg("scale").none() = nb::none(), nb::arg("enable_gqa") = false);
}

#undef EMBER_RNN_ARGS

}  // namespace ember::py
