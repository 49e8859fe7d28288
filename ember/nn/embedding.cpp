#include "ember/nn/embedding.h"

#include "ember/autograd/grad_mode.h"
#include "ember/nn/init.h"
#include "ember/ops/creation.h"
#include "ember/ops/nn_embedding.h"
#include "ember/ops/nn_loss.h"

namespace ember::nn {

// A padding_idx in [-num, num) made non-negative (PyTorch stores it that way).
static std::optional<int64_t> wrap_padding(std::optional<int64_t> idx,
                                           int64_t num,
                                           const char* layer) {
  if (!idx) return idx;
  EMBER_CHECK_VALUE(*idx >= -num && *idx < num, "[", layer,
                    "] padding_idx must be within num_embeddings, got ", *idx, " for ", num);
  return *idx < 0 ? *idx + num : *idx;
}

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim, EmbeddingOptions o)
    : Module("Embedding"),
      num_embeddings(num_embeddings),
      embedding_dim(embedding_dim),
      options(o) {
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !o.sparse,
                   "[Embedding] sparse=true is not supported: ember has no sparse tensors");
  options.padding_idx = wrap_padding(o.padding_idx, num_embeddings, "Embedding");
  weight = register_parameter("weight", empty({num_embeddings, embedding_dim}));
  reset_parameters();
}

void Embedding::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx).zero_();
  }
}

Tensor Embedding::forward(const Tensor& input) {
  return embedding(input, weight, options.padding_idx, options.max_norm, options.norm_type,
                   options.scale_grad_by_freq, options.sparse);
}

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (options.padding_idx) s += ", padding_idx=" + std::to_string(*options.padding_idx);
  return s;
}

EmbeddingBag::EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim, EmbeddingBagOptions o)
    : Module("EmbeddingBag"),
      num_embeddings(num_embeddings),
      embedding_dim(embedding_dim),
      options(o) {
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !o.sparse,
                   "[EmbeddingBag] sparse=true is not supported: ember has no sparse tensors");
  EMBER_CHECK_VALUE(o.mode == "sum" || o.mode == "mean" || o.mode == "max",
                    "[EmbeddingBag] mode must be 'sum', 'mean' or 'max', got '", o.mode, "'");
  options.padding_idx = wrap_padding(o.padding_idx, num_embeddings, "EmbeddingBag");
  weight = register_parameter("weight", empty({num_embeddings, embedding_dim}));
  init::normal_(weight);
  if (options.padding_idx) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx).zero_();
  }
}

Tensor EmbeddingBag::forward(const Tensor& input,
                             const Tensor& offsets,
                             const Tensor& per_sample_weights) {
  return embedding_bag(input, weight, offsets, options.max_norm, options.norm_type,
                       options.scale_grad_by_freq, options.mode, options.sparse, per_sample_weights,
                       options.include_last_offset, options.padding_idx);
}

std::string EmbeddingBag::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim) +
                  ", mode='" + options.mode + "'";
  if (options.padding_idx) s += ", padding_idx=" + std::to_string(*options.padding_idx);
  return s;
}

}  // namespace ember::nn
