// Bindings of the resampling ops: interpolate and unfold/fold (im2col/col2im) in ember._C._nn
// (torch._C._nn's names), wrapped by ember/nn/functional/resample.py, and pixel_shuffle /
// pixel_unshuffle as ember.<name>, as in PyTorch.
#include "init.h"

namespace ember::py {

void init_nn_resample(nb::module_& m) {
  nb::module_ nn = nn_submodule(m);
  nn.def(
      "interpolate",
      [](const Tensor& x, std::optional<std::vector<int64_t>> size,
         std::optional<std::vector<double>> scale_factor, std::string_view mode,
         std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor,
         bool antialias) {
        return interpolate(x, std::move(size), std::move(scale_factor), mode, align_corners,
                           recompute_scale_factor, antialias);
      },
      nb::arg("input"), nb::arg("size").none() = nb::none(),
      nb::arg("scale_factor").none() = nb::none(), nb::arg("mode") = "nearest",
      nb::arg("align_corners").none() = nb::none(),
      nb::arg("recompute_scale_factor").none() = nb::none(), nb::arg("antialias") = false);
  m.def(
      "pixel_shuffle", [](const Tensor& x, int64_t r) { return pixel_shuffle(x, r); },
      nb::arg("input"), nb::arg("upscale_factor"));
  m.def(
      "pixel_unshuffle", [](const Tensor& x, int64_t r) { return pixel_unshuffle(x, r); },
      nb::arg("input"), nb::arg("downscale_factor"));
  nn.def(
      "im2col",
      [](const Tensor& x, DimVector k, DimVector dilation, DimVector padding, DimVector stride) {
        return im2col(x, k, dilation, padding, stride);
      },
      nb::arg("input"), nb::arg("kernel_size"), nb::arg("dilation") = 1, nb::arg("padding") = 0,
      nb::arg("stride") = 1);
  nn.def(
      "col2im",
      [](const Tensor& x, DimVector output_size, DimVector k, DimVector dilation, DimVector padding,
         DimVector stride) { return col2im(x, output_size, k, dilation, padding, stride); },
      nb::arg("input"), nb::arg("output_size"), nb::arg("kernel_size"), nb::arg("dilation") = 1,
      nb::arg("padding") = 0, nb::arg("stride") = 1);
}

}  // namespace ember::py
