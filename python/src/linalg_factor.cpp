// Bindings of the factorisations (ops/linalg_factor.h) in ember._C._linalg, wrapped by
// ember/linalg.py under PyTorch's names; geqrf and lu_unpack also in ember._C. Results with
// several tensors are named tuples with PyTorch's field names (torch.return_types.linalg_qr, ...).
// The exception ember._C._LinAlgError is torch.linalg.LinAlgError.
#include <string>

#include "init.h"

namespace ember::py {
namespace {

PyObject* g_linalg_error = nullptr;

nb::handle named_type(nb::module_& m, const char* name, const char* fields) {
  nb::object t = nb::module_::import_("collections").attr("namedtuple")(name, fields);
  m.attr(("_" + std::string(name) + "_type").c_str()) = t;
  return t.release();  // the module keeps a reference
}

nb::object make(nb::handle type, const Tensor& a, const Tensor& b) {
  return type(wrap(a), wrap(b));
}
nb::object make(nb::handle type, const std::tuple<Tensor, Tensor, Tensor>& t) {
  return type(wrap(std::get<0>(t)), wrap(std::get<1>(t)), wrap(std::get<2>(t)));
}

}  // namespace

PyObject* linalg_error() { return g_linalg_error; }

void init_linalg_factor(nb::module_& m) {
  g_linalg_error = PyErr_NewExceptionWithDoc(
      "ember._C._LinAlgError",
      "A matrix that a linear algebra function cannot handle: singular, not positive-definite, "
      "or an algorithm that did not converge (torch.linalg.LinAlgError).",
      PyExc_RuntimeError, nullptr);
  m.attr("_LinAlgError") = nb::handle(g_linalg_error);
  nb::module_ la = nb::borrow<nb::module_>(m.attr("_linalg"));

  nb::handle lu_factor_t = named_type(la, "linalg_lu_factor", "LU pivots");
  nb::handle lu_factor_ex_t = named_type(la, "linalg_lu_factor_ex", "LU pivots info");
  nb::handle lu_t = named_type(la, "linalg_lu", "P L U");
  nb::handle lu_unpack_t = named_type(m, "lu_unpack", "P L U");
  nb::handle solve_ex_t = named_type(la, "linalg_solve_ex", "result info");
  nb::handle inv_ex_t = named_type(la, "linalg_inv_ex", "inverse info");
  nb::handle slogdet_t = named_type(la, "linalg_slogdet", "sign logabsdet");
  nb::handle cholesky_ex_t = named_type(la, "linalg_cholesky_ex", "L info");
  nb::handle qr_t = named_type(la, "linalg_qr", "Q R");
  nb::handle geqrf_t = named_type(m, "geqrf", "a tau");
  nb::handle eigh_t = named_type(la, "linalg_eigh", "eigenvalues eigenvectors");
  nb::handle eig_t = named_type(la, "linalg_eig", "eigenvalues eigenvectors");
  nb::handle ldl_t = named_type(la, "linalg_ldl_factor", "LD pivots");
  nb::handle ldl_ex_t = named_type(la, "linalg_ldl_factor_ex", "LD pivots info");
  nb::handle svd_t = named_type(la, "linalg_svd", "U S Vh");

  la.def(
      "lu_factor",
      [lu_factor_t](const Tensor& A, bool pivot) {
        auto [LU, piv] = linalg_lu_factor(A, pivot);
        return make(lu_factor_t, LU, piv);
      },
      nb::arg("A"), nb::kw_only(), nb::arg("pivot") = true);
  la.def(
      "lu_factor_ex",
      [lu_factor_ex_t](const Tensor& A, bool pivot, bool check_errors) {
        return make(lu_factor_ex_t, linalg_lu_factor_ex(A, pivot, check_errors));
      },
      nb::arg("A"), nb::kw_only(), nb::arg("pivot") = true, nb::arg("check_errors") = false);
  la.def(
      "lu", [lu_t](const Tensor& A, bool pivot) { return make(lu_t, linalg_lu(A, pivot)); },
      nb::arg("A"), nb::kw_only(), nb::arg("pivot") = true);
  m.def(
      "lu_unpack",
      [lu_unpack_t](const Tensor& LU, const Tensor& piv, bool data, bool pivots) {
        return make(lu_unpack_t, lu_unpack(LU, piv, data, pivots));
      },
      nb::arg("LU_data"), nb::arg("LU_pivots"), nb::arg("unpack_data") = true,
      nb::arg("unpack_pivots") = true);
  la.def(
      "lu_solve",
      [](const Tensor& LU, const Tensor& piv, const Tensor& B, bool left, bool adjoint) {
        return linalg_lu_solve(LU, piv, B, left, adjoint);
      },
      nb::arg("LU"), nb::arg("pivots"), nb::arg("B"), nb::kw_only(), nb::arg("left") = true,
      nb::arg("adjoint") = false);
  la.def(
      "solve", [](const Tensor& A, const Tensor& B, bool left) { return linalg_solve(A, B, left); },
      nb::arg("A"), nb::arg("B"), nb::kw_only(), nb::arg("left") = true);
  la.def(
      "solve_ex",
      [solve_ex_t](const Tensor& A, const Tensor& B, bool left, bool check_errors) {
        auto [X, info] = linalg_solve_ex(A, B, left, check_errors);
        return make(solve_ex_t, X, info);
      },
      nb::arg("A"), nb::arg("B"), nb::kw_only(), nb::arg("left") = true,
      nb::arg("check_errors") = false);
  la.def(
      "inv", [](const Tensor& A) { return linalg_inv(A); }, nb::arg("A"));
  la.def(
      "inv_ex",
      [inv_ex_t](const Tensor& A, bool check_errors) {
        auto [X, info] = linalg_inv_ex(A, check_errors);
        return make(inv_ex_t, X, info);
      },
      nb::arg("A"), nb::kw_only(), nb::arg("check_errors") = false);
  la.def(
      "det", [](const Tensor& A) { return linalg_det(A); }, nb::arg("A"));
  la.def(
      "slogdet",
      [slogdet_t](const Tensor& A) {
        auto [sign, logabs] = linalg_slogdet(A);
        return make(slogdet_t, sign, logabs);
      },
      nb::arg("A"));
  la.def(
      "cholesky", [](const Tensor& A, bool upper) { return linalg_cholesky(A, upper); },
      nb::arg("A"), nb::kw_only(), nb::arg("upper") = false);
  la.def(
      "cholesky_ex",
      [cholesky_ex_t](const Tensor& A, bool upper, bool check_errors) {
        auto [L, info] = linalg_cholesky_ex(A, upper, check_errors);
        return make(cholesky_ex_t, L, info);
      },
      nb::arg("A"), nb::kw_only(), nb::arg("upper") = false, nb::arg("check_errors") = false);
  la.def(
      "solve_triangular",
      [](const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
        return linalg_solve_triangular(A, B, upper, left, unitriangular);
      },
      nb::arg("A"), nb::arg("B"), nb::kw_only(), nb::arg("upper"), nb::arg("left") = true,
      nb::arg("unitriangular") = false);
  la.def(
      "qr",
      [qr_t](const Tensor& A, std::string_view mode) {
        auto [Q, R] = linalg_qr(A, mode);
        return make(qr_t, Q, R);
      },
      nb::arg("A"), nb::arg("mode") = "reduced");
  m.def(
      "geqrf",
      [geqrf_t](const Tensor& A) {
        auto [a, tau] = geqrf(A);
        return make(geqrf_t, a, tau);
      },
      nb::arg("input"));
  la.def(
      "householder_product",
      [](const Tensor& A, const Tensor& tau) { return linalg_householder_product(A, tau); },
      nb::arg("A"), nb::arg("tau"));
  la.def(
      "eigh",
      [eigh_t](const Tensor& A, std::string_view UPLO) {
        auto [w, V] = linalg_eigh(A, UPLO);
        return make(eigh_t, w, V);
      },
      nb::arg("A"), nb::arg("UPLO") = "L");
  la.def(
      "eigvalsh", [](const Tensor& A, std::string_view UPLO) { return linalg_eigvalsh(A, UPLO); },
      nb::arg("A"), nb::arg("UPLO") = "L");
  la.def(
      "eig",
      [eig_t](const Tensor& A) {
        auto [w, V] = linalg_eig(A);
        return make(eig_t, w, V);
      },
      nb::arg("A"));
  la.def(
      "eigvals", [](const Tensor& A) { return linalg_eigvals(A); }, nb::arg("A"));
  la.def(
      "ldl_factor_ex",
      [ldl_ex_t](const Tensor& A, bool hermitian, bool check_errors) {
        return make(ldl_ex_t, linalg_ldl_factor_ex(A, hermitian, check_errors));
      },
      nb::arg("A"), nb::kw_only(), nb::arg("hermitian") = false, nb::arg("check_errors") = false);
  la.def(
      "ldl_factor",
      [ldl_t](const Tensor& A, bool hermitian) {
        auto [LD, pivots] = linalg_ldl_factor(A, hermitian);
        return make(ldl_t, LD, pivots);
      },
      nb::arg("A"), nb::kw_only(), nb::arg("hermitian") = false);
  la.def(
      "ldl_solve",
      [](const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
        return linalg_ldl_solve(LD, pivots, B, hermitian);
      },
      nb::arg("LD"), nb::arg("pivots"), nb::arg("B"), nb::kw_only(), nb::arg("hermitian") = false);
  la.def(
      "svd",
      [svd_t](const Tensor& A, bool full_matrices) {
        return make(svd_t, linalg_svd(A, full_matrices));
      },
      nb::arg("A"), nb::arg("full_matrices") = true);
  la.def(
      "svdvals", [](const Tensor& A) { return linalg_svdvals(A); }, nb::arg("A"));
}

}  // namespace ember::py
