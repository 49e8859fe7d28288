// Matrix products (float32 through oneDNN, float64 through OpenBLAS).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

// [n, k] @ [k, m].
Tensor mm(const Tensor& a, const Tensor& b);
// [B, n, k] @ [B, k, m].
Tensor bmm(const Tensor& a, const Tensor& b);
// All of torch.matmul's cases: dot (1-d, 1-d), matrix-vector, vector-matrix, matrix-matrix and
// batched products with broadcast batch dims.
Tensor matmul(const Tensor& a, const Tensor& b);

}  // namespace ember
