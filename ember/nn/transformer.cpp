#include "ember/nn/transformer.h"

#include "ember/ops/elementwise.h"

namespace ember::nn {

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model,
                                                 int64_t nhead,
                                                 TransformerEncoderLayerOptions o)
    : Module("TransformerEncoderLayer"), options(std::move(o)) {
  EMBER_CHECK_VALUE(options.activation == "relu" || options.activation == "gelu",
                    "[TransformerEncoderLayer] activation should be relu/gelu, not ",
                    options.activation);
  // Registration order is PyTorch's, which fixes the state_dict order.
  self_attn = register_module("self_attn",
                              std::make_shared<MultiheadAttention>(
                                  d_model, nhead,
                                  MultiheadAttentionOptions{.dropout = options.dropout,
                                                            .bias = options.bias,
                                                            .batch_first = options.batch_first}));
  linear1 =
      register_module("linear1", std::make_shared<Linear>(d_model, options.dim_feedforward,
                                                          LinearOptions{.bias = options.bias}));
  dropout = register_module("dropout", std::make_shared<Dropout>(options.dropout));
  linear2 =
      register_module("linear2", std::make_shared<Linear>(options.dim_feedforward, d_model,
                                                          LinearOptions{.bias = options.bias}));
  const LayerNormOptions ln{.eps = options.layer_norm_eps, .bias = options.bias};
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(std::vector<int64_t>{d_model}, ln));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(std::vector<int64_t>{d_model}, ln));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(options.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(options.dropout));
}

Tensor TransformerEncoderLayer::self_attention_block(const Tensor& x,
                                                     const Tensor& mask,
                                                     const Tensor& padding) {
  return dropout1->forward(self_attn->forward(x, x, x, padding, false, mask).first);
}

Tensor TransformerEncoderLayer::feed_forward_block(const Tensor& x) {
  const Tensor h = linear1->forward(x);
  const Tensor a = options.activation == "gelu" ? gelu(h) : relu(h);
  return dropout2->forward(linear2->forward(dropout->forward(a)));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src,
                                        const Tensor& src_mask,
                                        const Tensor& src_key_padding_mask) {
  Tensor x = src;
  if (options.norm_first) {
    x = x + self_attention_block(norm1->forward(x), src_mask, src_key_padding_mask);
    return x + feed_forward_block(norm2->forward(x));
  }
  x = norm1->forward(x + self_attention_block(x, src_mask, src_key_padding_mask));
  return norm2->forward(x + feed_forward_block(x));
}

}  // namespace ember::nn
