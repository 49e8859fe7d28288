// Kernel slots of the matrix factorisations and the solvers built on them (ops/linalg_factor.cpp):
// LU, Cholesky, QR, the symmetric eigendecomposition, the SVD and triangular solves.
//
// Every matrix argument is a 3-d [B, rows, cols] tensor laid out column by column (strides
// [rows * cols, 1, rows]: LAPACK's layout), float32, float64, complex64 or complex128, dense; the
// kernels work on each of the B matrices in place. Integer outputs (pivots, info) are int32 [B,
// ...] tensors, as LAPACK writes them. `info[i]` is LAPACK's status of matrix i: 0, or > 0 when the
// matrix is singular (LU: U[info-1, info-1] is 0), not positive-definite (Cholesky: the leading
// minor of order info is not), or the algorithm did not converge (eigh, svd). The ops turn it into
// errors.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct LinalgFactorKernels {
  // LU with partial pivoting: a [B, m, n] becomes L (unit diagonal, not stored) and U; pivots
  // [B, min(m, n)] gets LAPACK's 1-based row interchanges.
  using LuFactor = void (*)(const Tensor& a, const Tensor& pivots, const Tensor& info);
  // Solves A x = b (trans: A^H x = b) for b [B, n, k], overwritten by x, from lu_factor's lu and
  // pivots of A [B, n, n].
  using LuSolve = void (*)(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool trans);
  // Cholesky: a [B, n, n] becomes L (upper: U with A = U^H U); the other triangle is zeroed.
  using Cholesky = void (*)(const Tensor& a, bool upper, const Tensor& info);
  // b becomes op(A)^-1 b (left) or b op(A)^-1 (right), A [B, n, n] triangular (upper or lower,
  // unit: its diagonal taken as ones), op(A) = A or A^H (trans).
  using TriangularSolve =
      void (*)(const Tensor& a, const Tensor& b, bool upper, bool left, bool trans, bool unit);
  // Householder QR: a [B, m, n] becomes R (upper triangle) and the reflectors (below it); tau
  // [B, min(m, n)] their scales.
  using Geqrf = void (*)(const Tensor& a, const Tensor& tau);
  // The product of the k = tau.size(1) reflectors held in a [B, m, n] (m >= n >= k), overwritten
  // by its first n columns.
  using Orgqr = void (*)(const Tensor& a, const Tensor& tau);
  // Symmetric (Hermitian) eigendecomposition from a's upper or lower triangle: w [B, n] the
  // eigenvalues in ascending order, real (float32 / float64 for complex a); a becomes the
  // eigenvectors (columns) when vectors, else is destroyed.
  using Eigh =
      void (*)(const Tensor& a, const Tensor& w, bool upper, bool vectors, const Tensor& info);
  // SVD of a [B, m, n] (destroyed): s [B, k] descending and real, k = min(m, n); with vectors, u
  // [B, m, m] and vh [B, n, n] (full) or [B, m, k] and [B, k, n].
  using Svd = void (*)(const Tensor& a,
                       const Tensor& s,
                       const Tensor& u,
                       const Tensor& vh,
                       bool full,
                       bool vectors,
                       const Tensor& info);

  // General (non-symmetric) eigendecomposition of a [B, n, n] (destroyed): w [B, n] the complex
  // eigenvalues in LAPACK's order (for real a a conjugate pair adjacent, positive imaginary part
  // first); with vectors, v [B, n, n] complex in LAPACK's layout, the right eigenvectors as
  // columns, each of unit 2-norm with its largest component real.
  using Eig =
      void (*)(const Tensor& a, const Tensor& w, const Tensor& v, bool vectors, const Tensor& info);
  // Bunch-Kaufman LDL^T of a symmetric a [B, n, n] (complex: LDL^H of a Hermitian one when
  // hermitian, hetrf), read from its lower triangle (LAPACK's sytrf with uplo L): a becomes L (unit
  // diagonal, not stored) and the 1x1 / 2x2 blocks of D, its strict upper triangle zeroed; pivots
  // [B, n] LAPACK's (1-based; negative for a 2x2 block).
  using LdlFactor = void (*)(const Tensor& a,
                             const Tensor& pivots,
                             bool hermitian,
                             const Tensor& info);
  // Solves A X = b for b [B, n, k], overwritten by X, from ldl_factor's ld and pivots (sytrs,
  // hetrs when hermitian).
  using LdlSolve = void (*)(const Tensor& ld,
                            const Tensor& pivots,
                            bool hermitian,
                            const Tensor& b);

  LuFactor lu_factor = nullptr;
  LuSolve lu_solve = nullptr;
  Cholesky cholesky = nullptr;
  TriangularSolve triangular_solve = nullptr;
  Geqrf geqrf = nullptr;
  Orgqr orgqr = nullptr;
  Eigh eigh = nullptr;
  Svd svd = nullptr;
  Eig eig = nullptr;
  LdlFactor ldl_factor = nullptr;
  LdlSolve ldl_solve = nullptr;
};

}  // namespace ember
