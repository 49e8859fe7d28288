// Kernel slots of the matrix products (ops/linalg.cpp): every product (mm, matmul, addmm, einsum,
// ...) reaches the one batched kernel.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct LinalgKernels {
  // out[i] = a[i] @ b[i] for 3-d [B, n, k] x [B, k, m]; a and b may be transposed or broadcast
  // (batch stride 0) views; out is contiguous.
  using Bmm = void (*)(const Tensor& out, const Tensor& a, const Tensor& b);

  Bmm bmm = nullptr;
};

}  // namespace ember
