// Padding layers over ember::pad: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad and
// CircularPad in 1d/2d/3d. `padding` is one value for every side or PyTorch's list of
// (before, after) pairs from the last dim backwards: ZeroPad2d({1, 1, 2, 0}).
#pragma once

#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

namespace detail {

class PadBase : public Module {
 public:
  std::vector<int64_t> padding;  // 2 * dims values
  std::string mode;
  double value;
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

 protected:
  PadBase(const char* name, size_t dims, const Ints& padding, std::string mode, double value);
  size_t dims_;
};

}  // namespace detail

#define EMBER_NN_PAD(Name, dims, mode)                                        \
  class Name : public detail::PadBase {                                       \
   public:                                                                    \
    explicit Name(Ints padding) : PadBase(#Name, dims, padding, mode, 0.0) {} \
  };
EMBER_NN_PAD(ZeroPad1d, 1, "constant")
EMBER_NN_PAD(ZeroPad2d, 2, "constant")
EMBER_NN_PAD(ZeroPad3d, 3, "constant")
EMBER_NN_PAD(ReflectionPad1d, 1, "reflect")
EMBER_NN_PAD(ReflectionPad2d, 2, "reflect")
EMBER_NN_PAD(ReflectionPad3d, 3, "reflect")
EMBER_NN_PAD(ReplicationPad1d, 1, "replicate")
EMBER_NN_PAD(ReplicationPad2d, 2, "replicate")
EMBER_NN_PAD(ReplicationPad3d, 3, "replicate")
EMBER_NN_PAD(CircularPad1d, 1, "circular")
EMBER_NN_PAD(CircularPad2d, 2, "circular")
EMBER_NN_PAD(CircularPad3d, 3, "circular")
#undef EMBER_NN_PAD

#define EMBER_NN_CONSTANT_PAD(Name, dims)                                                  \
  class Name : public detail::PadBase {                                                    \
   public:                                                                                 \
    Name(Ints padding, double value) : PadBase(#Name, dims, padding, "constant", value) {} \
  };
EMBER_NN_CONSTANT_PAD(ConstantPad1d, 1)
EMBER_NN_CONSTANT_PAD(ConstantPad2d, 2)
EMBER_NN_CONSTANT_PAD(ConstantPad3d, 3)
#undef EMBER_NN_CONSTANT_PAD

}  // namespace ember::nn
