// Matrix products (float32 through oneDNN, float64 through OpenBLAS).
#pragma once

#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// [n, k] @ [k, m].
Tensor mm(const Tensor& a, const Tensor& b);
// [B, n, k] @ [B, k, m].
Tensor bmm(const Tensor& a, const Tensor& b);
// All of torch.matmul's cases: dot (1-d, 1-d), matrix-vector, vector-matrix, matrix-matrix and
// batched products with broadcast batch dims.
Tensor matmul(const Tensor& a, const Tensor& b);

// Composites of the products above (their backward is their parts'). beta * input + alpha *
// product, where input broadcasts to the product's shape; beta == 0 ignores input's values (nan
// and inf included), as in PyTorch.
Tensor addmm(const Tensor& input,
             const Tensor& mat1,
             const Tensor& mat2,
             const Scalar& beta = 1,
             const Scalar& alpha = 1);
// beta * input + alpha * sum_b batch1[b] @ batch2[b].
Tensor addbmm(const Tensor& input,
              const Tensor& batch1,
              const Tensor& batch2,
              const Scalar& beta = 1,
              const Scalar& alpha = 1);
// beta * input + alpha * bmm(batch1, batch2).
Tensor baddbmm(const Tensor& input,
               const Tensor& batch1,
               const Tensor& batch2,
               const Scalar& beta = 1,
               const Scalar& alpha = 1);
// beta * input + alpha * mat @ vec.
Tensor addmv(const Tensor& input,
             const Tensor& mat,
             const Tensor& vec,
             const Scalar& beta = 1,
             const Scalar& alpha = 1);
// Inner product of two 1-d tensors of the same dtype and length (0-d result).
Tensor dot(const Tensor& a, const Tensor& b);
// dot with the first operand conjugated: for real dtypes, dot.
Tensor vdot(const Tensor& a, const Tensor& b);
// [n, m] @ [m].
Tensor mv(const Tensor& mat, const Tensor& vec);
// a[i] * b[j] for 1-d a and b (torch.ger is the same op).
Tensor outer(const Tensor& a, const Tensor& b);
// Einstein summation: "ij,jk->ik", with "..." for broadcast dims and the implicit output (the
// labels seen once, in ASCII order) when there is no "->". A label repeated in one operand
// takes its diagonal.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands);
// Contracts the last `dims` dims of a with the first `dims` of b.
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
// Contracts a's dims_a[i] with b's dims_b[i].
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
// Kronecker product: out[i * b.size + j] = a[i] * b[j] in every dim (the fewer dims padded with
// leading ones).
Tensor kron(const Tensor& a, const Tensor& b);

}  // namespace ember
