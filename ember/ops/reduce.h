// Reductions. Results are deterministic: the same bits for any thread count (docs/design/ops.md).
#pragma once

#include <optional>
#include <utility>

#include "ember/core/shape.h"
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
// Integer and bool inputs multiply to int64. The gradient is right with zeros in the input (one
// zero: the product of the others; two or more: 0).
Tensor prod(const Tensor& self, std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& self,
            int64_t dim,
            bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
// Largest (smallest) element (NaN if any); the gradient is shared evenly among ties.
Tensor max(const Tensor& self);
Tensor min(const Tensor& self);
// Largest (smallest) along `dim` and the index of its first occurrence.
std::pair<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
// max / min over several dims (all when empty); the gradient is shared evenly among ties.
Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
// Index of the first max (min) along dim, or in the flattened tensor when dim is not given.
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

// Whether all (any) elements are nonzero, NaN counting as nonzero; bool results (uint8 for uint8
// input, as PyTorch). Over nothing, all is true and any is false.
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, IntArrayRef dim, bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, IntArrayRef dim, bool keepdim = false);

}  // namespace ember
