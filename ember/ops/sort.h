// Sorting and selection along one dim: sort, argsort, topk, kthvalue, median, nanmedian, unique,
// unique_consecutive.
//
// Order: NaN is larger than every number (last ascending, first descending); equal values keep
// their input order, so every sort is stable and every result deterministic. Indices are int64.
// Gradients of values flow back to the input positions their indices name.
#pragma once

#include <optional>
#include <tuple>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

// (values, indices) of self sorted along dim. `stable` is accepted for PyTorch's signature:
// every sort is stable.
std::pair<Tensor, Tensor> sort(const Tensor& self,
                               int64_t dim = -1,
                               bool descending = false,
                               bool stable = false);
// The indices of sort(self, dim, descending, stable).
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false, bool stable = false);
// The k largest (smallest) elements along dim and their indices, in sorted order when `sorted`;
// 0 <= k <= size of dim ("selected index k out of range" otherwise).
std::pair<Tensor, Tensor> topk(
    const Tensor& self, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
// The k-th smallest (1-based) element along dim and its index.
std::pair<Tensor, Tensor> kthvalue(const Tensor& self,
                                   int64_t k,
                                   int64_t dim = -1,
                                   bool keepdim = false);
// The lower median of all elements (0-d; NaN if any is NaN, or for an empty floating tensor).
Tensor median(const Tensor& self);
// The lower median along dim and its index (the first NaN's where a line has NaN).
std::pair<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
// As median, ignoring NaN (NaN only where everything is NaN).
Tensor nanmedian(const Tensor& self);
std::pair<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);

// The distinct elements of self, sorted (`sorted` is accepted for PyTorch's signature), with the
// index of each input element in them (the inverse, self's shape) and how often each occurs
// (counts); inverse and counts are undefined unless asked for. NaNs are all distinct, as in
// PyTorch. `dim` is not supported (NotImplementedError).
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self,
                                          bool sorted = true,
                                          bool return_inverse = false,
                                          bool return_counts = false,
                                          std::optional<int64_t> dim = std::nullopt);
// As unique, but merging only runs of equal consecutive elements of the flattened tensor.
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self,
                                                      bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

}  // namespace ember
