// Statistics and norms built from the reductions: nansum, count_nonzero, var, std (and with the
// mean), logsumexp, vector and matrix norms. No kernels of their own.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "ember/core/shape.h"
#include "ember/core/tensor.h"

namespace ember {

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

}  // namespace ember
