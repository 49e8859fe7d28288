#include "ember/nn/pooling.h"

#include "ember/nn/repr_util.h"
#include "ember/ops/nn_pool.h"

namespace ember::nn {
namespace detail {

MaxPoolBase::MaxPoolBase(const char* name, const Ints& kernel_size, const MaxPoolOptions& o)
    : Module(name),
      kernel_size(kernel_size.values),
      stride(o.stride ? o.stride->values : kernel_size.values),
      padding(o.padding.values),
      dilation(o.dilation.values),
      ceil_mode(o.ceil_mode) {}

std::string MaxPoolBase::extra_repr() const {
  return "kernel_size=" + py_tuple(kernel_size, true) + ", stride=" + py_tuple(stride, true) +
         ", padding=" + py_tuple(padding, true) + ", dilation=" + py_tuple(dilation, true) +
         ", ceil_mode=" + py_bool(ceil_mode);
}

AvgPoolBase::AvgPoolBase(const char* name, const Ints& kernel_size, const AvgPoolOptions& o)
    : Module(name),
      kernel_size(kernel_size.values),
      stride(o.stride ? o.stride->values : kernel_size.values),
      padding(o.padding.values),
      ceil_mode(o.ceil_mode),
      count_include_pad(o.count_include_pad),
      divisor_override(o.divisor_override) {}

std::string AvgPoolBase::extra_repr() const {
  return "kernel_size=" + py_tuple(kernel_size, true) + ", stride=" + py_tuple(stride, true) +
         ", padding=" + py_tuple(padding, true);
}

AdaptivePoolBase::AdaptivePoolBase(const char* name, const Ints& output_size)
    : Module(name), output_size(output_size.values) {}

std::string AdaptivePoolBase::extra_repr() const {
  return "output_size=" + py_tuple(output_size, true);
}

}  // namespace detail

Tensor MaxPool1d::forward(const Tensor& input) const {
  return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor MaxPool2d::forward(const Tensor& input) const {
  return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor MaxPool3d::forward(const Tensor& input) const {
  return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode);
}

Tensor AvgPool1d::forward(const Tensor& input) const {
  EMBER_CHECK_VALUE(!divisor_override, "[AvgPool1d] has no divisor_override (as in PyTorch)");
  return avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad);
}
Tensor AvgPool2d::forward(const Tensor& input) const {
  return avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override);
}
Tensor AvgPool3d::forward(const Tensor& input) const {
  return avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override);
}

Tensor AdaptiveAvgPool1d::forward(const Tensor& input) const {
  return adaptive_avg_pool1d(input, output_size);
}
Tensor AdaptiveAvgPool2d::forward(const Tensor& input) const {
  return adaptive_avg_pool2d(input, output_size);
}
Tensor AdaptiveAvgPool3d::forward(const Tensor& input) const {
  return adaptive_avg_pool3d(input, output_size);
}
Tensor AdaptiveMaxPool1d::forward(const Tensor& input) const {
  return adaptive_max_pool1d(input, output_size).first;
}
Tensor AdaptiveMaxPool2d::forward(const Tensor& input) const {
  return adaptive_max_pool2d(input, output_size).first;
}

}  // namespace ember::nn
