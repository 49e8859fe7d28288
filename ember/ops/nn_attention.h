// scaled_dot_product_attention, with torch.nn.functional's arguments and semantics: a blocked
// (flash-style) kernel, or the composite formula where it is needed (docs/design/nn_rnn.md).
#pragma once

#include <optional>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

// softmax(query @ key^T * scale + mask) @ value over query [..., L, E], key [..., S, E] and
// value [..., S, Ev] (batch dims broadcast). attn_mask: bool (true = take part) or floating
// (added), broadcastable to [..., L, S]. is_causal: query i sees keys j <= i (upper-left
// aligned). scale defaults to 1 / sqrt(E). enable_gqa: key and value may have fewer heads (dim
// -3) than query, repeated to match. A query row that sees no key gives 0. dropout_p > 0 drops
// attention weights with `generator` (the default one when null).
Tensor scaled_dot_product_attention(const Tensor& query,
                                    const Tensor& key,
                                    const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = std::nullopt,
                                    double dropout_p = 0.0,
                                    bool is_causal = false,
                                    std::optional<double> scale = std::nullopt,
                                    bool enable_gqa = false,
                                    Generator* generator = nullptr);

}  // namespace ember
