// Reductions. Results are deterministic: the same bits for any thread count (docs/design/ops.md).
#pragma once

#include <optional>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

// Integer and bool inputs sum to int64, as in PyTorch; `dtype` converts the input first.
Tensor sum(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor sum(const Tensor& self,
           IntArrayRef dim,
           bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
// Floating inputs only (or an explicit floating `dtype`).
Tensor mean(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& self,
            IntArrayRef dim,
            bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
// Largest element (NaN if any); the gradient is shared evenly among ties.
Tensor max(const Tensor& self);
// Largest along `dim` and the index of its first occurrence.
std::pair<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);

}  // namespace ember
