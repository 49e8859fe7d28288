// Lines of a tensor along one dim: every position of the other dims, enumerated row-major, with
// the element offset of each line's start in several tensors. The indexing and sorting kernels
// give whole lines to threads, which keeps their results independent of the thread count.
#pragma once

#include <vector>

#include "ember/core/tensor.h"

namespace ember::cpu {

struct Lines {
  DimVector sizes;
  std::vector<DimVector> strides;  // per tensor, the strides of the dims in `sizes`
  int64_t count = 1;

  Lines(IntArrayRef shape, int64_t dim, std::initializer_list<const Tensor*> ts)
      : strides(ts.size()) {
    for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
      if (d == dim) continue;
      sizes.push_back(shape[d]);
      count *= shape[d];
      size_t k = 0;
      for (const Tensor* t : ts) strides[k++].push_back(t->dim() ? t->strides()[d] : 0);
    }
  }
  // The offsets of line l in each tensor.
  void offsets(int64_t l, int64_t* out) const {
    for (size_t k = 0; k < strides.size(); ++k) out[k] = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      const int64_t c = l % sizes[d];
      l /= sizes[d];
      for (size_t k = 0; k < strides.size(); ++k) out[k] += c * strides[k][d];
    }
  }
};

}  // namespace ember::cpu
