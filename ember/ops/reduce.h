// Reductions. Results are deterministic: the same bits for any thread count (docs/design/ops.md).
#pragma once

#include <optional>
#include <string_view>
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

// ---- built from the above (ops/statistics.cpp) ----
// Sum with NaN counted as zero.
Tensor nansum(const Tensor& self,
              IntArrayRef dim = {},
              bool keepdim = false,
              std::optional<DType> dtype = std::nullopt);
// Number of nonzero elements over dim (all when empty), as int64.
Tensor count_nonzero(const Tensor& self, IntArrayRef dim = {});
// Variance over dim (all when not given) with sum of squares / (N - correction); floating only.
Tensor var(const Tensor& self,
           std::optional<DimVector> dim = std::nullopt,
           double correction = 1,
           bool keepdim = false);
Tensor std(const Tensor& self,
           std::optional<DimVector> dim = std::nullopt,
           double correction = 1,
           bool keepdim = false);
std::pair<Tensor, Tensor> var_mean(const Tensor& self,
                                   std::optional<DimVector> dim = std::nullopt,
                                   double correction = 1,
                                   bool keepdim = false);
std::pair<Tensor, Tensor> std_mean(const Tensor& self,
                                   std::optional<DimVector> dim = std::nullopt,
                                   double correction = 1,
                                   bool keepdim = false);
// log(sum(exp(x))) over dim, without overflow; integers compute in the default float dtype.
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false);
// (sum |x|^ord)^(1/ord) over dim (all when empty); ord may be inf, -inf or 0 (the count of
// nonzeros). The gradient at a zero norm is 0, as PyTorch's.
Tensor linalg_vector_norm(const Tensor& self,
                          double ord = 2,
                          IntArrayRef dim = {},
                          bool keepdim = false,
                          std::optional<DType> dtype = std::nullopt);
// Norms of the matrices in the two dims `dim`: "fro", or ord inf, -inf, 1, -1 (max / min of
// the absolute row or column sums). "nuc", 2 and -2 need an SVD, which ember does not have yet.
Tensor linalg_matrix_norm(const Tensor& self,
                          std::string_view ord = "fro",
                          IntArrayRef dim = {-2, -1},
                          bool keepdim = false);
Tensor linalg_matrix_norm(const Tensor& self,
                          double ord,
                          IntArrayRef dim = {-2, -1},
                          bool keepdim = false);

// ---- softmax (ops/softmax.cpp) ----
// exp(x) / sum(exp(x)) along dim, computed stably; `dtype` converts the input first.
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);

// Whether all (any) elements are nonzero, NaN counting as nonzero; bool results (uint8 for uint8
// input, as PyTorch). Over nothing, all is true and any is false.
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, IntArrayRef dim, bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, IntArrayRef dim, bool keepdim = false);

}  // namespace ember
