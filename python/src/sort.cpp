// Sorting and selection as functions and Tensor methods (ember/ops/sort.h), with
// PyTorch's argument names. (values, indices) results are named tuples, as
// torch.return_types.sort etc.; the module owns the types (ember._C._<name>_type).
#include "init.h"

namespace ember::py {
namespace {

// unique's result: the values alone, or a tuple with the inverse and counts asked for.
nb::object unique_result(const std::tuple<Tensor, Tensor, Tensor>& r, bool inverse, bool counts) {
  if (!inverse && !counts) return wrap(std::get<0>(r));
  nb::list out;
  out.append(wrap(std::get<0>(r)));
  if (inverse) out.append(wrap(std::get<1>(r)));
  if (counts) out.append(wrap(std::get<2>(r)));
  return nb::tuple(out);
}

}  // namespace

void init_sort(nb::module_& m) {
  nb::handle sort_t = named_pair_type(m, "sort");
  def_both(
      m, "sort",
      [sort_t](const Tensor& x, int64_t dim, bool descending, std::optional<bool> stable) {
        return named_pair(sort_t, sort(x, dim, descending, stable.value_or(false)));
      },
      nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(),
      nb::arg("stable").none() = nb::none());
  def_both(
      m, "argsort",
      [](const Tensor& x, int64_t dim, bool descending, bool stable) {
        return argsort(x, dim, descending, stable);
      },
      nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("stable") = false);

  nb::handle topk_t = named_pair_type(m, "topk");
  def_both(
      m, "topk",
      [topk_t](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
        return named_pair(topk_t, topk(x, k, dim, largest, sorted));
      },
      nb::arg("k"), nb::arg("dim") = -1, nb::arg("largest") = true, nb::arg("sorted") = true);
  nb::handle kth_t = named_pair_type(m, "kthvalue");
  def_both(
      m, "kthvalue",
      [kth_t](const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
        return named_pair(kth_t, kthvalue(x, k, dim, keepdim));
      },
      nb::arg("k"), nb::arg("dim") = -1, nb::arg("keepdim") = false);
  for (const char* name : {"median", "nanmedian"}) {
    const bool nan = name[0] == 'n';
    nb::handle type = named_pair_type(m, name);
    def_both(
        m, name,
        [nan, type, name](const Tensor& x, std::optional<int64_t> dim, bool keepdim) -> nb::object {
          if (!dim) {
            EMBER_CHECK(!keepdim, "[", name, "] keepdim needs a dim");
            return wrap(nan ? nanmedian(x) : median(x));
          }
          return named_pair(type, nan ? nanmedian(x, *dim, keepdim) : median(x, *dim, keepdim));
        },
        nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }

  def_both(
      m, "unique",
      [](const Tensor& x, bool sorted, bool return_inverse, bool return_counts,
         std::optional<int64_t> dim) {
        return unique_result(unique(x, sorted, return_inverse, return_counts, dim), return_inverse,
                             return_counts);
      },
      nb::arg("sorted") = true, nb::arg("return_inverse") = false, nb::arg("return_counts") = false,
      nb::arg("dim") = nb::none());
  def_both(
      m, "unique_consecutive",
      [](const Tensor& x, bool return_inverse, bool return_counts, std::optional<int64_t> dim) {
        return unique_result(unique_consecutive(x, return_inverse, return_counts, dim),
                             return_inverse, return_counts);
      },
      nb::arg("return_inverse") = false, nb::arg("return_counts") = false,
      nb::arg("dim") = nb::none());
}

}  // namespace ember::py
