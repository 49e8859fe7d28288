// Bindings of the statistics and norms built from the reductions: nansum, count_nonzero, var, std
// (and with the mean), logsumexp, torch.norm, and ember._C._linalg's vector_norm and matrix_norm
// (wrapped by ember.linalg).
#include "init.h"

namespace ember::py {

void init_statistics(nb::module_& m) {
  def_both(
      m, "nansum",
      [](const Tensor& x, std::optional<DimVector> dim, bool keepdim, std::optional<DType> dtype) {
        return nansum(x, dim ? IntArrayRef(*dim) : IntArrayRef(), keepdim, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
  def_both(
      m, "count_nonzero",
      [](const Tensor& x, std::optional<DimVector> dim) {
        return count_nonzero(x, dim ? IntArrayRef(*dim) : IntArrayRef());
      },
      nb::arg("dim") = nb::none());
  // var / std (and with the mean): PyTorch's correction, or the older unbiased flag.
  auto correction_of = [](std::optional<bool> unbiased, std::optional<double> correction) {
    EMBER_CHECK(!(unbiased && correction),
                "[var] cannot specify both the unbiased and correction arguments");
    return correction ? *correction : (unbiased.value_or(true) ? 1.0 : 0.0);
  };
  for (const char* name : {"var", "std", "var_mean", "std_mean"}) {
    const std::string n = name;
    def_both(
        m, name,
        [n, correction_of](const Tensor& x, nb::handle dim_or_unbiased,
                           std::optional<bool> unbiased, bool keepdim,
                           std::optional<double> correction) -> nb::object {
          std::optional<DimVector> dim;
          if (PyBool_Check(dim_or_unbiased.ptr())) {  // var(x, unbiased)
            unbiased = nb::cast<bool>(dim_or_unbiased);
          } else if (!dim_or_unbiased.is_none()) {
            dim = arg_cast<DimVector>(dim_or_unbiased, "dim", "an int or a tuple of ints");
          }
          const double c = correction_of(unbiased, correction);
          if (n == "var") return wrap(var(x, dim, c, keepdim));
          if (n == "std") return wrap(ember::std(x, dim, c, keepdim));
          auto [a, b] =
              n == "var_mean" ? var_mean(x, dim, c, keepdim) : std_mean(x, dim, c, keepdim);
          return nb::make_tuple(wrap(a), wrap(b));
        },
        nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false,
        nb::kw_only(), nb::arg("correction") = nb::none());
  }
  def_both(
      m, "logsumexp",
      [](const Tensor& x, DimVector dim, bool keepdim) { return logsumexp(x, dim, keepdim); },
      nb::arg("dim"), nb::arg("keepdim") = false);
  // torch.norm: p a number, "fro" (the 2-norm over the given dims) or "nuc" (not yet).
  def_both(
      m, "norm",
      [](const Tensor& x, nb::handle p, std::optional<DimVector> dim, bool keepdim,
         std::optional<DType> dtype) {
        const IntArrayRef dims = dim ? IntArrayRef(*dim) : IntArrayRef();
        double ord = 2;
        if (nb::isinstance<nb::str>(p)) {
          const std::string s = nb::cast<std::string>(p);
          EMBER_CHECK_KIND(ErrorKind::NotImplemented, s != "nuc",
                           "[norm] p='nuc' needs a singular value decomposition, which ember "
                           "does not have yet");
          EMBER_CHECK_VALUE(s == "fro", "[norm] unknown p '", s,
                            "' (use a number, 'fro' or 'nuc')");
        } else if (!p.is_none()) {
          ord = arg_cast<double>(p, "norm(): p", "a number or a string");
        }
        return linalg_vector_norm(x, ord, dims, keepdim, dtype);
      },
      nb::arg("p") = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      nb::arg("dtype") = nb::none());
  nb::module_ linalg = m.def_submodule("_linalg", "ember.linalg's C++ functions");
  linalg.def(
      "vector_norm",
      [](const Tensor& x, double ord, std::optional<DimVector> dim, bool keepdim,
         std::optional<DType> dtype) {
        return linalg_vector_norm(x, ord, dim ? IntArrayRef(*dim) : IntArrayRef(), keepdim, dtype);
      },
      nb::arg("x"), nb::arg("ord") = 2, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      nb::kw_only(), nb::arg("dtype") = nb::none());
  linalg.def(
      "matrix_norm",
      [](const Tensor& a, nb::handle ord, DimVector dim, bool keepdim) {
        if (nb::isinstance<nb::str>(ord)) {
          return linalg_matrix_norm(a, nb::cast<std::string>(ord), dim, keepdim);
        }
        return linalg_matrix_norm(
            a, arg_cast<double>(ord, "matrix_norm(): ord", "a number or a string"), dim, keepdim);
      },
      nb::arg("A"), nb::arg("ord") = "fro", nb::arg("dim") = DimVector{-2, -1},
      nb::arg("keepdim") = false);
}

}  // namespace ember::py
