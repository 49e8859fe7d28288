// Matrix factorisations and what is built on them (torch.linalg's names): LU, Cholesky, QR, the
// symmetric eigendecomposition, the SVD, triangular and general solves, inverse, determinant.
//
// Every op takes batches: A is [*, m, n], the batch dims broadcast between A and B where both
// appear. float32, float64, complex64 and complex128; for complex A the transposes of the real
// forms are conjugate transposes (A = L L^H, Hermitian eigh, A = U S V^H), and eigenvalues,
// singular values and log|det| are real (float32 / float64). Results are
// laid out column by column per matrix, as LAPACK writes them (PyTorch's results are too), so
// their strides are those of a transposed contiguous tensor. The ops record gradients as PyTorch
// defines them (docs/design/linalg.md has the formulas and their conventions). A singular or
// non-positive-definite input raises a LinAlg error (ember.linalg.LinAlgError in Python, a
// RuntimeError) naming the op and, for batches, the batch element; the *_ex forms return LAPACK's
// info instead.
#pragma once

#include <string_view>
#include <tuple>
#include <utility>

#include "ember/core/tensor.h"

namespace ember {

// LU with partial pivoting: (LU, pivots, info). LU packs L (unit diagonal, below it) and U;
// pivots [*, min(m, n)] are int32, 1-based row interchanges (LAPACK's); info [*] is int32, > 0
// where U has a zero diagonal element. check_errors raises then, as linalg_lu_factor does.
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A,
                                                       bool pivot = true,
                                                       bool check_errors = false);
std::pair<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true);
// (P, L, U) with A = P L U: P [*, m, m] a permutation, L [*, m, k] unit lower, U [*, k, n].
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true);
// (P, L, U) from lu_factor's output; unpack_data / unpack_pivots false leave L, U / P empty.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU,
                                             const Tensor& pivots,
                                             bool unpack_data = true,
                                             bool unpack_pivots = true);
// X with A X = B (left) or X A = B, A given by lu_factor's (LU, pivots); adjoint solves with A^T.
Tensor linalg_lu_solve(const Tensor& LU,
                       const Tensor& pivots,
                       const Tensor& B,
                       bool left = true,
                       bool adjoint = false);

// X with A X = B (left) or X A = B. B is a batch of vectors [*, n] when it has one dim less than
// A (or is 1-d), else of matrices [*, n, k].
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
// (X, info) of linalg_solve, without the error for a singular A unless check_errors.
std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& A,
                                          const Tensor& B,
                                          bool left = true,
                                          bool check_errors = false);
Tensor linalg_inv(const Tensor& A);
std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);
// det(A): 0 for a singular A, whose gradient (the adjugate) comes from the SVD.
Tensor linalg_det(const Tensor& A);
// (sign, log|det|): sign 0 and log -inf for a singular A.
std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A);

// L with A = L L^T (upper: U with A = U^T U) from A's lower (upper) triangle; A symmetric
// positive-definite. The _ex form returns (L, info), info > 0 where A is not positive-definite.
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A,
                                             bool upper = false,
                                             bool check_errors = false);
// X with A X = B (left) or X A = B for triangular A (upper or lower; unitriangular: ones taken on
// the diagonal). A singular A gives inf / nan, as in PyTorch (no error).
Tensor linalg_solve_triangular(
    const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);

// (Q, R): mode "reduced" (Q [*, m, k], R [*, k, n]), "complete" (Q [*, m, m], R [*, m, n]) or
// "r" (R alone; Q is empty).
std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced");
// (reflectors, tau): LAPACK's geqrf, torch.geqrf. Not differentiable, as in PyTorch.
std::pair<Tensor, Tensor> geqrf(const Tensor& A);
// The first n columns of the product of the Householder reflectors in A [*, m, n] with scales
// tau [*, k] (k <= n <= m): LAPACK's orgqr, torch.linalg.householder_product.
Tensor linalg_householder_product(const Tensor& A, const Tensor& tau);

// (eigenvalues ascending, eigenvectors as columns) of symmetric A, read from its lower ("L") or
// upper ("U") triangle.
std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO = "L");
Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO = "L");
// (eigenvalues, eigenvectors as columns) of a general square A, both complex (complex64 for
// float32 and complex64): LAPACK's geev, each vector of unit norm with its largest component real.
// PyTorch's gradient, which needs distinct eigenvalues and a loss that does not depend on the
// vectors' phases.
std::pair<Tensor, Tensor> linalg_eig(const Tensor& A);
// Bunch-Kaufman A = L D L^T of symmetric A (its lower triangle read): the compact LD (L below
// the diagonal, D's blocks on and next to it) and LAPACK's pivots, as torch.linalg.ldl_factor.
// Complex A is complex symmetric (sytrf), or Hermitian with `hermitian` (A = L D L^H, hetrf);
// `hermitian` is the same for real A. The _ex form returns LAPACK's info instead of raising for
// a singular D unless check_errors. Not differentiable (nor in PyTorch).
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A,
                                                        bool hermitian = false,
                                                        bool check_errors = false);
std::pair<Tensor, Tensor> linalg_ldl_factor(const Tensor& A, bool hermitian = false);
// X with A X = B from ldl_factor's LD and pivots (batches broadcast).
Tensor linalg_ldl_solve(const Tensor& LD,
                        const Tensor& pivots,
                        const Tensor& B,
                        bool hermitian = false);
Tensor linalg_eigvals(const Tensor& A);

// (U, S, Vh) with A = U diag(S) Vh, S descending; full_matrices: U [*, m, m] and Vh [*, n, n],
// else [*, m, k] and [*, k, n].
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true);
Tensor linalg_svdvals(const Tensor& A);

}  // namespace ember
