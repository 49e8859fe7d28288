// Kernel slots of the scans (ops/scan.cpp): one thread per line, in order along dim, so results
// do not depend on the thread count.
#pragma once

#include <cstdint>

#include "ember/backend/kernels_reduce.h"
#include "ember/core/tensor.h"

namespace ember {

// The running operation of a scan kernel.
enum class ScanOp : uint8_t { Sum, Prod, LogSumExp };

struct ScanKernels {
  // out = the inclusive scan of in along dim (sum, product, or log(sum(exp))); same shape and
  // dtype. Integers wrap; float32 sums and products accumulate in double, 16-bit floats in float32.
  using Scan = void (*)(ScanOp op, const Tensor& out, const Tensor& in, int64_t dim);
  // values/indices: in's shape; the running max (op Max) or min (Min) along dim and the index of
  // its last occurrence. A NaN wins and stays, with the index of the latest NaN (as PyTorch).
  using CumExtreme = void (*)(
      ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);

  Scan scan = nullptr;
  CumExtreme cum_extreme = nullptr;
};

}  // namespace ember
