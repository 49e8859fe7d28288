// Scans as functions and Tensor methods (ember/ops/scan.h): cumsum, cumprod, logcumsumexp,
// cummax and cummin, with PyTorch's argument names; cummax and cummin return named tuples, as
// torch.return_types.cummax.
#include "init.h"

namespace ember::py {

void init_scan(nb::module_& m) {
  def_both(
      m, "cumsum",
      [](const Tensor& x, int64_t dim, std::optional<DType> dtype) {
        return cumsum(x, dim, dtype);
      },
      nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
  def_both(
      m, "cumprod",
      [](const Tensor& x, int64_t dim, std::optional<DType> dtype) {
        return cumprod(x, dim, dtype);
      },
      nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
  for (const char* name : {"cummax", "cummin"}) {
    const bool is_max = name[4] == 'a';
    nb::handle type = named_pair_type(m, name);
    def_both(
        m, name,
        [is_max, type](const Tensor& x, int64_t dim) {
          return named_pair(type, is_max ? cummax(x, dim) : cummin(x, dim));
        },
        nb::arg("dim"));
  }
  def_both(
      m, "logcumsumexp", [](const Tensor& x, int64_t dim) { return logcumsumexp(x, dim); },
      nb::arg("dim"));
}

}  // namespace ember::py
