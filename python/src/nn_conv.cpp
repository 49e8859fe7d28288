// Bindings of the neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d/3d) through
// oneDNN, linear and bilinear. As in PyTorch, the convolutions and bilinear are ember.<name>;
// linear exists only in nn.functional, so it lives in ember._C._nn.
#include "init.h"

namespace ember::py {
namespace {

using ConvInt = Tensor (*)(
    const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, int64_t);
using ConvMode = Tensor (*)(
    const Tensor&, const Tensor&, const Tensor&, IntArrayRef, PaddingMode, IntArrayRef, int64_t);
using ConvTranspose = Tensor (*)(const Tensor&,
                                 const Tensor&,
                                 const Tensor&,
                                 IntArrayRef,
                                 IntArrayRef,
                                 IntArrayRef,
                                 int64_t,
                                 IntArrayRef);

void def_conv(nb::module_& m, const char* name, ConvInt by_int, ConvMode by_mode) {
  m.def(
      name,
      [name, by_int, by_mode](const Tensor& input, const Tensor& weight,
                              const std::optional<Tensor>& bias, const DimVector& stride,
                              nb::handle padding, const DimVector& dilation, int64_t groups) {
        const Tensor b = or_undefined(bias);
        if (nb::isinstance<nb::str>(padding)) {
          const std::string mode = nb::cast<std::string>(padding);
          return by_mode(input, weight, b, stride, PaddingMode::of(mode), dilation, groups);
        }
        DimVector pad;
        if (!nb::try_cast<DimVector>(padding, pad)) {
          type_error(std::string("[") + name +
                     "] padding must be an int, a sequence of ints, 'same' or 'valid', got " +
                     py_type_name(padding));
        }
        return by_int(input, weight, b, stride, pad, dilation, groups);
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias").none() = nb::none(),
      nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("dilation") = 1,
      nb::arg("groups") = 1);
}

void def_conv_transpose(nb::module_& m, const char* name, ConvTranspose f) {
  m.def(
      name,
      [f](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
          const DimVector& stride, const DimVector& padding, const DimVector& output_padding,
          int64_t groups, const DimVector& dilation) {
        return f(input, weight, or_undefined(bias), stride, padding, output_padding, groups,
                 dilation);
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias").none() = nb::none(),
      nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("output_padding") = 0,
      nb::arg("groups") = 1, nb::arg("dilation") = 1);
}

}  // namespace

void init_nn_conv(nb::module_& m) {
  def_conv(m, "conv1d", &conv1d, &conv1d);
  def_conv(m, "conv2d", &conv2d, &conv2d);
  def_conv(m, "conv3d", &conv3d, &conv3d);
  def_conv_transpose(m, "conv_transpose1d", &conv_transpose1d);
  def_conv_transpose(m, "conv_transpose2d", &conv_transpose2d);
  def_conv_transpose(m, "conv_transpose3d", &conv_transpose3d);
  m.def(
      "bilinear",
      [](const Tensor& input1, const Tensor& input2, const Tensor& weight,
         const std::optional<Tensor>& bias) {
        return bilinear(input1, input2, weight, or_undefined(bias));
      },
      nb::arg("input1"), nb::arg("input2"), nb::arg("weight"), nb::arg("bias").none() = nb::none());

  // ember.backends.cpu.allow_winograd reads and writes these.
  m.def("_get_allow_winograd", &allow_winograd);
  m.def("_set_allow_winograd", &set_allow_winograd, nb::arg("allow"));

  nb::module_ nn = nn_submodule(m);
  nn.def(
      "linear",
      [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
        return linear(input, weight, or_undefined(bias));
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias").none() = nb::none());
}

}  // namespace ember::py
