// Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d over ember::conv*d and
// ember::conv_transpose*d. Required sizes are constructor arguments; the rest is an options
// struct written with designated initialisers: Conv2d(1, 4, 3, {.stride = 2, .padding = 1}).
#pragma once

#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// padding: a number per dim (or one for all), or "same" / "valid" as in PyTorch.
struct ConvPadding : Ints {
  std::string mode;  // empty, "same" or "valid"
  ConvPadding(int v) : Ints(int64_t(v)) {}
  ConvPadding(int64_t v) : Ints(v) {}
  ConvPadding(std::initializer_list<int64_t> l) : Ints(l) {}
  ConvPadding(const char* s) : Ints(int64_t(0)), mode(s) {}
};

struct ConvOptions {
  Ints stride = 1;
  ConvPadding padding = 0;
  Ints dilation = 1;
  int64_t groups = 1;
  bool bias = true;
};
using Conv1dOptions = ConvOptions;
using Conv2dOptions = ConvOptions;
using Conv3dOptions = ConvOptions;

struct ConvTransposeOptions {
  Ints stride = 1;
  Ints padding = 0;
  Ints output_padding = 0;
  int64_t groups = 1;
  bool bias = true;
  Ints dilation = 1;
};
using ConvTranspose1dOptions = ConvTransposeOptions;
using ConvTranspose2dOptions = ConvTransposeOptions;
using ConvTranspose3dOptions = ConvTransposeOptions;

namespace detail {

// What every convolution layer holds: sizes expanded to one value per spatial dim (PyTorch's
// tuples), weight [out, in / groups, *k] (transposed: [in, out / groups, *k]) and bias [out].
class ConvBase : public Module {
 public:
  int64_t in_channels, out_channels;
  std::vector<int64_t> kernel_size, stride, padding, dilation, output_padding;
  std::string padding_mode;  // "same" / "valid" for string padding, else empty
  int64_t groups;
  bool transposed;
  Tensor weight, bias;

  std::string extra_repr() const override;
  // kaiming_uniform_(a = sqrt(5)) for the weight, U(+-1/sqrt(fan_in)) for the bias.
  void reset_parameters();

 protected:
  ConvBase(const char* name,
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
           bool transposed);
  void check_input(const Tensor& input) const;
  size_t dims_;
};

}  // namespace detail

class Conv1d : public detail::ConvBase {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, Ints kernel_size, ConvOptions options = {});
  Tensor forward(const Tensor& input) const;
};

class Conv2d : public detail::ConvBase {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, Ints kernel_size, ConvOptions options = {});
  Tensor forward(const Tensor& input) const;
};

class Conv3d : public detail::ConvBase {
 public:
  Conv3d(int64_t in_channels, int64_t out_channels, Ints kernel_size, ConvOptions options = {});
  Tensor forward(const Tensor& input) const;
};

class ConvTranspose1d : public detail::ConvBase {
 public:
  ConvTranspose1d(int64_t in_channels,
                  int64_t out_channels,
                  Ints kernel_size,
                  ConvTransposeOptions options = {});
  Tensor forward(const Tensor& input) const;
};

class ConvTranspose2d : public detail::ConvBase {
 public:
  ConvTranspose2d(int64_t in_channels,
                  int64_t out_channels,
                  Ints kernel_size,
                  ConvTransposeOptions options = {});
  Tensor forward(const Tensor& input) const;
};

class ConvTranspose3d : public detail::ConvBase {
 public:
  ConvTranspose3d(int64_t in_channels,
                  int64_t out_channels,
                  Ints kernel_size,
                  ConvTransposeOptions options = {});
  Tensor forward(const Tensor& input) const;
};

}  // namespace ember::nn
