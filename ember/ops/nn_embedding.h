// Embedding ops: embedding, embedding_bag and embedding_renorm_, with torch.nn.functional's names,
// arguments and semantics (docs/design/nn_loss.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// weight[input]: input int64 or int32 of any shape, weight (num_embeddings, dim); the result is
// input.shape + (dim). The gradient of weight is dense, accumulated in index order (the same bits
// on any thread count); the padding_idx row gets none (negative padding_idx counts from the end);
// scale_grad_by_freq divides each row's gradient by its count in input. With max_norm, the rows
// that input uses are first renormalised in place to norm <= max_norm (no gradient recorded).
// sparse=true raises NotImplementedError: ember has no sparse tensors.
Tensor embedding(const Tensor& input,
                 const Tensor& weight,
                 std::optional<int64_t> padding_idx = std::nullopt,
                 std::optional<double> max_norm = std::nullopt,
                 double norm_type = 2.0,
                 bool scale_grad_by_freq = false,
                 bool sparse = false);
// In place, without autograd: rows of weight used by `input` whose norm_type-norm exceeds max_norm
// are scaled to max_norm / (norm + 1e-7) of themselves (torch.embedding_renorm_).
Tensor& embedding_renorm_(Tensor& weight, const Tensor& input, double max_norm, double norm_type);
// Sums, means or maxima of bags of embedding rows: input 2-d (B, L) (a bag per row) or 1-d with
// offsets (B) (bag b is input[offsets[b]:offsets[b + 1]], the last one runs to the end; with
// include_last_offset, offsets has B + 1 entries and the last one ends the last bag). mode "sum"
// (with optional per_sample_weights of input's shape), "mean" or "max"; indices equal to
// padding_idx are skipped (a mean divides by the others' count); empty bags give zeros. Returns
// the (B, dim) result (F.embedding_bag).
Tensor embedding_bag(const Tensor& input,
                     const Tensor& weight,
                     const Tensor& offsets = {},
                     std::optional<double> max_norm = std::nullopt,
                     double norm_type = 2.0,
                     bool scale_grad_by_freq = false,
                     std::string_view mode = "mean",
                     bool sparse = false,
                     const Tensor& per_sample_weights = {},
                     bool include_last_offset = false,
                     std::optional<int64_t> padding_idx = std::nullopt);

}  // namespace ember
