#include "ember/nn/attention.h"

#include <cmath>
#include <limits>

#include "ember/nn/init.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/nn_conv.h"
#include "ember/ops/nn_dropout.h"
#include "ember/ops/nn_norm.h"
#include "ember/ops/reduce.h"
#include "ember/ops/softmax.h"

namespace ember::nn {

MultiheadAttention::MultiheadAttention(int64_t embed_dim,
                                       int64_t num_heads,
                                       MultiheadAttentionOptions options)
    : Module("MultiheadAttention"),
      embed_dim(embed_dim),
      num_heads(num_heads),
      head_dim(num_heads > 0 ? embed_dim / num_heads : 0),
      options(options) {
  EMBER_CHECK_VALUE(num_heads > 0 && embed_dim > 0 && embed_dim % num_heads == 0,
                    "[MultiheadAttention] embed_dim must be divisible by num_heads, got ",
                    embed_dim, " and ", num_heads);
  in_proj_weight = register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}));
  in_proj_bias =
      register_parameter("in_proj_bias", options.bias ? empty({3 * embed_dim}) : Tensor());
  out_proj = register_module(
      "out_proj",
      std::make_shared<Linear>(embed_dim, embed_dim, LinearOptions{.bias = options.bias}));
  reset_parameters();
}

// PyTorch's _reset_parameters: xavier_uniform_ input projection, zero biases; out_proj keeps
// Linear's weight initialisation.
void MultiheadAttention::reset_parameters() {
  init::xavier_uniform_(in_proj_weight);
  if (in_proj_bias.defined()) init::zeros_(in_proj_bias);
  if (out_proj->bias.defined()) init::zeros_(out_proj->bias);
}

namespace {

// A bool mask (true = masked out) as -inf / 0, a floating one as is.
Tensor additive(const Tensor& mask, DType dtype) {
  if (mask.dtype() != kBool) return mask.to(dtype);
  return where(mask, -std::numeric_limits<double>::infinity(), zeros({}, dtype));
}

}  // namespace

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query,
                                                      const Tensor& key,
                                                      const Tensor& value,
                                                      const Tensor& key_padding_mask,
                                                      bool need_weights,
                                                      const Tensor& attn_mask,
                                                      bool average_attn_weights) {
  EMBER_CHECK_VALUE(query.dim() == 2 || query.dim() == 3,
                    "[MultiheadAttention] expected 2-D (unbatched) or 3-D query, got ", query.dim(),
                    "-D");
  EMBER_CHECK_VALUE(key.dim() == query.dim() && value.dim() == query.dim(),
                    "[MultiheadAttention] query, key and value must have the same number of dims");
  EMBER_CHECK_VALUE(query.size(-1) == embed_dim, "[MultiheadAttention] expected embed_dim ",
                    embed_dim, ", got query of size ", query.size(-1));
  // Work batch-first: [N, L, E].
  const bool unbatched = query.dim() == 2;
  auto batched = [&](const Tensor& t) {
    if (unbatched) return t.unsqueeze(0);
    return options.batch_first ? t : t.transpose(0, 1);
  };
  const Tensor q_in = batched(query), k_in = batched(key), v_in = batched(value);
  const int64_t n = q_in.size(0), l = q_in.size(1), s = k_in.size(1);
  const int64_t e = embed_dim, h = num_heads, d = head_dim;

  auto project = [&](const Tensor& x, int64_t i) {
    const Tensor w = in_proj_weight.narrow(0, i * e, e);
    const Tensor b = in_proj_bias.defined() ? in_proj_bias.narrow(0, i * e, e) : Tensor();
    return linear(x, w, b).view({n, x.size(1), h, d}).transpose(1, 2);  // [N, H, *, D]
  };
  const Tensor q = project(q_in, 0), k = project(k_in, 1), v = project(v_in, 2);

  Tensor scores = q.matmul(k.transpose(-2, -1)) / std::sqrt(double(d));  // [N, H, L, S]
  if (attn_mask.defined()) {
    const Tensor m = additive(attn_mask, scores.dtype());
    EMBER_CHECK_VALUE(m.dim() == 2 || m.dim() == 3,
                      "[MultiheadAttention] attn_mask must be 2-D or 3-D, got ", m.dim(), "-D");
    scores = scores + (m.dim() == 2 ? m : m.view({n, h, l, s}));
  }
  if (key_padding_mask.defined()) {
    const Tensor m = additive(key_padding_mask, scores.dtype());
    scores = scores + m.view({n, 1, 1, s});
  }
  Tensor weights = softmax(scores, -1);
  if (options.dropout > 0) weights = dropout(weights, options.dropout, training_);
  Tensor out = weights.matmul(v).transpose(1, 2).reshape({n, l, e});
  out = out_proj->forward(out);
  if (unbatched) {
    out = out.squeeze(0);
  } else if (!options.batch_first) {
    out = out.transpose(0, 1);
  }
  if (!need_weights) return {out, Tensor()};
  if (average_attn_weights) weights = weights.mean({1});
  return {out, unbatched ? weights.squeeze(0) : weights};
}

}  // namespace ember::nn
