// Scans along one dim: running sums, products, log-sum-exps, maxima and minima. Each line is
// scanned in order by one thread, so results do not depend on the thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

// Running sum (product) along dim; integer and bool inputs accumulate in int64, as PyTorch;
// `dtype` converts the input first. cumprod's gradient is exact with zeros in the input.
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
// Running max (min) along dim and the index of its last occurrence; a NaN wins and stays, with
// the index of the latest NaN, as PyTorch.
std::pair<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::pair<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
// log(cumsum(exp(x))) along dim without overflow; floating only.
Tensor logcumsumexp(const Tensor& self, int64_t dim);

}  // namespace ember
