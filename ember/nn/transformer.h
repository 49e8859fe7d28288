// TransformerEncoderLayer (torch.nn.TransformerEncoderLayer): self-attention and a feed-forward
// block, each with a residual connection and LayerNorm (after, or before with norm_first).
// Children and their names are PyTorch's, so state dicts load across the two.
#pragma once

#include <memory>
#include <string>

#include "ember/nn/attention.h"
#include "ember/nn/dropout.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/normalization.h"

namespace ember::nn {

struct TransformerEncoderLayerOptions {
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
  bool bias = true;
};

class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(int64_t d_model,
                          int64_t nhead,
                          TransformerEncoderLayerOptions options = {});
  // src [S, N, E] ([N, S, E] when batch_first); masks as MultiheadAttention's.
  Tensor forward(const Tensor& src,
                 const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});

  TransformerEncoderLayerOptions options;
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2;
  std::shared_ptr<LayerNorm> norm1, norm2;

 private:
  Tensor self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& padding);
  Tensor feed_forward_block(const Tensor& x);
};

}  // namespace ember::nn
