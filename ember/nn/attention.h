// MultiheadAttention (torch.nn.MultiheadAttention) for equal query / key / value sizes, from
// ember's linear, matmul and softmax ops. Parameter names are PyTorch's: in_proj_weight,
// in_proj_bias, out_proj.weight, out_proj.bias.
#pragma once

#include <memory>
#include <utility>

#include "ember/nn/linear.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct MultiheadAttentionOptions {
  double dropout = 0.0;  // on the attention weights, in training mode
  bool bias = true;
  bool batch_first = false;
};

class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, MultiheadAttentionOptions options = {});

  // query [L, N, E], key and value [S, N, E] ([N, *, E] when batch_first; unbatched [*, E]).
  // key_padding_mask [N, S] and attn_mask [L, S] or [N * num_heads, L, S]: bool (true = masked
  // out, PyTorch's MultiheadAttention convention) or floating (added to the scores). Returns
  // (output [L, N, E], weights [N, L, S] averaged over heads, or [N, num_heads, L, S]; undefined
  // when need_weights is false).
  std::pair<Tensor, Tensor> forward(const Tensor& query,
                                    const Tensor& key,
                                    const Tensor& value,
                                    const Tensor& key_padding_mask = {},
                                    bool need_weights = true,
                                    const Tensor& attn_mask = {},
                                    bool average_attn_weights = true);
  void reset_parameters();

  int64_t embed_dim, num_heads, head_dim;
  MultiheadAttentionOptions options;
  Tensor in_proj_weight, in_proj_bias;
  std::shared_ptr<Linear> out_proj;
};

}  // namespace ember::nn
