#include "ember/nn/conv.h"

#include <cmath>

#include "ember/nn/init.h"
#include "ember/nn/repr_util.h"
#include "ember/ops/creation.h"
#include "ember/ops/nn_conv.h"

namespace ember::nn {
namespace detail {

ConvBase::ConvBase(const char* name,
                   size_t dims,
                   int64_t in_channels,
                   int64_t out_channels,
                   const Ints& kernel_size,
                   const Ints& stride,
                   const Ints& padding,
                   const std::string& padding_mode,
                   const Ints& dilation,
                   const Ints& output_padding,
                   int64_t groups,
                   bool bias,
                   bool transposed)
    : Module(name),
      in_channels(in_channels),
      out_channels(out_channels),
      kernel_size(kernel_size.expand(dims, name, "kernel_size")),
      stride(stride.expand(dims, name, "stride")),
      padding(padding.expand(dims, name, "padding")),
      dilation(dilation.expand(dims, name, "dilation")),
      output_padding(output_padding.expand(dims, name, "output_padding")),
      padding_mode(padding_mode),
      groups(groups),
      transposed(transposed),
      dims_(dims) {
  EMBER_CHECK_VALUE(groups > 0, "[", name, "] groups must be a positive integer, got ", groups);
  EMBER_CHECK_VALUE(in_channels % groups == 0, "[", name,
                    "] in_channels must be divisible by groups, got ", in_channels, " and ",
                    groups);
  EMBER_CHECK_VALUE(out_channels % groups == 0, "[", name,
                    "] out_channels must be divisible by groups, got ", out_channels, " and ",
                    groups);
  EMBER_CHECK_VALUE(
      this->padding_mode.empty() || this->padding_mode == "same" || this->padding_mode == "valid",
      "[", name, "] padding must be a number, \"same\" or \"valid\", got \"", padding_mode, "\"");
  // Built by push_back: GCC 12 flags vector::insert here with a false -Wstringop-overflow.
  std::vector<int64_t> shape;
  shape.reserve(dims + 2);
  shape.push_back(transposed ? in_channels : out_channels);
  shape.push_back(transposed ? out_channels / groups : in_channels / groups);
  for (int64_t k : this->kernel_size) shape.push_back(k);
  weight = register_parameter("weight", ember::empty(IntArrayRef(shape)));
  this->bias = register_parameter("bias", bias ? empty({out_channels}) : Tensor());
  reset_parameters();
}

void ConvBase::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

void ConvBase::check_input(const Tensor& input) const {
  const int64_t d = int64_t(dims_);
  EMBER_CHECK(input.dim() == d + 1 || input.dim() == d + 2, "[", type_name(), "] expected a ",
              d + 1, "-D (unbatched) or ", d + 2, "-D (batched) input, got ", input.dim(), "-D");
}

std::string ConvBase::extra_repr() const {
  // PyTorch's _ConvNd.extra_repr: non-default settings only, stride always.
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + py_tuple(kernel_size) + ", stride=" + py_tuple(stride);
  if (!padding_mode.empty()) {
    s += ", padding=" + padding_mode;
  } else if (padding != std::vector<int64_t>(dims_, 0)) {
    s += ", padding=" + py_tuple(padding);
  }
  if (dilation != std::vector<int64_t>(dims_, 1)) s += ", dilation=" + py_tuple(dilation);
  if (output_padding != std::vector<int64_t>(dims_, 0))
    s += ", output_padding=" + py_tuple(output_padding);
  if (groups != 1) s += ", groups=" + std::to_string(groups);
  if (!bias.defined()) s += ", bias=False";
  return s;
}

}  // namespace detail

#define EMBER_CONV_CTOR(Name, dims)                                                        \
  Name::Name(int64_t in_channels, int64_t out_channels, Ints kernel_size, ConvOptions o)   \
      : ConvBase(#Name, dims, in_channels, out_channels, kernel_size, o.stride, o.padding, \
                 o.padding.mode, o.dilation, Ints(int64_t(0)), o.groups, o.bias, false) {}
EMBER_CONV_CTOR(Conv1d, 1)
EMBER_CONV_CTOR(Conv2d, 2)
EMBER_CONV_CTOR(Conv3d, 3)
#undef EMBER_CONV_CTOR

// Each layer calls its own op: the string overload for "same" / "valid" padding.
#define EMBER_CONV_FORWARD(Name, op)                                                           \
  Tensor Name::forward(const Tensor& input) const {                                            \
    check_input(input);                                                                        \
    if (!padding_mode.empty())                                                                 \
      return op(input, weight, bias, stride, PaddingMode::of(padding_mode), dilation, groups); \
    return op(input, weight, bias, stride, padding, dilation, groups);                         \
  }
EMBER_CONV_FORWARD(Conv1d, conv1d)
EMBER_CONV_FORWARD(Conv2d, conv2d)
EMBER_CONV_FORWARD(Conv3d, conv3d)
#undef EMBER_CONV_FORWARD

ConvTranspose1d::ConvTranspose1d(int64_t in_channels,
                                 int64_t out_channels,
                                 Ints kernel_size,
                                 ConvTransposeOptions o)
    : ConvBase("ConvTranspose1d",
               1,
               in_channels,
               out_channels,
               kernel_size,
               o.stride,
               o.padding,
               "",
               o.dilation,
               o.output_padding,
               o.groups,
               o.bias,
               true) {}

ConvTranspose2d::ConvTranspose2d(int64_t in_channels,
                                 int64_t out_channels,
                                 Ints kernel_size,
                                 ConvTransposeOptions o)
    : ConvBase("ConvTranspose2d",
               2,
               in_channels,
               out_channels,
               kernel_size,
               o.stride,
               o.padding,
               "",
               o.dilation,
               o.output_padding,
               o.groups,
               o.bias,
               true) {}

ConvTranspose3d::ConvTranspose3d(int64_t in_channels,
                                 int64_t out_channels,
                                 Ints kernel_size,
                                 ConvTransposeOptions o)
    : ConvBase("ConvTranspose3d",
               3,
               in_channels,
               out_channels,
               kernel_size,
               o.stride,
               o.padding,
               "",
               o.dilation,
               o.output_padding,
               o.groups,
               o.bias,
               true) {}

Tensor ConvTranspose3d::forward(const Tensor& input) const {
  check_input(input);
  return conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}

Tensor ConvTranspose1d::forward(const Tensor& input) const {
  check_input(input);
  return conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}

Tensor ConvTranspose2d::forward(const Tensor& input) const {
  check_input(input);
  return conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation);
}

}  // namespace ember::nn
