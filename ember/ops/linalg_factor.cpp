// Factorisations (LU, Cholesky, QR, eigh, SVD) and the solvers built on them. Each op copies its
// input into LAPACK's layout (column by column per matrix, see lapack_copy), calls one kernel slot
// per factorisation, and records its backward as a formula of other differentiable ops, so that
// second derivatives come from the same formulas (docs/design/linalg.md).
#include "ember/ops/linalg_factor.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_linalg_factor.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/scan.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

constexpr DTypeSet kLapackTypes = DTypeSet(kFloat32) | kFloat64 | kComplex64 | kComplex128;

const OpInfo kLinalgFactorOps[] = {
    {"linalg.lu_factor_ex", OpKind::Linalg, kLapackTypes, true},
    {"linalg.lu_factor", OpKind::Linalg, kLapackTypes, true},
    {"linalg.lu", OpKind::Linalg, kLapackTypes, true},
    {"lu_unpack", OpKind::Linalg, kLapackTypes, true},
    {"linalg.lu_solve", OpKind::Linalg, kLapackTypes, true},
    {"linalg.solve", OpKind::Linalg, kLapackTypes, true},
    {"linalg.solve_ex", OpKind::Linalg, kLapackTypes, true},
    {"linalg.inv", OpKind::Linalg, kLapackTypes, true},
    {"linalg.inv_ex", OpKind::Linalg, kLapackTypes, true},
    {"linalg.det", OpKind::Linalg, kLapackTypes, true},
    {"linalg.slogdet", OpKind::Linalg, kLapackTypes, true},
    {"linalg.cholesky", OpKind::Linalg, kLapackTypes, true},
    {"linalg.cholesky_ex", OpKind::Linalg, kLapackTypes, true},
    {"linalg.solve_triangular", OpKind::Linalg, kLapackTypes, true},
    {"linalg.qr", OpKind::Linalg, kLapackTypes, true},
    {"geqrf", OpKind::Linalg, kLapackTypes, false},
    {"linalg.householder_product", OpKind::Linalg, kLapackTypes, false},
    {"linalg.eigh", OpKind::Linalg, kLapackTypes, true},
    {"linalg.eigvalsh", OpKind::Linalg, kLapackTypes, true},
    {"linalg.svd", OpKind::Linalg, kLapackTypes, true},
    {"linalg.svdvals", OpKind::Linalg, kLapackTypes, true},
    {"linalg.eig", OpKind::Linalg, kLapackTypes, true},
    {"linalg.eigvals", OpKind::Linalg, kLapackTypes, true},
    {"linalg.ldl_factor_ex", OpKind::Linalg, kLapackTypes, false},
    {"linalg.ldl_factor", OpKind::Linalg, kLapackTypes, false},
    {"linalg.ldl_solve", OpKind::Linalg, kLapackTypes, false},
};

const LinalgFactorKernels& slots(const Tensor& t, const char* op) {
  return kernels_of(kernels(t.device()).linalg_factor, t.device(), op);
}

int64_t rows(const Tensor& t) { return t.sizes()[size_t(t.dim() - 2)]; }
int64_t cols(const Tensor& t) { return t.sizes()[size_t(t.dim() - 1)]; }

DimVector dims_of(IntArrayRef a) { return DimVector(a.data(), a.size()); }

DimVector batch_of(const Tensor& t) { return DimVector(t.sizes().data(), size_t(t.dim() - 2)); }

int64_t count(IntArrayRef dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<>());
}

DimVector with(IntArrayRef batch, std::initializer_list<int64_t> tail) {
  DimVector out(batch.data(), batch.size());
  for (int64_t s : tail) out.push_back(s);
  return out;
}

Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }
// The conjugate transpose: the adjoint that the complex forms of the formulas below take where the
// real ones transpose (the same as mT for real t).
Tensor mH(const Tensor& t) { return conj(mT(t)); }

void check_matrix(const Tensor& A, const char* op, bool square, const char* name = "A") {
  EMBER_CHECK(A.dim() >= 2, "[", op, "] ", name,
              " must have at least 2 dimensions (a batch of matrices), but it has ", A.dim(),
              " dimensions");
  EMBER_CHECK_TYPE(kLapackTypes.contains(A.dtype()), "[", op,
                   "] expected a floating point or complex tensor (float32, float64, complex64 or "
                   "complex128), but got dtype ",
                   A.dtype());
  EMBER_CHECK(!square || rows(A) == cols(A), "[", op, "] ", name,
              " must be batches of square matrices, but they are ", rows(A), " by ", cols(A),
              " matrices");
}

void check_pair(const Tensor& A, const Tensor& B, const char* op) {
  EMBER_CHECK(A.dtype() == B.dtype(), "[", op,
              "] expected A and B to have the same dtype, but got A of dtype ", A.dtype(),
              " and B of dtype ", B.dtype());
  EMBER_CHECK(A.device() == B.device(), "[", op, "] expected A and B on the same device, got ",
              A.device(), " and ", B.device());
}

// B's rows (left: A X = B) or columns (X A = B) must match the n x n matrix A.
void check_rhs(int64_t n, const Tensor& B, bool left, const char* op) {
  EMBER_CHECK((left ? rows(B) : cols(B)) == n, "[", op,
              "] incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
              " (", n, "x", n, " and ", rows(B), "x", cols(B), ")");
}

// A fresh [*batch, r, c] result laid out column by column, as LAPACK writes it, and its
// [B, r, c] view for the kernels (the same memory).
struct Lapack {
  Tensor result;
  Tensor mats;
};

Lapack lapack_matrices(IntArrayRef batch, int64_t r, int64_t c, const Tensor& like) {
  NoGradGuard no_grad;
  Tensor buf = empty(with(batch, {c, r}), TensorOptions(like.dtype()).device(like.device()));
  return {mT(buf), transpose(view(buf, {count(batch), c, r}), 1, 2)};
}

// A copy of A, broadcast to `batch`, in LAPACK's layout.
Lapack lapack_copy(const Tensor& A, IntArrayRef batch) {
  Lapack out = lapack_matrices(batch, rows(A), cols(A), A);
  NoGradGuard no_grad;
  out.result.copy_(expand(A, with(batch, {rows(A), cols(A)})));
  return out;
}

Tensor int32_batch(IntArrayRef batch, std::initializer_list<int64_t> tail, const Tensor& like) {
  return empty(with(batch, tail), TensorOptions(kInt32).device(like.device()));
}

// Raises the op's error for the first matrix whose LAPACK info is positive.
template <class Message>
void check_info(const Tensor& info, const char* op, Message message) {
  const Tensor host = info.contiguous();
  const int32_t* p = host.data_ptr<int32_t>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (p[i] > 0) {
      const std::string where =
          info.dim() > 0 ? "(Batch element " + std::to_string(i) + "): " : std::string();
      EMBER_FAIL_KIND(ErrorKind::LinAlg, "[", op, "] ", where, message(p[i]));
    }
  }
}

// det(P) for the permutations that pivots [*, k] describe: -1 for an odd number of row swaps.
Tensor pivot_signs(const Tensor& pivots, const Tensor& like) {
  const Tensor piv = pivots.contiguous();
  const int64_t k = piv.dim() ? piv.sizes()[size_t(piv.dim() - 1)] : 0;
  const DimVector batch(piv.sizes().data(), size_t(piv.dim() - 1));
  Tensor out = empty(batch, TensorOptions(kFloat64));
  const int32_t* p = piv.data_ptr<int32_t>();
  double* o = out.data_ptr<double>();
  for (int64_t b = 0; b < out.numel(); ++b) {
    int swaps = 0;
    for (int64_t i = 0; i < k; ++i) swaps += p[b * k + i] != i + 1;
    o[b] = swaps % 2 ? -1.0 : 1.0;
  }
  return out.to(like.dtype()).to(like.device());
}

// The permutation matrices P [*, m, m] with A = P L U for LAPACK's pivots [*, k].
Tensor permutation_matrices(const Tensor& pivots, int64_t m, const Tensor& like) {
  const Tensor piv = pivots.contiguous();
  const int64_t k = piv.sizes()[size_t(piv.dim() - 1)];
  const DimVector batch(piv.sizes().data(), size_t(piv.dim() - 1));
  Tensor P = zeros(with(batch, {m, m}), TensorOptions(kFloat64));
  const int32_t* p = piv.data_ptr<int32_t>();
  double* o = P.data_ptr<double>();
  std::vector<int64_t> perm(static_cast<size_t>(m));
  for (int64_t b = 0; b < count(batch); ++b) {
    std::iota(perm.begin(), perm.end(), int64_t(0));
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = p[b * k + i] - 1;
      EMBER_CHECK_INDEX(j >= 0 && j < m, "[lu_unpack] pivot ", j + 1, " out of range [1, ", m, "]");
      std::swap(perm[size_t(i)], perm[size_t(j)]);
    }
    // Row i of L U is row perm[i] of A: P[perm[i], i] = 1.
    for (int64_t i = 0; i < m; ++i) o[b * m * m + perm[size_t(i)] * m + i] = 1.0;
  }
  return P.to(like.dtype()).to(like.device());
}

Tensor zeros_if_undefined(const Tensor& g, IntArrayRef sizes, const Tensor& like) {
  return g.defined() ? g : zeros(sizes, TensorOptions(like.dtype()).device(like.device()));
}

// The gradient of A = P L U from those of L [*, m, k] and U [*, k, n] (either may be undefined):
// gA = P L^-H [tril(L^H gL - gU2 U2^H, -1) + triu(gU1 U1^H)] U1^-H | P L^-H gU2 (wide) or
// P [L1^-H (tril(L1^H gL1, -1) + triu(gU U^H - L2^H gL2)); gL2] U^-H (tall), the square case
// being both. Complex A takes the adjoint where real A transposes, as in all the formulas here.
Tensor lu_backward(
    const Tensor& gL_, const Tensor& gU_, const Tensor& P, const Tensor& L, const Tensor& U) {
  const int64_t m = rows(L), n = cols(U), k = cols(L);
  const Tensor gL = zeros_if_undefined(gL_, L.sizes(), L);
  const Tensor gU = zeros_if_undefined(gU_, U.sizes(), U);
  if (m <= n) {
    const Tensor U1 = narrow(U, -1, 0, k), gU1 = narrow(gU, -1, 0, k);
    Tensor M = triu(matmul(gU1, mH(U1)));
    Tensor lower = matmul(mH(L), gL);
    if (n > k) {
      const Tensor U2 = narrow(U, -1, k, n - k), gU2 = narrow(gU, -1, k, n - k);
      lower = lower - matmul(gU2, mH(U2));
    }
    M = M + tril(lower, -1);
    Tensor g1 = linalg_solve_triangular(mH(U1), M, /*upper=*/false, /*left=*/false);
    Tensor g = n > k ? cat({g1, narrow(gU, -1, k, n - k)}, -1) : g1;
    g = linalg_solve_triangular(mH(L), g, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
    return matmul(P, g);
  }
  const Tensor L1 = narrow(L, -2, 0, k), gL1 = narrow(gL, -2, 0, k);
  const Tensor L2 = narrow(L, -2, k, m - k), gL2 = narrow(gL, -2, k, m - k);
  Tensor M = tril(matmul(mH(L1), gL1), -1) + triu(matmul(gU, mH(U)) - matmul(mH(L2), gL2));
  Tensor top = linalg_solve_triangular(mH(L1), M, /*upper=*/true, /*left=*/true,
                                       /*unitriangular=*/true);
  Tensor g = linalg_solve_triangular(mH(U), cat({top, gL2}, -2), /*upper=*/false, /*left=*/false);
  return matmul(P, g);
}

// LU of A (already checked) with no graph: the LAPACK-layout factors, pivots and info.
struct LuResult {
  Lapack lu;
  Tensor pivots, info;
};

LuResult lu_nograd(const Tensor& A, IntArrayRef batch, const char* op, bool pivot = true) {
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, pivot, "[", op,
                   "] LU without pivoting is not implemented on the CPU");
  LuResult r{lapack_copy(A, batch), int32_batch(batch, {std::min(rows(A), cols(A))}, A),
             int32_batch(batch, {}, A)};
  if (count(batch) > 0) {
    slots(A, op).lu_factor(r.lu.mats, r.pivots.view({count(batch), -1}),
                           r.info.view({count(batch)}));
  }
  return r;
}

// L [*, m, k] (unit diagonal) and U [*, k, n] from a packed LU, as differentiable views.
std::pair<Tensor, Tensor> unpack_lu(const Tensor& LU) {
  const int64_t m = rows(LU), n = cols(LU), k = std::min(m, n);
  Tensor L =
      tril(narrow(LU, -1, 0, k), -1) + eye(m, k, TensorOptions(LU.dtype()).device(LU.device()));
  Tensor U = triu(narrow(LU, -2, 0, k));
  return {L, U};
}

// X with A X = B (left) or X A = B, A^H for adjoint, from A's factors in LAPACK's layout (lu
// [batch, n, n] and pivots [batch, n]); no graph. X A = B is A^H X^H = B^H: the adjoint system,
// solved for X^H.
Tensor lu_solve_nograd(const Tensor& lu,
                       const Tensor& pivots,
                       const Tensor& B,
                       IntArrayRef batch,
                       bool left,
                       bool adjoint,
                       const char* op) {
  NoGradGuard no_grad;
  const int64_t n = lu.sizes()[1];
  Lapack x = lapack_copy(left ? B : mH(B), batch);
  if (count(batch) > 0) {
    slots(lu, op).lu_solve(lu, pivots.view({count(batch), n}), x.mats, adjoint == left);
  }
  return left ? x.result : mH(x.result);
}

bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  return std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin());
}

}  // namespace

std::span<const OpInfo> linalg_factor_op_infos() { return kLinalgFactorOps; }

// ---- LU ----

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A,
                                                       bool pivot,
                                                       bool check_errors) {
  const char* op = "linalg.lu_factor_ex";
  check_matrix(A, op, false);
  LuResult r = lu_nograd(A, batch_of(A), op, pivot);
  if (check_errors) {
    check_info(r.info, op, [](int32_t i) {
      return "U[" + std::to_string(i) + "," + std::to_string(i) + "] is zero";
    });
  }
  Tensor LU = r.lu.result;
  if (any_requires_grad(A)) {
    record("LinalgLuFactorExBackward0", {&A}, {&LU},
           [sLU = SavedTensor(LU, 0), piv = r.pivots](TensorList& g, Node& n) {
             const Tensor lu = sLU.unpack(n);
             auto [L, U] = unpack_lu(lu);
             const int64_t k = std::min(rows(lu), cols(lu));
             const Tensor gL = tril(narrow(g[0], -1, 0, k), -1);
             const Tensor gU = triu(narrow(g[0], -2, 0, k));
             return TensorList{lu_backward(gL, gU, permutation_matrices(piv, rows(lu), lu), L, U)};
           });
  }
  return {LU, r.pivots, r.info};
}

std::pair<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  auto [LU, pivots, info] = linalg_lu_factor_ex(A, pivot, false);
  check_info(info, "linalg.lu_factor", [](int32_t i) {
    return "U[" + std::to_string(i) + "," + std::to_string(i) +
           "] is zero and using it on lu_solve would result in a division by zero. If you still "
           "want to perform the factorization, consider calling linalg.lu(A, pivot) or "
           "linalg.lu_factor_ex(A, pivot)";
  });
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU,
                                             const Tensor& pivots,
                                             bool unpack_data,
                                             bool unpack_pivots) {
  const char* op = "lu_unpack";
  check_matrix(LU, op, false, "LU_data");
  EMBER_CHECK_TYPE(pivots.dtype() == kInt32, "[", op, "] LU_pivots must be an int32 tensor, got ",
                   pivots.dtype());
  const int64_t k = std::min(rows(LU), cols(LU));
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.sizes()[size_t(pivots.dim() - 1)] == k, "[",
              op, "] LU_pivots must have shape ", with(batch_of(LU), {k}), ", got ",
              pivots.sizes());
  Tensor L, U, P;
  if (unpack_data) std::tie(L, U) = unpack_lu(LU);
  if (unpack_pivots) P = permutation_matrices(pivots, rows(LU), LU);
  return {P, L, U};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  const char* op = "linalg.lu";
  check_matrix(A, op, false);
  Tensor P, L, U;
  {
    NoGradGuard no_grad;
    LuResult r = lu_nograd(A, batch_of(A), op, pivot);
    std::tie(P, L, U) = lu_unpack(r.lu.result, r.pivots);
  }
  if (any_requires_grad(A)) {
    record("LinalgLuBackward0", {&A}, {&P, &L, &U},
           [sP = SavedTensor(P, 0), sL = SavedTensor(L, 1), sU = SavedTensor(U, 2)](TensorList& g,
                                                                                    Node& n) {
             return TensorList{lu_backward(g[1], g[2], sP.unpack(n), sL.unpack(n), sU.unpack(n))};
           });
  }
  return {P, L, U};
}

Tensor linalg_lu_solve(
    const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_matrix(LU, op, true, "LU");
  check_matrix(B, op, false, "B");
  check_pair(LU, B, op);
  EMBER_CHECK_TYPE(pivots.dtype() == kInt32, "[", op, "] pivots must be an int32 tensor, got ",
                   pivots.dtype());
  const int64_t n = rows(LU);
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.sizes()[size_t(pivots.dim() - 1)] == n, "[",
              op, "] pivots must have shape ", with(batch_of(LU), {n}), ", got ", pivots.sizes());
  check_rhs(n, B, left, op);
  const DimVector batch = broadcast_shapes(batch_of(LU), batch_of(B), op);
  Tensor X;
  {
    NoGradGuard no_grad;
    const Tensor piv = expand(pivots, with(batch, {n})).contiguous();
    X = lu_solve_nograd(lapack_copy(LU, batch).mats, piv, B, batch, left, adjoint, op);
  }
  if (any_requires_grad(LU, B)) {
    record("LinalgLuSolveBackward0", {&LU, &B}, {&X},
           [sLU = SavedTensor(LU), piv = pivots, sX = SavedTensor(X, 0),
            lu_sizes = dims_of(LU.sizes()), b_sizes = dims_of(B.sizes()), left,
            adjoint](TensorList& g, Node& n) {
             const Tensor lu = sLU.unpack(n), x = sX.unpack(n);
             const Tensor gB = linalg_lu_solve(lu, piv, g[0], left, !adjoint);
             TensorList r(2);
             if (n.next_edges()[1].valid()) r[1] = sum_to_size(gB, b_sizes);
             if (n.next_edges()[0].valid()) {
               // The gradient of the matrix A = P L U, then of its packed factors.
               const Tensor gA = left ? (adjoint ? -matmul(x, mH(gB)) : -matmul(gB, mH(x)))
                                      : (adjoint ? -matmul(mH(gB), x) : -matmul(mH(x), gB));
               auto [L, U] = unpack_lu(lu);
               const Tensor R = matmul(mT(permutation_matrices(piv, rows(lu), lu)), gA);
               r[0] = sum_to_size(tril(matmul(R, mH(U)), -1) + triu(matmul(mH(L), R)), lu_sizes);
             }
             return r;
           });
  }
  return X;
}

// ---- solve, inv, det ----

std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& A,
                                          const Tensor& B,
                                          bool left,
                                          bool check_errors) {
  const char* op = "linalg.solve";
  check_matrix(A, op, true);
  check_pair(A, B, op);
  const bool vector = is_vector_rhs(A, B);
  EMBER_CHECK(vector || B.dim() >= 2, "[", op, "] B must be a vector or a batch of matrices, got ",
              B.dim(), "-D");
  const Tensor B2 = vector ? unsqueeze(B, -1) : B;
  const int64_t n = rows(A);
  check_rhs(n, B2, left, op);
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(B2), op);
  Tensor X, info;
  {
    NoGradGuard no_grad;
    // A row-major real A is A^T laid out as LAPACK wants: factoring A^T takes a plain copy
    // instead of a transposing one (9% of a batch of 32 x 32 solves), and A X = B is then solved
    // as (A^T)^T X = B. Complex A would need the conjugate, so it takes the general path.
    const bool transposed = !is_complex(A.dtype()) && A.is_contiguous();
    LuResult lu = lu_nograd(transposed ? mT(A) : A, batch, op);
    X = lu_solve_nograd(lu.lu.mats, lu.pivots, B2, batch, left, transposed, op);
    if (vector) X = squeeze(X, -1);
    info = lu.info;
  }
  if (check_errors) {
    check_info(info, op, [](int32_t) {
      return std::string("The solver failed because the input matrix is singular.");
    });
  }
  if (any_requires_grad(A, B)) {
    record("LinalgSolveExBackward0", {&A, &B}, {&X},
           [sA = SavedTensor(A), sX = SavedTensor(X, 0), a_sizes = dims_of(A.sizes()),
            b_sizes = dims_of(B.sizes()), left, vector](TensorList& g, Node& n) {
             const Tensor a = sA.unpack(n), x = sX.unpack(n);
             // A X = B: gB = A^-H gX, gA = -gB X^H.  X A = B: gB = gX A^-H, gA = -X^H gB.
             const Tensor gB = linalg_solve(mH(a), g[0], left);
             TensorList r(2);
             if (n.next_edges()[1].valid()) r[1] = sum_to_size(gB, b_sizes);
             if (n.next_edges()[0].valid()) {
               const Tensor gB2 = vector ? unsqueeze(gB, -1) : gB;
               const Tensor x2 = vector ? unsqueeze(x, -1) : x;
               r[0] = sum_to_size(left ? -matmul(gB2, mH(x2)) : -matmul(mH(x2), gB2), a_sizes);
             }
             return r;
           });
  }
  return {X, info};
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  return linalg_solve_ex(A, B, left, true).first;
}

std::pair<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  const char* op = "linalg.inv";
  check_matrix(A, op, true);
  const Tensor I =
      expand(eye(rows(A), std::nullopt, TensorOptions(A.dtype()).device(A.device())), A.sizes());
  auto [X, info] = linalg_solve_ex(A, I, true, false);
  if (check_errors) {
    check_info(info, op, [](int32_t i) {
      return "The diagonal element " + std::to_string(i) +
             " is zero, the inversion could not be completed because the input matrix is "
             "singular.";
    });
  }
  return {X, info};
}

Tensor linalg_inv(const Tensor& A) { return linalg_inv_ex(A, true).first; }

std::pair<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  const char* op = "linalg.slogdet";
  check_matrix(A, op, true);
  Tensor sign, logabs;
  {
    NoGradGuard no_grad;
    LuResult lu = lu_nograd(A, batch_of(A), op);
    const Tensor d = diagonal(lu.lu.result, 0, -2, -1);
    // sgn: d / |d| for complex d (0 at 0), the sign for real d.
    sign = pivot_signs(lu.pivots, A) * prod(sgn(d), -1, false);
    logabs = sum(log(abs(d)), {-1}, false);
  }
  if (any_requires_grad(A)) {
    record("LinalgSlogdetBackward0", {&A}, {&sign, &logabs},
           [sA = SavedTensor(A), ssign = SavedTensor(sign, 0)](TensorList& g, Node& n) {
             // log det A = logabs + i angle(sign): gA = g A^-H with g = g_logabs - i
             // Im(conj(g_sign) sign) (the sign's gradient only moves its angle; real A has none).
             const Tensor a = sA.unpack(n);
             Tensor gz = g[1];
             if (is_complex(a.dtype()) && g[0].defined()) {
               const Tensor turn = imag(conj(g[0]) * ssign.unpack(n));
               const Tensor im = complex(zeros_like(turn), -turn);
               gz = gz.defined() ? gz + im : im;
             }
             if (!gz.defined()) return TensorList{Tensor()};
             return TensorList{unsqueeze(unsqueeze(gz, -1), -1) * mH(linalg_inv(a))};
           });
  }
  return {sign, logabs};
}

Tensor linalg_det(const Tensor& A) {
  const char* op = "linalg.det";
  check_matrix(A, op, true);
  Tensor det;
  {
    NoGradGuard no_grad;
    LuResult lu = lu_nograd(A, batch_of(A), op);
    det = pivot_signs(lu.pivots, A) * prod(diagonal(lu.lu.result, 0, -2, -1), -1, false);
  }
  if (any_requires_grad(A)) {
    record("LinalgDetBackward0", {&A}, {&det},
           [sA = SavedTensor(A), sdet = SavedTensor(det, 0)](TensorList& g, Node& n) {
             // gA = g conj(det A) A^-H, the conjugate of the cofactor matrix times g.
             const Tensor a = sA.unpack(n), d = sdet.unpack(n);
             const Tensor gd = unsqueeze(unsqueeze(g[0] * conj(d), -1), -1);
             bool singular = false;
             {
               const Tensor h = d.detach().to(kFloat64).contiguous();
               const double* p = h.data_ptr<double>();
               singular = std::any_of(p, p + h.numel(), [](double v) { return v == 0.0; });
             }
             if (!singular) return TensorList{gd * mH(linalg_inv(a))};
             // A singular A: the gradient is the adjugate's adjoint, from the SVD A = U S V^H:
             // conj(det(U) det(V^H)) U diag(prod_{j != i} s_j) V^H.
             auto [U, S, Vh] = linalg_svd(a, false);
             Tensor sgn;
             {
               NoGradGuard no_grad;
               sgn = conj(linalg_slogdet(U).first * linalg_slogdet(Vh).first);
             }
             const int64_t k = S.sizes()[size_t(S.dim() - 1)];
             const Tensor ones = ones_like(narrow(S, -1, 0, 1));
             const Tensor left_prod = cumprod(cat({ones, narrow(S, -1, 0, k - 1)}, -1), -1);
             const Tensor right_prod =
                 flip(cumprod(cat({ones, narrow(flip(S, {-1}), -1, 0, k - 1)}, -1), -1), {-1});
             const Tensor others = left_prod * right_prod;
             const Tensor gs = unsqueeze(unsqueeze(g[0] * sgn, -1), -1);
             return TensorList{gs * matmul(U * unsqueeze(others, -2), Vh)};
           });
  }
  return det;
}

// ---- Cholesky and triangular solves ----

std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  const char* op = "linalg.cholesky";
  check_matrix(A, op, true);
  const DimVector batch = batch_of(A);
  Lapack out = lapack_copy(A, batch);
  Tensor info = int32_batch(batch, {}, A);
  if (count(batch) > 0) slots(A, op).cholesky(out.mats, upper, info.view({count(batch)}));
  if (check_errors) {
    check_info(info, op, [](int32_t i) {
      return "The factorization could not be completed because the input is not "
             "positive-definite (the leading minor of order " +
             std::to_string(i) + " is not positive-definite).";
    });
  }
  Tensor L = out.result;
  if (any_requires_grad(A)) {
    record("LinalgCholeskyExBackward0", {&A}, {&L},
           [sL = SavedTensor(L, 0), upper](TensorList& g, Node& n) {
             // A = L L^H: gA = L^-H G L^-1 with G = (tril(M) + tril(M, -1)^H) / 2, M = L^H gL
             // (Murray 2016; PyTorch's, which keeps a complex diagonal of M whole).
             const Tensor l = upper ? mH(sL.unpack(n)) : sL.unpack(n);
             const Tensor gl = upper ? mH(g[0]) : g[0];
             const Tensor M = matmul(mH(l), gl);
             Tensor gA = (tril(M) + mH(tril(M, -1))) * 0.5;
             gA = linalg_solve_triangular(mH(l), gA, /*upper=*/true, /*left=*/true);
             return TensorList{linalg_solve_triangular(l, gA, /*upper=*/false, /*left=*/false)};
           });
  }
  return {L, info};
}

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  return linalg_cholesky_ex(A, upper, true).first;
}

Tensor linalg_solve_triangular(
    const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  check_matrix(A, op, true);
  check_matrix(B, op, false, "B");
  check_pair(A, B, op);
  const int64_t n = rows(A);
  check_rhs(n, B, left, op);
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(B), op);
  Tensor X;
  {
    NoGradGuard no_grad;
    const Lapack a = lapack_copy(A, batch);
    Lapack x = lapack_copy(B, batch);
    if (count(batch) > 0) {
      slots(A, op).triangular_solve(a.mats, x.mats, upper, left, false, unitriangular);
    }
    X = x.result;
  }
  if (any_requires_grad(A, B)) {
    record("LinalgSolveTriangularBackward0", {&A, &B}, {&X},
           [sA = SavedTensor(A), sX = SavedTensor(X, 0), a_sizes = dims_of(A.sizes()),
            b_sizes = dims_of(B.sizes()), upper, left, unitriangular](TensorList& g, Node& n) {
             const Tensor a = sA.unpack(n), x = sX.unpack(n);
             const Tensor gB = linalg_solve_triangular(mH(a), g[0], !upper, left, unitriangular);
             TensorList r(2);
             if (n.next_edges()[1].valid()) r[1] = sum_to_size(gB, b_sizes);
             if (n.next_edges()[0].valid()) {
               const Tensor gA = left ? -matmul(gB, mH(x)) : -matmul(mH(x), gB);
               const int64_t off = unitriangular ? 1 : 0;
               r[0] = sum_to_size(upper ? triu(gA, off) : tril(gA, -off), a_sizes);
             }
             return r;
           });
  }
  return X;
}

// ---- QR ----

std::pair<Tensor, Tensor> geqrf(const Tensor& A) {
  const char* op = "geqrf";
  check_matrix(A, op, false);
  const DimVector batch = batch_of(A);
  Lapack a = lapack_copy(A, batch);
  Tensor tau =
      empty(with(batch, {std::min(rows(A), cols(A))}), TensorOptions(A.dtype()).device(A.device()));
  if (count(batch) > 0) slots(A, op).geqrf(a.mats, tau.view({count(batch), -1}));
  return {a.result, tau};
}

Tensor linalg_householder_product(const Tensor& A, const Tensor& tau) {
  const char* op = "linalg.householder_product";
  check_matrix(A, op, false);
  EMBER_CHECK(A.dtype() == tau.dtype(), "[", op,
              "] expected A and tau to have the same dtype, but got ", A.dtype(), " and ",
              tau.dtype());
  const int64_t m = rows(A), n = cols(A);
  EMBER_CHECK(m >= n, "[", op, "] input.size(-2) must be greater than or equal to input.size(-1)");
  EMBER_CHECK(tau.dim() == A.dim() - 1 && tau.sizes()[size_t(tau.dim() - 1)] <= n, "[", op,
              "] tau must have shape [*, k] with k <= input.size(-1) and the batch of input, got ",
              tau.sizes());
  const DimVector batch = batch_of(A);
  Lapack q = lapack_copy(A, batch);
  const int64_t k = tau.sizes()[size_t(tau.dim() - 1)];
  const Tensor t = expand(tau, with(batch, {k})).contiguous();
  if (count(batch) > 0) slots(A, op).orgqr(q.mats, t.view({count(batch), k}));
  return q.result;
}

std::pair<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  const char* op = "linalg.qr";
  check_matrix(A, op, false);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "[", op,
              "] qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n);
  const DimVector batch = batch_of(A);
  Tensor Q, R;
  {
    NoGradGuard no_grad;
    auto [a, tau] = geqrf(A);
    const int64_t rrows = mode == "complete" ? m : k;
    R = triu(narrow(a, -2, 0, rrows));
    if (mode != "r") {
      const int64_t qcols = mode == "complete" ? m : k;
      Lapack q = lapack_matrices(batch, m, qcols, A);
      q.result.zero_();
      const int64_t c = std::min(n, qcols);
      narrow(q.result, -1, 0, c).copy_(narrow(a, -1, 0, c));
      if (count(batch) > 0 && m > 0) {
        slots(A, op).orgqr(q.mats, tau.view({count(batch), k}));
      }
      Q = q.result;
    } else {
      Q = empty({0}, TensorOptions(A.dtype()).device(A.device()));
    }
  }
  if (any_requires_grad(A)) {
    const bool r_only = mode == "r", complete_tall = mode == "complete" && m > n;
    record("LinalgQrBackward0", {&A}, {&Q, &R},
           [sA = SavedTensor(A), sQ = SavedTensor(Q, 0), sR = SavedTensor(R, 1), r_only,
            complete_tall](TensorList& g, Node& n) {
             EMBER_CHECK(!r_only,
                         "[linalg.qr] The derivative of linalg.qr depends on Q, which is not "
                         "computed when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                         "are going to differentiate through linalg.qr.");
             EMBER_CHECK(!complete_tall,
                         "[linalg.qr] The QR decomposition is not differentiable when "
                         "mode='complete' and nrows > ncols.");
             const Tensor a = sA.unpack(n), q = sQ.unpack(n), r = sR.unpack(n);
             const int64_t m = rows(a), nc = cols(a);
             // M = gR R^H - Q^H gQ; gA = (gQ + Q copyutl(M)) R^-H (Liao et al. 2019), with
             // copyutl(M) the Hermitian matrix of M's upper triangle, its diagonal real (LAPACK's
             // complex R has a real diagonal). A wide A = Q [U V] splits: the part over U as a
             // square one with gQ + A_V gV^H, the part over V is Q gV.
             Tensor gQ = zeros_if_undefined(g[0], q.sizes(), q);
             const Tensor gR = zeros_if_undefined(g[1], r.sizes(), r);
             const int64_t k = std::min(m, nc);
             const Tensor U = narrow(r, -1, 0, k), gU = narrow(gR, -1, 0, k);
             if (nc > k) gQ = gQ + matmul(narrow(a, -1, k, nc - k), mH(narrow(gR, -1, k, nc - k)));
             const Tensor M = matmul(gU, mH(U)) - matmul(mH(q), gQ);
             const Tensor upper = triu(M, 1);
             const Tensor sym = upper + mH(upper) + diag_embed(real(diagonal(M, 0, -2, -1)));
             const Tensor b = gQ + matmul(q, sym);
             Tensor gA = linalg_solve_triangular(mH(U), b, /*upper=*/false, /*left=*/false);
             if (nc > k) gA = cat({gA, matmul(q, narrow(gR, -1, k, nc - k))}, -1);
             return TensorList{gA};
           });
  }
  return {Q, R};
}

// ---- Symmetric eigendecomposition and SVD ----

namespace {

std::pair<Tensor, Tensor> eigh_nograd(const Tensor& A, bool upper, bool vectors, const char* op) {
  const DimVector batch = batch_of(A);
  const int64_t n = rows(A);
  NoGradGuard no_grad;
  Lapack v = lapack_copy(A, batch);
  Tensor w = empty(with(batch, {n}), TensorOptions(to_real_dtype(A.dtype())).device(A.device()));
  Tensor info = int32_batch(batch, {}, A);
  if (count(batch) > 0) {
    slots(A, op).eigh(v.mats, w.view({count(batch), n}), upper, vectors, info.view({count(batch)}));
  }
  check_info(info, op, [](int32_t i) {
    return "The algorithm failed to converge because the input matrix is ill-conditioned or has "
           "too many repeated eigenvalues (error code: " +
           std::to_string(i) + ").";
  });
  return {w, vectors ? v.result : Tensor()};
}

bool uplo_upper(std::string_view UPLO, const char* op) {
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u", "[", op,
              "] expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  return UPLO == "U" || UPLO == "u";
}

// The eigenvectors of complex (or of a repeated eigenvalue) are fixed only up to a phase e^{i phi}
// each: a loss that depends on the phase has no gradient, which PyTorch refuses by checking that
// Im(diag(V^H gV)) is 0, as this does.
void check_phase_invariant(const Tensor& VgV, const char* who) {
  if (!is_complex(VgV.dtype())) return;
  const Tensor phase = imag(diagonal(VgV, 0, -2, -1));
  EMBER_CHECK(allclose(phase, zeros_like(phase), 1e-2, 1e-2), "[", who,
              "] The eigenvectors in the complex case are specified up to multiplication by "
              "e^{i phi}. The specified loss function depends on this quantity, so it is "
              "ill-defined.");
}

// gA = V (diag(gw) + skew(V^H gV) / 2E) V^H with E_ij = w_j - w_i (its diagonal replaced by gw):
// the gradient of the symmetric (Hermitian) eigendecomposition, Hermitian as PyTorch's.
Tensor eigh_backward(const Tensor& gw, const Tensor& gV, const Tensor& w, const Tensor& V) {
  Tensor inner;
  if (gV.defined()) {
    Tensor VgV = matmul(mH(V), gV);
    check_phase_invariant(VgV, "linalg.eigh");
    VgV = (VgV - mH(VgV)) * 0.5;
    Tensor E = unsqueeze(w, -2) - unsqueeze(w, -1);
    E = E + diag_embed(ones_like(w));  // the diagonal is set below: avoid 0 / 0
    inner = VgV / E;
    inner = inner - diag_embed(diagonal(inner, 0, -2, -1));
  }
  if (gw.defined()) inner = inner.defined() ? inner + diag_embed(gw) : diag_embed(gw);
  if (!inner.defined()) return Tensor();
  return matmul(V, matmul(inner, mH(V)));
}

}  // namespace

std::pair<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO) {
  const char* op = "linalg.eigh";
  check_matrix(A, op, true);
  auto [w, V] = eigh_nograd(A, uplo_upper(UPLO, op), true, op);
  if (any_requires_grad(A)) {
    record("LinalgEighBackward0", {&A}, {&w, &V},
           [sw = SavedTensor(w, 0), sV = SavedTensor(V, 1)](TensorList& g, Node& n) {
             return TensorList{eigh_backward(g[0], g[1], sw.unpack(n), sV.unpack(n))};
           });
  }
  return {w, V};
}

Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO) {
  const char* op = "linalg.eigvalsh";
  check_matrix(A, op, true);
  // The gradient needs the eigenvectors, and its own gradient needs them in the graph: with
  // grad, the eigenvalues of linalg_eigh.
  if (any_requires_grad(A)) return linalg_eigh(A, UPLO).first;
  return eigh_nograd(A, uplo_upper(UPLO, op), false, op).first;
}

// ---- General eigendecomposition ----

namespace {

std::pair<Tensor, Tensor> eig_nograd(const Tensor& A, bool vectors, const char* op) {
  const DimVector batch = batch_of(A);
  const int64_t n = rows(A);
  NoGradGuard no_grad;
  Lapack a = lapack_copy(A, batch);
  const TensorOptions complex_options =
      TensorOptions(to_complex_dtype(A.dtype())).device(A.device());
  Tensor w = empty(with(batch, {n}), complex_options);
  Tensor V, mats;
  if (vectors) {  // LAPACK's layout: column by column per matrix
    const Tensor buf = empty(with(batch, {n, n}), complex_options);
    V = mT(buf);
    mats = transpose(view(buf, {count(batch), n, n}), 1, 2);
  }
  Tensor info = int32_batch(batch, {}, A);
  if (count(batch) > 0) {
    slots(A, op).eig(a.mats, w.view({count(batch), n}), mats, vectors, info.view({count(batch)}));
  }
  check_info(info, op, [](int32_t i) {
    return "The QR algorithm failed to compute all the eigenvalues (error code: " +
           std::to_string(i) + ").";
  });
  return {w, V};
}

// PyTorch's linalg_eig_backward: with E_ij = conj(L_j - L_i) (1 on the diagonal),
// gA = V^-H (diag(gL) + offdiag(P / E)) V^H, where P = V^H gV - V^H V diag(Re(diag(V^H gV))) is
// V^H gV projected so that rescaling a vector by a phase changes nothing. The real part for real A.
Tensor eig_backward(
    const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V, bool real_input) {
  const Tensor Vh = mH(V);
  Tensor inner;
  if (gV.defined()) {
    Tensor P = matmul(Vh, gV);
    check_phase_invariant(P, "linalg.eig");
    P = P - matmul(Vh, V * unsqueeze(real(diagonal(P, 0, -2, -1)), -2));
    const Tensor Lc = conj(L);
    const Tensor E = unsqueeze(Lc, -2) - unsqueeze(Lc, -1) + diag_embed(ones_like(L));
    inner = P / E;
    inner = inner - diag_embed(diagonal(inner, 0, -2, -1));
  }
  if (gL.defined()) inner = inner.defined() ? inner + diag_embed(gL) : diag_embed(gL);
  if (!inner.defined()) return Tensor();
  const Tensor gA = linalg_solve(Vh, matmul(inner, Vh));
  return real_input ? real(gA) : gA;
}

}  // namespace

std::pair<Tensor, Tensor> linalg_eig(const Tensor& A) {
  const char* op = "linalg.eig";
  check_matrix(A, op, true);
  auto [L, V] = eig_nograd(A, true, op);
  if (any_requires_grad(A)) {
    record("LinalgEigBackward0", {&A}, {&L, &V},
           [sL = SavedTensor(L, 0), sV = SavedTensor(V, 1), real_input = !is_complex(A.dtype())](
               TensorList& g, Node& n) {
             return TensorList{eig_backward(g[0], g[1], sL.unpack(n), sV.unpack(n), real_input)};
           });
  }
  return {L, V};
}

Tensor linalg_eigvals(const Tensor& A) {
  const char* op = "linalg.eigvals";
  check_matrix(A, op, true);
  // As eigvalsh: the gradient needs the eigenvectors.
  if (any_requires_grad(A)) return linalg_eig(A).first;
  return eig_nograd(A, false, op).first;
}

// ---- LDL^T ----

std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A,
                                                        bool hermitian,
                                                        bool check_errors) {
  const char* op = "linalg.ldl_factor_ex";
  check_matrix(A, op, true);
  const DimVector batch = batch_of(A);
  const int64_t n = rows(A);
  NoGradGuard no_grad;
  Lapack ld = lapack_copy(A, batch);
  Tensor pivots = int32_batch(batch, {n}, A);
  Tensor info = int32_batch(batch, {}, A);
  if (count(batch) > 0) {
    slots(A, op).ldl_factor(ld.mats, pivots.view({count(batch), n}), hermitian,
                            info.view({count(batch)}));
  }
  if (check_errors) {
    check_info(info, op, [](int32_t i) {
      return "The factorization could not be completed because the input is singular (D[" +
             std::to_string(i) + "," + std::to_string(i) + "] is exactly zero).";
    });
  }
  return {ld.result, pivots, info};
}

std::pair<Tensor, Tensor> linalg_ldl_factor(const Tensor& A, bool hermitian) {
  check_matrix(A, "linalg.ldl_factor", true);
  auto [LD, pivots, info] = linalg_ldl_factor_ex(A, hermitian, false);
  check_info(info, "linalg.ldl_factor", [](int32_t i) {
    return "The factorization could not be completed because the input is singular (D[" +
           std::to_string(i) + "," + std::to_string(i) + "] is exactly zero).";
  });
  return {LD, pivots};
}

Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  const char* op = "linalg.ldl_solve";
  check_matrix(LD, op, true, "LD");
  check_matrix(B, op, false, "B");
  check_pair(LD, B, op);
  EMBER_CHECK_TYPE(pivots.dtype() == kInt32, "[", op, "] pivots must be an int32 tensor, got ",
                   pivots.dtype());
  const int64_t n = rows(LD);
  EMBER_CHECK(pivots.dim() == LD.dim() - 1 && pivots.sizes()[size_t(pivots.dim() - 1)] == n, "[",
              op, "] pivots must have shape ", with(batch_of(LD), {n}), ", got ", pivots.sizes());
  check_rhs(n, B, true, op);
  const DimVector batch = broadcast_shapes(batch_of(LD), batch_of(B), op);
  NoGradGuard no_grad;
  const Tensor piv = expand(pivots, with(batch, {n})).contiguous();
  const Lapack ld = lapack_copy(LD, batch);
  Lapack x = lapack_copy(B, batch);
  if (count(batch) > 0) {
    slots(LD, op).ldl_solve(ld.mats, piv.view({count(batch), n}), hermitian, x.mats);
  }
  return x.result;
}

namespace {

struct SvdResult {
  Tensor U, S, Vh;
};

SvdResult svd_nograd(const Tensor& A, bool full, bool vectors, const char* op) {
  const DimVector batch = batch_of(A);
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n);
  NoGradGuard no_grad;
  Lapack a = lapack_copy(A, batch);
  SvdResult r;
  r.S = empty(with(batch, {k}), TensorOptions(to_real_dtype(A.dtype())).device(A.device()));
  Lapack u, vh;
  if (vectors) {
    u = lapack_matrices(batch, m, full ? m : k, A);
    vh = lapack_matrices(batch, full ? n : k, n, A);
    // LAPACK leaves empty factors untouched: an empty matrix's full factors are identities.
    if (k == 0) {
      u.result.copy_(expand(eye(m, full ? m : k, TensorOptions(A.dtype())), u.result.sizes()));
      vh.result.copy_(expand(eye(full ? n : k, n, TensorOptions(A.dtype())), vh.result.sizes()));
    }
  }
  Tensor info = int32_batch(batch, {}, A);
  if (count(batch) > 0) {
    slots(A, op).svd(a.mats, r.S.view({count(batch), k}), u.mats, vh.mats, full, vectors,
                     info.view({count(batch)}));
  }
  check_info(info, op, [](int32_t i) {
    return "The algorithm failed to converge because the input matrix is ill-conditioned or has "
           "too many repeated singular values (error code: " +
           std::to_string(i) + ").";
  });
  r.U = u.result;
  r.Vh = vh.result;
  return r;
}

// The SVD's gradient (Townsend 2016), on the first k = min(m, n) singular vectors (the others of
// full_matrices get none, as in PyTorch): with F_ij = 1 / (s_j^2 - s_i^2),
// gA = U [(F o (U^H gU - gU^H U)) S + S (F o (V^H gV - gV^H V)) + diag(gS)] V^H
//      + (I - U U^H) gU S^-1 V^H + U S^-1 gV^H (I - V V^H).
// Complex A adds i Im(diag(U^H gU)) S^-1 inside the brackets, and PyTorch's check that the loss
// does not depend on the phases of the singular vectors (U -> U e^{i phi}, V -> V e^{i phi}).
Tensor svd_backward(const Tensor& gU_,
                    const Tensor& gS,
                    const Tensor& gVh_,
                    const Tensor& U_,
                    const Tensor& S,
                    const Tensor& Vh_) {
  const int64_t k = S.sizes()[size_t(S.dim() - 1)];
  const Tensor U = narrow(U_, -1, 0, k), Vh = narrow(Vh_, -2, 0, k);
  const Tensor gU = gU_.defined() ? narrow(gU_, -1, 0, k) : Tensor();
  const Tensor gVh = gVh_.defined() ? narrow(gVh_, -2, 0, k) : Tensor();
  const int64_t m = rows(U), n = cols(Vh);
  Tensor inner = gS.defined() ? diag_embed(gS) : Tensor();
  const auto add = [&](const Tensor& t) { inner = inner.defined() ? inner + t : t; };
  if (gU.defined() || gVh.defined()) {
    const Tensor s2 = S * S;
    Tensor F = unsqueeze(s2, -2) - unsqueeze(s2, -1);
    F = F + diag_embed(ones_like(S));
    F = reciprocal(F) - diag_embed(ones_like(S));
    const Tensor UgU = gU.defined() ? matmul(mH(U), gU) : Tensor();
    const Tensor VgV = gVh.defined() ? matmul(Vh, mH(gVh)) : Tensor();
    if (is_complex(U.dtype())) {
      const Tensor u_phase = UgU.defined() ? imag(diagonal(UgU, 0, -2, -1)) : zeros_like(S);
      const Tensor v_phase = VgV.defined() ? imag(diagonal(VgV, 0, -2, -1)) : zeros_like(S);
      EMBER_CHECK(allclose(u_phase, -v_phase, 1e-2, 1e-2),
                  "[linalg.svd] svd_backward: The singular vectors in the complex case are "
                  "specified up to multiplication by e^{i phi}. The specified loss function "
                  "depends on this phase term, making it ill-defined.");
      if (UgU.defined()) add(diag_embed(complex(zeros_like(S), u_phase / S)));
    }
    if (UgU.defined()) add((F * (UgU - mH(UgU))) * unsqueeze(S, -2));
    if (VgV.defined()) add(unsqueeze(S, -1) * (F * (VgV - mH(VgV))));
  }
  Tensor gA = inner.defined() ? matmul(U, matmul(inner, Vh)) : Tensor();
  const auto add_out = [&](const Tensor& t) { gA = gA.defined() ? gA + t : t; };
  if (gU.defined() && m > k) {
    const Tensor proj = gU - matmul(U, matmul(mH(U), gU));
    add_out(matmul(proj / unsqueeze(S, -2), Vh));
  }
  if (gVh.defined() && n > k) {
    const Tensor gV = mH(gVh), V = mH(Vh);
    const Tensor proj = gV - matmul(V, matmul(Vh, gV));
    add_out(matmul(U, mH(proj / unsqueeze(S, -2))));
  }
  return gA;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices) {
  const char* op = "linalg.svd";
  check_matrix(A, op, false);
  SvdResult r = svd_nograd(A, full_matrices, true, op);
  if (any_requires_grad(A)) {
    record("LinalgSvdBackward0", {&A}, {&r.U, &r.S, &r.Vh},
           [sU = SavedTensor(r.U, 0), sS = SavedTensor(r.S, 1), sVh = SavedTensor(r.Vh, 2)](
               TensorList& g, Node& n) {
             return TensorList{
                 svd_backward(g[0], g[1], g[2], sU.unpack(n), sS.unpack(n), sVh.unpack(n))};
           });
  }
  return {r.U, r.S, r.Vh};
}

Tensor linalg_svdvals(const Tensor& A) {
  const char* op = "linalg.svdvals";
  check_matrix(A, op, false);
  // As eigvalsh: with grad, the singular values of linalg_svd, whose backward needs U and Vh.
  if (any_requires_grad(A)) return std::get<1>(linalg_svd(A, false));
  return svd_nograd(A, false, false, op).S;
}

}  // namespace ember
