// Kernel slots of sorting and selection (ops/sort.cpp). Lines are the elements along `dim` at one
// position of the other dims (a 0-d tensor is one line of one element). Elements are ordered by
// value, NaN above every number, and equal values by position: every result is that of a stable
// sort, so it is deterministic. Indices are int64 positions along dim in the input.
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

// Which element a selection kernel picks from each line (see SortKernels::Select).
enum class SelectOp : uint8_t { Kth, Median, NanMedian };

struct SortKernels {
  // values/indices: in's shape; each line sorted, ascending or descending (NaN first). `stable`
  // only asks for the stable order, which every call gets.
  using Sort = void (*)(const Tensor& values,
                        const Tensor& indices,
                        const Tensor& in,
                        int64_t dim,
                        bool descending,
                        bool stable);
  // values/indices: in's shape with k (0 <= k <= size, checked) at dim: the first k elements of
  // the descending (largest) or ascending order; in that order when `sorted`, otherwise in an
  // unspecified but deterministic order.
  using TopK = void (*)(const Tensor& values,
                        const Tensor& indices,
                        const Tensor& in,
                        int64_t dim,
                        int64_t k,
                        bool largest,
                        bool sorted);
  // values/indices: in's shape with size 1 at dim (size > 0, checked). Kth: the element at
  // position k (0-based, checked) of the ascending order. Median: the one at (size - 1) / 2, or
  // the first NaN when the line has one. NanMedian: the lower median of the line's non-NaN
  // elements, or the first NaN when all are NaN.
  using Select = void (*)(SelectOp op,
                          const Tensor& values,
                          const Tensor& indices,
                          const Tensor& in,
                          int64_t dim,
                          int64_t k);

  Sort sort = nullptr;
  TopK topk = nullptr;
  Select select = nullptr;
};

}  // namespace ember
