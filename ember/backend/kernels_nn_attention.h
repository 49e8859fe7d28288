// Kernel slots of scaled_dot_product_attention (ops/nn_attention.cpp): a blocked (flash-style)
// forward that also returns the log-sum-exp of each query row, and its backward. Tensors have the
// op's compute dtype (float32 or float64).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct AttentionKernels {
  // Attention over [B, H, L, E] queries, [B, H, S, E] keys and [B, H, S, Ev] values (any strides
  // in B and H, 0 included; unit stride in the last dim). mask: undefined, bool (true = take part)
  // or the compute dtype (added to the scores), [B, H, L, S] with any strides. causal: key j
  // takes part for query i only if j <= i. out [B, H, L, Ev] and lse [B, H, L] are contiguous;
  // lse is the log-sum-exp of each row's scaled, masked scores, +inf for a row without any key
  // (its output is 0, as PyTorch's).
  using AttentionForward = void (*)(const Tensor& out,
                                    const Tensor& lse,
                                    const Tensor& q,
                                    const Tensor& k,
                                    const Tensor& v,
                                    const Tensor& mask,
                                    bool causal,
                                    double scale);
  // The gradients dq, dk, dv (contiguous, the shapes of q, k, v) from grad_out [B, H, L, Ev]
  // (unit stride in its last dim) and the forward's inputs, out and lse.
  using AttentionBackward = void (*)(const Tensor& dq,
                                     const Tensor& dk,
                                     const Tensor& dv,
                                     const Tensor& grad_out,
                                     const Tensor& q,
                                     const Tensor& k,
                                     const Tensor& v,
                                     const Tensor& out,
                                     const Tensor& lse,
                                     const Tensor& mask,
                                     bool causal,
                                     double scale);

  AttentionForward attention_forward = nullptr;
  AttentionBackward attention_backward = nullptr;
};

}  // namespace ember
