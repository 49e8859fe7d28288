// Recurrent layers: RNN, LSTM, GRU over ember::rnn_tanh / rnn_relu / lstm / gru, and the cells
// RNNCell, LSTMCell, GRUCell. Parameter names (weight_ih_l0, bias_hh_l1_reverse, ...), shapes,
// gate order and the U(+-1/sqrt(hidden_size)) initialisation are PyTorch's.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

struct RNNOptions {
  int64_t num_layers = 1;
  std::string nonlinearity = "tanh";  // RNN only: "tanh" or "relu"
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;  // between layers, in training mode
  bool bidirectional = false;
};
using LSTMOptions = RNNOptions;
using GRUOptions = RNNOptions;

namespace detail {

class RNNBase : public Module {
 public:
  int64_t input_size, hidden_size;
  RNNOptions options;
  std::string extra_repr() const override;
  void reset_parameters();
  // weight_ih, weight_hh (and the biases) of every layer and direction, in the ops' order.
  std::vector<Tensor> flat_weights() const;

 protected:
  RNNBase(const char* name, int64_t gates, int64_t input_size, int64_t hidden_size, RNNOptions o);
  // Adds a batch dim to unbatched input (and hidden states); true when it did.
  bool batch(Tensor& input, std::vector<Tensor*> hx, const char* what) const;
  // Zero initial state [num_layers * D, B, H] for this batch.
  Tensor zero_state(const Tensor& input) const;
};

}  // namespace detail

// Elman RNN. forward(input, h_0 = zeros) -> (output, h_n); input [T, B, I] ([B, T, I] when
// batch_first) or unbatched [T, I].
class RNN : public detail::RNNBase {
 public:
  RNN(int64_t input_size, int64_t hidden_size, RNNOptions options = {});
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
};

// forward(input, {h_0, c_0} = zeros) -> (output, (h_n, c_n)).
class LSTM : public detail::RNNBase {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, LSTMOptions options = {});
  std::pair<Tensor, std::pair<Tensor, Tensor>> forward(const Tensor& input,
                                                       const std::pair<Tensor, Tensor>& hx = {});
};

class GRU : public detail::RNNBase {
 public:
  GRU(int64_t input_size, int64_t hidden_size, GRUOptions options = {});
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
};

struct RNNCellOptions {
  bool bias = true;
  std::string nonlinearity = "tanh";  // RNNCell only
};

namespace detail {

class RNNCellBase : public Module {
 public:
  int64_t input_size, hidden_size;
  RNNCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
  std::string extra_repr() const override;
  void reset_parameters();

 protected:
  RNNCellBase(
      const char* name, int64_t gates, int64_t input_size, int64_t hidden_size, RNNCellOptions o);
  Tensor zero_state(const Tensor& input) const;
};

}  // namespace detail

// One step: input [B, I] (or [I]), hidden [B, H] (zeros when omitted).
class RNNCell : public detail::RNNCellBase {
 public:
  RNNCell(int64_t input_size, int64_t hidden_size, RNNCellOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& hx = {}) const;
};

class LSTMCell : public detail::RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, RNNCellOptions options = {});
  // Returns (h', c').
  std::pair<Tensor, Tensor> forward(const Tensor& input,
                                    const std::pair<Tensor, Tensor>& hx = {}) const;
};

class GRUCell : public detail::RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, RNNCellOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& hx = {}) const;
};

}  // namespace ember::nn
