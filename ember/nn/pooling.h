// Pooling layers over ember's pooling ops: MaxPool1d/2d/3d, AvgPool1d/2d/3d,
// AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d.
// MaxPool2d(2) or MaxPool2d(3, {.stride = 2}).
#pragma once

#include <optional>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

struct MaxPoolOptions {
  std::optional<Ints> stride = std::nullopt;  // default: kernel_size
  Ints padding = 0;
  Ints dilation = 1;
  bool ceil_mode = false;
};

struct AvgPoolOptions {
  std::optional<Ints> stride = std::nullopt;  // default: kernel_size
  Ints padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = std::nullopt;  // AvgPool2d / AvgPool3d only
};

namespace detail {

// Sizes as given (one value or one per dim), as PyTorch's pooling layers keep and print them.
class MaxPoolBase : public Module {
 public:
  std::vector<int64_t> kernel_size, stride, padding, dilation;
  bool ceil_mode;
  std::string extra_repr() const override;

 protected:
  MaxPoolBase(const char* name, const Ints& kernel_size, const MaxPoolOptions& o);
};

class AvgPoolBase : public Module {
 public:
  std::vector<int64_t> kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
  std::string extra_repr() const override;

 protected:
  AvgPoolBase(const char* name, const Ints& kernel_size, const AvgPoolOptions& o);
};

class AdaptivePoolBase : public Module {
 public:
  std::vector<int64_t> output_size;
  std::string extra_repr() const override;

 protected:
  AdaptivePoolBase(const char* name, const Ints& output_size);
};

}  // namespace detail

#define EMBER_NN_POOL(Name, Base, Options)                                                       \
  class Name : public detail::Base {                                                             \
   public:                                                                                       \
    explicit Name(Ints kernel_size, Options options = {}) : Base(#Name, kernel_size, options) {} \
    Tensor forward(const Tensor& input) const;                                                   \
  };
EMBER_NN_POOL(MaxPool1d, MaxPoolBase, MaxPoolOptions)
EMBER_NN_POOL(MaxPool2d, MaxPoolBase, MaxPoolOptions)
EMBER_NN_POOL(MaxPool3d, MaxPoolBase, MaxPoolOptions)
EMBER_NN_POOL(AvgPool1d, AvgPoolBase, AvgPoolOptions)
EMBER_NN_POOL(AvgPool2d, AvgPoolBase, AvgPoolOptions)
EMBER_NN_POOL(AvgPool3d, AvgPoolBase, AvgPoolOptions)
#undef EMBER_NN_POOL

#define EMBER_NN_ADAPTIVE_POOL(Name)                                          \
  class Name : public detail::AdaptivePoolBase {                              \
   public:                                                                    \
    explicit Name(Ints output_size) : AdaptivePoolBase(#Name, output_size) {} \
    Tensor forward(const Tensor& input) const;                                \
  };
EMBER_NN_ADAPTIVE_POOL(AdaptiveAvgPool1d)
EMBER_NN_ADAPTIVE_POOL(AdaptiveAvgPool2d)
EMBER_NN_ADAPTIVE_POOL(AdaptiveAvgPool3d)
// Values only (PyTorch's return_indices=False).
EMBER_NN_ADAPTIVE_POOL(AdaptiveMaxPool1d)
EMBER_NN_ADAPTIVE_POOL(AdaptiveMaxPool2d)
#undef EMBER_NN_ADAPTIVE_POOL

}  // namespace ember::nn
