// Kernel slots of the indexing ops (ops/indexing.cpp). Index tensors are int64 and already checked
// to be in range (no negatives); kernels that write through an index are race-free and
// deterministic: duplicate indices are applied in index order.
#pragma once

#include <cstdint>

#include "ember/backend/kernels_elementwise.h"
#include "ember/core/tensor.h"

namespace ember {

// How scatter-like kernels combine a value with what is already there.
enum class ScatterOp : uint8_t { Assign, Add, Mul, Max, Min };

struct IndexingKernels {
  // out = in with dim `dim` replaced by index (1-d): out.select(dim, i) = in.select(dim, index[i]).
  using IndexSelect = void (*)(const Tensor& out,
                               const Tensor& in,
                               int64_t dim,
                               const Tensor& index);
  // out[p] = in[p with coordinate `dim` replaced by index[p]]; out has index's shape. The one
  // indexing kernel that checks its indices itself (it only reads, so it can stop before a bad
  // one): returns false, with an index outside [0, in.size(dim)) in *bad (out is then partly
  // written), or true when all are in range.
  using Gather =
      bool (*)(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index, int64_t* bad);
  // self[p with coordinate `dim` replaced by index[p]] op= src[p], for p over index's shape; src
  // is a tensor (at least index's size in every dim) or a scalar.
  using Scatter = void (*)(
      ScatterOp op, const Tensor& self, int64_t dim, const Tensor& index, const Operand& src);
  // self.select(dim, index[i]) op= source.select(dim, i) for each i of the 1-d index; source a
  // tensor or a scalar.
  using IndexReduce = void (*)(
      ScatterOp op, const Tensor& self, int64_t dim, const Tensor& index, const Operand& source);
  // lo / hi = the smallest and largest value of a non-empty int64 tensor (index bounds checks).
  using IndexBounds = void (*)(const Tensor& index, int64_t* lo, int64_t* hi);
  // out [n, in.dim()] = the coordinates of in's nonzero elements in row-major order; n is known.
  using Nonzero = void (*)(const Tensor& out, const Tensor& in);
  // out = for each value, its insertion point in the sorted last dim of `sorted` (1-d, or with
  // values' leading dims): the first position with sorted >= v (> v when right).
  using SearchSorted = void (*)(const Tensor& out,
                                const Tensor& sorted,
                                const Tensor& values,
                                bool right);

  IndexSelect index_select = nullptr;
  Gather gather = nullptr;
  Scatter scatter = nullptr;
  IndexReduce index_reduce = nullptr;
  Nonzero nonzero = nullptr;
  IndexBounds index_bounds = nullptr;
  SearchSorted searchsorted = nullptr;
};

}  // namespace ember
