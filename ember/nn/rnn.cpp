#include "ember/nn/rnn.h"

#include <cmath>

#include "ember/nn/init.h"
#include "ember/nn/repr_util.h"
#include "ember/ops/creation.h"
#include "ember/ops/nn_rnn.h"

namespace ember::nn {
namespace detail {

static std::optional<Tensor> opt(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

RNNBase::RNNBase(
    const char* name, int64_t gates, int64_t input_size, int64_t hidden_size, RNNOptions o)
    : Module(name), input_size(input_size), hidden_size(hidden_size), options(std::move(o)) {
  EMBER_CHECK_VALUE(hidden_size > 0, "[", name, "] hidden_size must be positive, got ",
                    hidden_size);
  EMBER_CHECK_VALUE(options.num_layers > 0, "[", name, "] num_layers must be positive, got ",
                    options.num_layers);
  EMBER_CHECK_VALUE(options.dropout >= 0 && options.dropout <= 1, "[", name,
                    "] dropout must be a number in [0, 1], got ", options.dropout);
  const int64_t dirs = options.bidirectional ? 2 : 1;
  for (int64_t layer = 0; layer < options.num_layers; ++layer) {
    const int64_t in = layer == 0 ? input_size : hidden_size * dirs;
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string sfx = "_l" + std::to_string(layer) + (d ? "_reverse" : "");
      register_parameter("weight_ih" + sfx, empty({gates * hidden_size, in}));
      register_parameter("weight_hh" + sfx, empty({gates * hidden_size, hidden_size}));
      if (options.bias) {
        register_parameter("bias_ih" + sfx, empty({gates * hidden_size}));
        register_parameter("bias_hh" + sfx, empty({gates * hidden_size}));
      }
    }
  }
  reset_parameters();
}

void RNNBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(double(hidden_size));
  for (Tensor& w : parameters(false)) init::uniform_(w, -bound, bound);
}

std::vector<Tensor> RNNBase::flat_weights() const { return parameters(false); }

bool RNNBase::batch(Tensor& input, std::vector<Tensor*> hx, const char* what) const {
  EMBER_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "[", type_name(),
                    "] expected input to be 2D or 3D, got ", input.dim(), "D");
  if (input.dim() == 3) return false;
  input = input.unsqueeze(options.batch_first ? 0 : 1);
  for (Tensor* h : hx) {
    if (!h->defined()) continue;
    EMBER_CHECK_VALUE(h->dim() == 2, "[", type_name(), "] for unbatched 2-D input, ", what,
                      " should also be 2-D but got ", h->dim(), "-D");
    *h = h->unsqueeze(1);
  }
  return true;
}

Tensor RNNBase::zero_state(const Tensor& input) const {
  const int64_t dirs = options.bidirectional ? 2 : 1;
  const int64_t b = input.size(options.batch_first ? 0 : 1);
  return zeros({options.num_layers * dirs, b, hidden_size}, input.dtype());
}

std::string RNNBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (options.num_layers != 1) s += ", num_layers=" + std::to_string(options.num_layers);
  if (!options.bias) s += ", bias=False";
  if (options.batch_first) s += ", batch_first=True";
  if (options.dropout != 0) s += ", dropout=" + py_float(options.dropout);
  if (options.bidirectional) s += ", bidirectional=True";
  return s;
}

RNNCellBase::RNNCellBase(
    const char* name, int64_t gates, int64_t input_size, int64_t hidden_size, RNNCellOptions o)
    : Module(name), input_size(input_size), hidden_size(hidden_size), options(std::move(o)) {
  weight_ih = register_parameter("weight_ih", empty({gates * hidden_size, input_size}));
  weight_hh = register_parameter("weight_hh", empty({gates * hidden_size, hidden_size}));
  bias_ih = register_parameter("bias_ih", options.bias ? empty({gates * hidden_size}) : Tensor());
  bias_hh = register_parameter("bias_hh", options.bias ? empty({gates * hidden_size}) : Tensor());
  reset_parameters();
}

void RNNCellBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(double(hidden_size));
  for (Tensor& w : parameters(false)) init::uniform_(w, -bound, bound);
}

Tensor RNNCellBase::zero_state(const Tensor& input) const {
  return input.dim() == 1 ? zeros({hidden_size}, input.dtype())
                          : zeros({input.size(0), hidden_size}, input.dtype());
}

std::string RNNCellBase::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (!options.bias) s += ", bias=False";
  if (options.nonlinearity != "tanh") s += ", nonlinearity=" + options.nonlinearity;
  return s;
}

}  // namespace detail

RNN::RNN(int64_t input_size, int64_t hidden_size, RNNOptions options)
    : RNNBase("RNN", 1, input_size, hidden_size, std::move(options)) {
  EMBER_CHECK_VALUE(this->options.nonlinearity == "tanh" || this->options.nonlinearity == "relu",
                    "[RNN] unknown nonlinearity '", this->options.nonlinearity,
                    "': use 'tanh' or 'relu'");
}

std::pair<Tensor, Tensor> RNN::forward(const Tensor& input_, const Tensor& hx_) {
  Tensor input = input_, hx = hx_;
  const bool unbatched = batch(input, {&hx}, "hx");
  if (!hx.defined()) hx = zero_state(input);
  auto op = options.nonlinearity == "relu" ? rnn_relu : rnn_tanh;
  auto [out, h] = op(input, hx, flat_weights(), options.bias, options.num_layers, options.dropout,
                     training_, options.bidirectional, options.batch_first);
  if (unbatched) return {out.squeeze(options.batch_first ? 0 : 1), h.squeeze(1)};
  return {out, h};
}

LSTM::LSTM(int64_t input_size, int64_t hidden_size, LSTMOptions options)
    : RNNBase("LSTM", 4, input_size, hidden_size, std::move(options)) {}

std::pair<Tensor, std::pair<Tensor, Tensor>> LSTM::forward(const Tensor& input_,
                                                           const std::pair<Tensor, Tensor>& hx_) {
  Tensor input = input_, h0 = hx_.first, c0 = hx_.second;
  EMBER_CHECK_VALUE(h0.defined() == c0.defined(),
                    "[LSTM] give both h_0 and c_0, or neither (zeros)");
  const bool unbatched = batch(input, {&h0, &c0}, "hx");
  if (!h0.defined()) {
    h0 = zero_state(input);
    c0 = zero_state(input);
  }
  auto [out, h, c] = lstm(input, {h0, c0}, flat_weights(), options.bias, options.num_layers,
                          options.dropout, training_, options.bidirectional, options.batch_first);
  if (unbatched) return {out.squeeze(options.batch_first ? 0 : 1), {h.squeeze(1), c.squeeze(1)}};
  return {out, {h, c}};
}

GRU::GRU(int64_t input_size, int64_t hidden_size, GRUOptions options)
    : RNNBase("GRU", 3, input_size, hidden_size, std::move(options)) {}

std::pair<Tensor, Tensor> GRU::forward(const Tensor& input_, const Tensor& hx_) {
  Tensor input = input_, hx = hx_;
  const bool unbatched = batch(input, {&hx}, "hx");
  if (!hx.defined()) hx = zero_state(input);
  auto [out, h] = gru(input, hx, flat_weights(), options.bias, options.num_layers, options.dropout,
                      training_, options.bidirectional, options.batch_first);
  if (unbatched) return {out.squeeze(options.batch_first ? 0 : 1), h.squeeze(1)};
  return {out, h};
}

RNNCell::RNNCell(int64_t input_size, int64_t hidden_size, RNNCellOptions options)
    : RNNCellBase("RNNCell", 1, input_size, hidden_size, std::move(options)) {
  EMBER_CHECK_VALUE(this->options.nonlinearity == "tanh" || this->options.nonlinearity == "relu",
                    "[RNNCell] unknown nonlinearity '", this->options.nonlinearity,
                    "': use 'tanh' or 'relu'");
}

Tensor RNNCell::forward(const Tensor& input, const Tensor& hx) const {
  const Tensor h = hx.defined() ? hx : zero_state(input);
  auto op = options.nonlinearity == "relu" ? rnn_relu_cell : rnn_tanh_cell;
  Tensor out = op(input.dim() == 1 ? input.unsqueeze(0) : input, h.dim() == 1 ? h.unsqueeze(0) : h,
                  weight_ih, weight_hh, detail::opt(bias_ih), detail::opt(bias_hh));
  return input.dim() == 1 ? out.squeeze(0) : out;
}

LSTMCell::LSTMCell(int64_t input_size, int64_t hidden_size, RNNCellOptions options)
    : RNNCellBase("LSTMCell", 4, input_size, hidden_size, std::move(options)) {}

std::pair<Tensor, Tensor> LSTMCell::forward(const Tensor& input,
                                            const std::pair<Tensor, Tensor>& hx) const {
  const Tensor h = hx.first.defined() ? hx.first : zero_state(input);
  const Tensor c = hx.second.defined() ? hx.second : zero_state(input);
  const bool one = input.dim() == 1;
  auto [h1, c1] = lstm_cell(one ? input.unsqueeze(0) : input,
                            {one ? h.unsqueeze(0) : h, one ? c.unsqueeze(0) : c}, weight_ih,
                            weight_hh, detail::opt(bias_ih), detail::opt(bias_hh));
  if (one) return {h1.squeeze(0), c1.squeeze(0)};
  return {h1, c1};
}

GRUCell::GRUCell(int64_t input_size, int64_t hidden_size, RNNCellOptions options)
    : RNNCellBase("GRUCell", 3, input_size, hidden_size, std::move(options)) {}

Tensor GRUCell::forward(const Tensor& input, const Tensor& hx) const {
  const Tensor h = hx.defined() ? hx : zero_state(input);
  const bool one = input.dim() == 1;
  Tensor out = gru_cell(one ? input.unsqueeze(0) : input, one ? h.unsqueeze(0) : h, weight_ih,
                        weight_hh, detail::opt(bias_ih), detail::opt(bias_hh));
  return one ? out.squeeze(0) : out;
}

}  // namespace ember::nn
