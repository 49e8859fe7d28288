// Embedding layers: Embedding (a lookup table) and EmbeddingBag (sums / means / maxima of bags
// of rows), over ember::embedding and ember::embedding_bag. Weights start N(0, 1), the
// padding_idx row zero, as PyTorch's.
#pragma once

#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

struct EmbeddingOptions {
  std::optional<int64_t> padding_idx = std::nullopt;  // negative counts from the end
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  bool sparse = false;  // true is refused: ember has no sparse tensors
};

class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, EmbeddingOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t num_embeddings, embedding_dim;
  EmbeddingOptions options;
  Tensor weight;
};

struct EmbeddingBagOptions {
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";  // "sum", "mean" or "max"
  bool sparse = false;
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx = std::nullopt;
};

class EmbeddingBag : public Module {
 public:
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim, EmbeddingBagOptions options = {});
  Tensor forward(const Tensor& input,
                 const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  std::string extra_repr() const override;

  int64_t num_embeddings, embedding_dim;
  EmbeddingBagOptions options;
  Tensor weight;
};

}  // namespace ember::nn
