#include "ember/nn/padding.h"

#include <string_view>

#include "ember/nn/repr_util.h"
#include "ember/ops/shape.h"

namespace ember::nn::detail {

PadBase::PadBase(const char* name, size_t dims, const Ints& padding, std::string mode, double value)
    : Module(name),
      padding(padding.expand(2 * dims, name, "padding")),
      mode(std::move(mode)),
      value(value),
      dims_(dims) {}

Tensor PadBase::forward(const Tensor& input) const {
  const int64_t d = int64_t(dims_);
  EMBER_CHECK_VALUE(input.dim() == d + 1 || input.dim() == d + 2, "[", type_name(), "] expected ",
                    d + 1, "D or ", d + 2, "D input, got ", input.dim(), "D");
  return pad(input, padding, mode, value);
}

std::string PadBase::extra_repr() const {
  // ConstantPad prints its value; the others only the padding tuple.
  if (std::string_view(type_name()).starts_with("ConstantPad"))
    return "padding=" + py_tuple(padding) + ", value=" + py_float(value);
  return py_tuple(padding);
}

}  // namespace ember::nn::detail
