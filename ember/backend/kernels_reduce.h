// Kernel slots of the reductions (ops/reduce.cpp). Note [Deterministic reductions]: the same
// bits on any thread count.
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

enum class ReduceOp : uint8_t { Sum, Max, Min, Prod };

struct ReduceKernels {
  // out has in's rank with size 1 in every dim marked in `dims` (bit d = dim d); out may have a
  // wider dtype than in (int64 sums and products of integers), and receives the reduction of in.
  using Reduce = void (*)(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t dims);
  // values/indices: in's shape with size 1 at `dim`; first index of the max (min); NaN wins.
  using ArgReduce = void (*)(
      ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);

  Reduce reduce = nullptr;
  ArgReduce arg_reduce = nullptr;
};

}  // namespace ember
