// The factorisations from C++ on hand-checked values: solve, inverse and determinant of a 2x2,
// Cholesky of a known SPD matrix, QR / SVD / eigh reconstructing their input, a singular matrix's
// LinAlg error, det's gradient (the transposed adjugate) through backward, and complex input
// (determinant, Hermitian eigenvalues, Cholesky).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using ember_test::expect_near;
using D = std::vector<double>;

ember::TensorOptions f64() { return ember::TensorOptions(ember::kFloat64); }

TEST(LinalgFactor, SolveInverseDeterminantOf2x2) {
  // A = [[4, 7], [2, 6]]: det 10, inverse [[0.6, -0.7], [-0.2, 0.4]].
  Tensor A = ember::tensor({{4.0, 7.0}, {2.0, 6.0}}, f64());
  expect_near(ember::linalg_det(A), {10.0});
  expect_near(ember::linalg_inv(A), {0.6, -0.7, -0.2, 0.4});
  // A x = [1, 2]: x = A^-1 b = [0.6 - 1.4, -0.2 + 0.8].
  expect_near(ember::linalg_solve(A, ember::tensor({1.0, 2.0}, f64())), {-0.8, 0.6});
  auto [sign, logabs] = ember::linalg_slogdet(-A.unsqueeze(0));
  expect_near(sign, {1.0});  // det(-A) = det(A) for 2x2
  expect_near(logabs, {std::log(10.0)});
}

TEST(LinalgFactor, CholeskyOfKnownMatrix) {
  // [[4, 2], [2, 5]] = L L^T with L = [[2, 0], [1, 2]].
  Tensor A = ember::tensor({{4.0, 2.0}, {2.0, 5.0}}, f64());
  expect_near(ember::linalg_cholesky(A), {2.0, 0.0, 1.0, 2.0});
  expect_near(ember::linalg_cholesky(A, /*upper=*/true), {2.0, 1.0, 0.0, 2.0});
}

TEST(LinalgFactor, FactorsReconstructTheirInput) {
  Tensor A =
      ember::tensor({{2.0, -1.0, 0.5}, {1.0, 3.0, -2.0}, {0.0, 1.5, 4.0}, {1.0, 1.0, 1.0}}, f64());
  const D a = A.contiguous().to_vector<double>();
  auto [Q, R] = ember::linalg_qr(A);
  expect_near(ember::matmul(Q, R), a, 1e-12);
  expect_near(ember::matmul(Q.transpose(0, 1), Q), {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-12);
  auto [U, S, Vh] = ember::linalg_svd(A, false);
  expect_near(ember::matmul(U * S.unsqueeze(0), Vh), a, 1e-12);
  Tensor sym = ember::matmul(A.transpose(0, 1), A);
  auto [w, V] = ember::linalg_eigh(sym);
  // The eigenvalues of A^T A are the squared singular values (ascending vs descending).
  const D s = S.to_vector<double>();
  expect_near(w, {s[2] * s[2], s[1] * s[1], s[0] * s[0]}, 1e-10);
  auto [P, L, Uf] = ember::linalg_lu(A);
  expect_near(ember::matmul(P, ember::matmul(L, Uf)), a, 1e-12);
}

TEST(LinalgFactor, SingularMatrixRaisesLinAlgError) {
  Tensor A = ember::tensor({{1.0, 2.0}, {2.0, 4.0}}, f64());
  EXPECT_EMBER_ERROR(ember::linalg_inv(A), ErrorKind::LinAlg, "singular");
  EXPECT_EMBER_ERROR(ember::linalg_cholesky(-A), ErrorKind::LinAlg, "positive-definite");
  EXPECT_EMBER_ERROR(ember::linalg_solve(ember::ones({2, 3}), ember::ones({2})), ErrorKind::Runtime,
                     "square");
  // The _ex form reports instead of raising.
  auto [X, info] = ember::linalg_inv_ex(A);
  EXPECT_EQ(info.item<int32_t>(), 2);
}

TEST(LinalgFactor, DeterminantGradientIsTheAdjugate) {
  // d det / dA = adj(A)^T, also for a singular A (here of rank 2: from the SVD).
  for (const D& a : {D{2, 1, 0, 1, 3, 1, 0, 1, 4}, D{1, 2, 3, 2, 4, 6, 1, 0, 1}}) {
    Tensor A = ember::tensor(a, {3, 3}, f64().requires_grad(true));
    ember::linalg_det(A).backward();
    const auto m = [&](int r, int c) { return a[size_t(3 * r + c)]; };
    D cof(9);
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        const int r0 = (r + 1) % 3, r1 = (r + 2) % 3, c0 = (c + 1) % 3, c1 = (c + 2) % 3;
        cof[size_t(3 * r + c)] = m(r0, c0) * m(r1, c1) - m(r0, c1) * m(r1, c0);
      }
    }
    expect_near(A.grad(), cof, 1e-10);
  }
}

}  // namespace

TEST(LinalgFactor, ComplexDeterminantEigenvaluesAndCholesky) {
  // A = [[1 + i, 2], [0, 3i]]: det = (1 + i) 3i = -3 + 3i.
  Tensor A = ember::complex(ember::tensor({{1.0, 2.0}, {0.0, 0.0}}, f64()),
                            ember::tensor({{1.0, 0.0}, {0.0, 3.0}}, f64()));
  Tensor det = ember::linalg_det(A);
  EXPECT_EQ(det.dtype(), ember::kComplex128);
  expect_near(ember::real(det), {-3.0});
  expect_near(ember::imag(det), {3.0});
  // H = [[2, i], [-i, 2]] is Hermitian with eigenvalues 1 and 3 (real: float64), and
  // H = L L^H with L = [[sqrt 2, 0], [-i / sqrt 2, sqrt(3 / 2)]].
  Tensor H = ember::complex(ember::tensor({{2.0, 0.0}, {0.0, 2.0}}, f64()),
                            ember::tensor({{0.0, 1.0}, {-1.0, 0.0}}, f64()));
  auto [w, V] = ember::linalg_eigh(H);
  EXPECT_EQ(w.dtype(), ember::kFloat64);
  expect_near(w, {1.0, 3.0}, 1e-12);
  Tensor L = ember::linalg_cholesky(H);
  expect_near(ember::real(L), {std::sqrt(2.0), 0.0, 0.0, std::sqrt(1.5)}, 1e-12);
  expect_near(ember::imag(L), {0.0, 0.0, -1.0 / std::sqrt(2.0), 0.0}, 1e-12);
}
