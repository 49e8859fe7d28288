// Recurrent ops: cells and sequences of RNN, LSTM and GRU. Gate order and formulas are PyTorch's
// (docs/design/nn_rnn.md).
#pragma once

#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

// ---- cells: one time step; input [B, I], hidden states [B, H] ----------------------------------

// tanh(input @ w_ih^T + b_ih + hx @ w_hh^T + b_hh); w_ih [H, I], w_hh [H, H], biases [H].
Tensor rnn_tanh_cell(const Tensor& input,
                     const Tensor& hx,
                     const Tensor& w_ih,
                     const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih = std::nullopt,
                     const std::optional<Tensor>& b_hh = std::nullopt);
// relu(input @ w_ih^T + b_ih + hx @ w_hh^T + b_hh).
Tensor rnn_relu_cell(const Tensor& input,
                     const Tensor& hx,
                     const Tensor& w_ih,
                     const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih = std::nullopt,
                     const std::optional<Tensor>& b_hh = std::nullopt);
// hx = {h, c}; gates i, f, g, o (w_ih [4H, I], w_hh [4H, H]); returns (h', c') with
// c' = f * c + i * g and h' = o * tanh(c').
std::pair<Tensor, Tensor> lstm_cell(const Tensor& input,
                                    const std::vector<Tensor>& hx,
                                    const Tensor& w_ih,
                                    const Tensor& w_hh,
                                    const std::optional<Tensor>& b_ih = std::nullopt,
                                    const std::optional<Tensor>& b_hh = std::nullopt);
// Gates r, z, n (w_ih [3H, I], w_hh [3H, H]); n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
// h' = (1 - z) * n + z * h.
Tensor gru_cell(const Tensor& input,
                const Tensor& hx,
                const Tensor& w_ih,
                const Tensor& w_hh,
                const std::optional<Tensor>& b_ih = std::nullopt,
                const std::optional<Tensor>& b_hh = std::nullopt);

// ---- sequences: torch.rnn_tanh / rnn_relu / lstm / gru ------------------------------------------
// input [T, B, I] ([B, T, I] when batch_first); hidden states [num_layers * D, B, H] with D = 2
// when bidirectional. params per layer and direction (forward first): w_ih, w_hh, then b_ih, b_hh
// when has_biases, then (LSTM with projections, detected as PyTorch does by h_0's size differing
// from c_0's) w_hr [P, H]. dropout (probability) applies to each layer's output but the last,
// when train. Returns (output [T, B, D * H], h_n) and for the LSTM also c_n.

std::pair<Tensor, Tensor> rnn_tanh(const Tensor& input,
                                   const Tensor& hx,
                                   const std::vector<Tensor>& params,
                                   bool has_biases,
                                   int64_t num_layers,
                                   double dropout,
                                   bool train,
                                   bool bidirectional,
                                   bool batch_first);
std::pair<Tensor, Tensor> rnn_relu(const Tensor& input,
                                   const Tensor& hx,
                                   const std::vector<Tensor>& params,
                                   bool has_biases,
                                   int64_t num_layers,
                                   double dropout,
                                   bool train,
                                   bool bidirectional,
                                   bool batch_first);
std::pair<Tensor, Tensor> gru(const Tensor& input,
                              const Tensor& hx,
                              const std::vector<Tensor>& params,
                              bool has_biases,
                              int64_t num_layers,
                              double dropout,
                              bool train,
                              bool bidirectional,
                              bool batch_first);
// hx = {h_0, c_0}.
std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input,
                                        const std::vector<Tensor>& hx,
                                        const std::vector<Tensor>& params,
                                        bool has_biases,
                                        int64_t num_layers,
                                        double dropout,
                                        bool train,
                                        bool bidirectional,
                                        bool batch_first);

}  // namespace ember
