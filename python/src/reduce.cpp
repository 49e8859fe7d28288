// Bindings of the reductions as functions and Tensor methods: sum, mean, prod, max, min (values
// and indices along a dim), amax, amin, argmax, argmin, all, any.
#include "init.h"

namespace ember::py {

void init_reduce(nb::module_& m) {
  def_both(
      m, "sum",
      [](const Tensor& x, std::optional<DimVector> dim, bool keepdim, std::optional<DType> dtype) {
        return dim ? sum(x, *dim, keepdim, dtype) : sum(x, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
  def_both(
      m, "mean",
      [](const Tensor& x, std::optional<DimVector> dim, bool keepdim, std::optional<DType> dtype) {
        return dim ? mean(x, *dim, keepdim, dtype) : mean(x, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
  for (const char* name : {"all", "any"}) {
    const bool is_all = name[1] == 'l';
    def_both(
        m, name,
        [is_all](const Tensor& x, std::optional<DimVector> dim, bool keepdim) {
          if (!dim) {
            EMBER_CHECK(!keepdim, "[", is_all ? "all" : "any", "] keepdim needs a dim");
            return is_all ? all(x) : any(x);
          }
          return is_all ? all(x, *dim, keepdim) : any(x, *dim, keepdim);
        },
        nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  // (values, indices) results are named tuples, as torch.return_types.max etc.
  for (const char* name : {"max", "min"}) {
    const bool is_max = name[1] == 'a';
    nb::handle type = named_pair_type(m, name);
    auto fn = [is_max, type](const Tensor& x, nb::handle dim, bool keepdim) -> nb::object {
      if (nb::isinstance<Tensor>(dim)) {  // max(input, other): the elementwise maximum
        const Tensor& o = nb::cast<const Tensor&>(dim);
        return wrap(is_max ? maximum(x, o) : minimum(x, o));
      }
      if (dim.is_none()) {
        EMBER_CHECK(!keepdim, "[", is_max ? "max" : "min", "] keepdim needs a dim");
        return wrap(is_max ? max(x) : min(x));
      }
      const int64_t d = to_int64(dim, is_max ? "max(): dim" : "min(): dim");
      auto [values, indices] = is_max ? max(x, d, keepdim) : min(x, d, keepdim);
      return type(wrap(values), wrap(indices));
    };
    def_both(m, name, fn, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  for (const char* name : {"amax", "amin"}) {
    const bool is_max = name[2] == 'a';
    def_both(
        m, name,
        [is_max](const Tensor& x, DimVector dim, bool keepdim) {
          return is_max ? amax(x, dim, keepdim) : amin(x, dim, keepdim);
        },
        nb::arg("dim") = DimVector(), nb::arg("keepdim") = false);
  }
  for (const char* name : {"argmax", "argmin"}) {
    const bool is_max = name[4] == 'a';
    def_both(
        m, name,
        [is_max](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
          return is_max ? argmax(x, dim, keepdim) : argmin(x, dim, keepdim);
        },
        nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  def_both(
      m, "prod",
      [](const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype) {
        return dim ? prod(x, *dim, keepdim, dtype) : prod(x, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
}

}  // namespace ember::py
