// Kernel slots of the embedding ops (ops/nn_embedding.cpp): embedding, embedding_bag and their
// gradients, max-norm renormalisation. Index tensors reaching these kernels are int64; the
// kernels check indices themselves where they only read (returning the first bad position), and
// are deterministic: accumulations run in index order on any thread count.
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

struct EmbeddingKernels {
  // out [n, D] (contiguous) = rows indices[k] of weight [R, D] (any strides, any dtype); indices
  // contiguous [n]. False, with the position of an index outside [0, R) in *bad, if there is one
  // (out is then partly written).
  using EmbeddingForward = bool (*)(const Tensor& out,
                                    const Tensor& weight,
                                    const Tensor& indices,
                                    int64_t* bad);
  // Bags: bag b is indices[starts[b]:starts[b + 1]] (starts contiguous [B + 1], checked
  // non-decreasing and within indices). out [B, D] (contiguous, weight's floating dtype) = the
  // sum (mode 0, each row times per_sample_weights[k] when defined), mean (1) or max (2) of the
  // rows, skipping indices equal to padding_idx (-1: none); bag_size [B] int64 = the rows counted;
  // max_indices [B, D] int64 (mode 2 only, else undefined) = the row each max came from, -1 for
  // an empty bag, whose output is 0. Returns false with a bad index position as EmbeddingForward.
  using EmbeddingBagForward = bool (*)(const Tensor& out,
                                       const Tensor& bag_size,
                                       const Tensor& max_indices,
                                       const Tensor& weight,
                                       const Tensor& indices,
                                       const Tensor& starts,
                                       const Tensor& per_sample_weights,
                                       int64_t mode,
                                       int64_t padding_idx,
                                       int64_t* bad);
  // grad_weight [R, D] (contiguous; the kernel zero-fills it) = the sum over indices k (in index
  // order, so the same bits on any thread count) of grad[bag(k)] * s_k into row indices[k], where
  // bag(k) = k when starts is undefined (embedding), else the bag holding k; s_k is
  // per_sample_weights[k] (when defined) / bag_size[bag(k)] (when defined: mean mode) /
  // count(indices[k]) (scale_grad_by_freq); rows equal to padding_idx get nothing. grad is
  // contiguous [B or n, D] of grad_weight's dtype.
  using EmbeddingBackward = void (*)(const Tensor& grad_weight,
                                     const Tensor& grad,
                                     const Tensor& indices,
                                     const Tensor& starts,
                                     const Tensor& per_sample_weights,
                                     const Tensor& bag_size,
                                     int64_t padding_idx,
                                     bool scale_grad_by_freq);
  // Max mode: grad_weight [R, D] (zero-filled here) gets grad[b, d] at row max_indices[b, d]
  // (skipping -1), in bag order.
  using EmbeddingBagMaxBackward = void (*)(const Tensor& grad_weight,
                                           const Tensor& grad,
                                           const Tensor& max_indices);
  // In place: each row r of `rows` (distinct, in range) whose norm_type-norm exceeds max_norm is
  // scaled by max_norm / (norm + 1e-7).
  using EmbeddingRenorm = void (*)(const Tensor& weight,
                                   const Tensor& rows,
                                   double max_norm,
                                   double norm_type);

  EmbeddingForward embedding_forward = nullptr;
  EmbeddingBagForward embedding_bag_forward = nullptr;
  EmbeddingBackward embedding_backward = nullptr;
  EmbeddingBagMaxBackward embedding_bag_max_backward = nullptr;
  EmbeddingRenorm embedding_renorm = nullptr;
};

}  // namespace ember
