// Bindings of the pooling ops: max, average, adaptive, unpool. Ops PyTorch has as torch.<name> are
// ember.<name>; those it has only in torch.nn.functional are in ember._C._nn (torch._C._nn's
// names), wrapped by ember/nn/functional/pool.py.
#include "init.h"

namespace ember::py {
namespace {

nb::tuple pair_of(const std::pair<Tensor, Tensor>& p) {
  return nb::make_tuple(wrap(p.first), wrap(p.second));
}

// A stride argument: None or [] means "the kernel size".
DimVector stride_or_empty(const std::optional<DimVector>& s) { return s.value_or(DimVector{}); }

}  // namespace

void init_nn_pool(nb::module_& m) {
  nb::module_ nn = nn_submodule(m);

  // ---- max pooling: torch.max_pool{1,2,3}d and torch.max_pool1d_with_indices -----------------
  using MaxFn = Tensor (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
  using MaxIdxFn = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, IntArrayRef,
                                                 IntArrayRef, IntArrayRef, bool);
  auto def_max = [](nb::module_& mod, const char* name, auto fn) {
    mod.def(
        name,
        [fn](const Tensor& x, DimVector k, std::optional<DimVector> stride, DimVector padding,
             DimVector dilation, bool ceil_mode) {
          if constexpr (std::is_same_v<decltype(fn), MaxIdxFn>) {
            return pair_of(fn(x, k, stride_or_empty(stride), padding, dilation, ceil_mode));
          } else {
            return fn(x, k, stride_or_empty(stride), padding, dilation, ceil_mode);
          }
        },
        nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride").none() = nb::none(),
        nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("ceil_mode") = false);
  };
  def_max(m, "max_pool1d", MaxFn(&max_pool1d));
  def_max(m, "max_pool2d", MaxFn(&max_pool2d));
  def_max(m, "max_pool3d", MaxFn(&max_pool3d));
  def_max(m, "max_pool1d_with_indices", MaxIdxFn(&max_pool1d_with_indices));
  def_max(nn, "max_pool2d_with_indices", MaxIdxFn(&max_pool2d_with_indices));
  def_max(nn, "max_pool3d_with_indices", MaxIdxFn(&max_pool3d_with_indices));

  nn.def(
      "max_unpool2d",
      [](const Tensor& x, const Tensor& indices, DimVector k, std::optional<DimVector> stride,
         DimVector padding, std::optional<DimVector> output_size) {
        return max_unpool2d(x, indices, k, stride_or_empty(stride), padding,
                            output_size.value_or(DimVector{}));
      },
      nb::arg("input"), nb::arg("indices"), nb::arg("kernel_size"),
      nb::arg("stride").none() = nb::none(), nb::arg("padding") = 0,
      nb::arg("output_size").none() = nb::none());

  // ---- average pooling: torch.avg_pool1d, torch._C._nn.avg_pool{2,3}d ------------------------
  m.def(
      "avg_pool1d",
      [](const Tensor& x, DimVector k, std::optional<DimVector> stride, DimVector padding,
         bool ceil_mode, bool count_include_pad) {
        return avg_pool1d(x, k, stride_or_empty(stride), padding, ceil_mode, count_include_pad);
      },
      nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride").none() = nb::none(),
      nb::arg("padding") = 0, nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true);
  using AvgFn = Tensor (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool,
                           std::optional<int64_t>);
  for (auto [name, fn] : {std::pair<const char*, AvgFn>{"avg_pool2d", &avg_pool2d},
                          std::pair<const char*, AvgFn>{"avg_pool3d", &avg_pool3d}}) {
    nn.def(
        name,
        [fn](const Tensor& x, DimVector k, std::optional<DimVector> stride, DimVector padding,
             bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
          return fn(x, k, stride_or_empty(stride), padding, ceil_mode, count_include_pad,
                    divisor_override);
        },
        nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride").none() = nb::none(),
        nb::arg("padding") = 0, nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true,
        nb::arg("divisor_override").none() = nb::none());
  }

  // ---- adaptive pooling ----------------------------------------------------------------------
  m.def(
      "adaptive_avg_pool1d",
      [](const Tensor& x, DimVector size) { return adaptive_avg_pool1d(x, size); },
      nb::arg("input"), nb::arg("output_size"));
  nn.def(
      "adaptive_avg_pool2d",
      [](const Tensor& x, DimVector size) { return adaptive_avg_pool2d(x, size); },
      nb::arg("input"), nb::arg("output_size"));
  nn.def(
      "adaptive_avg_pool3d",
      [](const Tensor& x, DimVector size) { return adaptive_avg_pool3d(x, size); },
      nb::arg("input"), nb::arg("output_size"));
  m.def(
      "adaptive_max_pool1d",
      [](const Tensor& x, DimVector size) { return pair_of(adaptive_max_pool1d(x, size)); },
      nb::arg("input"), nb::arg("output_size"));
  nn.def(
      "adaptive_max_pool2d",
      [](const Tensor& x, DimVector size) { return pair_of(adaptive_max_pool2d(x, size)); },
      nb::arg("input"), nb::arg("output_size"));
}

}  // namespace ember::py
