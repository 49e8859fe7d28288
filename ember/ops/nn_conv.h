// Neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d/3d) through oneDNN, linear
// and bilinear. PyTorch's names, arguments and defaults (at::conv2d, at::linear, ...).
#pragma once

#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// padding="same" or "valid", as in PyTorch's string overloads of conv1d/2d/3d. Made from a
// string literal or with PaddingMode::of(s), never from 0, so that conv2d(x, w, b, 1, 0) picks
// the integer overload without ambiguity.
struct PaddingMode {
  std::string_view value;
  template <size_t N>
  PaddingMode(const char (&s)[N]) : value(s, N - 1) {}
  static PaddingMode of(std::string_view s) {
    PaddingMode p("");
    p.value = s;
    return p;
  }
};

// Convolution of input [N, C, *spatial] (or unbatched [C, *spatial]) with weight
// [O, C / groups, *kernel], plus bias [O] if defined. stride, padding and dilation hold one
// value for every spatial dim or one per dim. The output is channels-last when the input or the
// weight is (4-d and 5-d tensors), as in PyTorch. float32 runs through oneDNN; float64 through
// im2col and BLAS; float16 and bfloat16 compute in float32.
Tensor conv1d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias = {},
              IntArrayRef stride = 1,
              IntArrayRef padding = 0,
              IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv2d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias = {},
              IntArrayRef stride = 1,
              IntArrayRef padding = 0,
              IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv3d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias = {},
              IntArrayRef stride = 1,
              IntArrayRef padding = 0,
              IntArrayRef dilation = 1,
              int64_t groups = 1);
// padding="valid" (none) or "same" (output as large as the input; stride 1 only). An even
// kernel extent pads one more after than before, as PyTorch does.
Tensor conv1d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              PaddingMode padding,
              IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv2d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              PaddingMode padding,
              IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv3d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              PaddingMode padding,
              IntArrayRef dilation = 1,
              int64_t groups = 1);

// Transposed convolution (the gradient of a convolution with respect to its input): input
// [N, C_in, *spatial] (or unbatched), weight [C_in, C_out / groups, *kernel], bias [C_out].
// Output size per dim: (in - 1) * stride - 2 * padding + dilation * (kernel - 1) +
// output_padding + 1; output_padding must be below stride or dilation.
Tensor conv_transpose1d(const Tensor& input,
                        const Tensor& weight,
                        const Tensor& bias = {},
                        IntArrayRef stride = 1,
                        IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0,
                        int64_t groups = 1,
                        IntArrayRef dilation = 1);
Tensor conv_transpose2d(const Tensor& input,
                        const Tensor& weight,
                        const Tensor& bias = {},
                        IntArrayRef stride = 1,
                        IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0,
                        int64_t groups = 1,
                        IntArrayRef dilation = 1);
Tensor conv_transpose3d(const Tensor& input,
                        const Tensor& weight,
                        const Tensor& bias = {},
                        IntArrayRef stride = 1,
                        IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0,
                        int64_t groups = 1,
                        IntArrayRef dilation = 1);

// input [*, in] @ weight^T [in, out] + bias [out] (weight may be 1-d [in]: then no out dim).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
// out[*, o] = sum_ij input1[*, i] weight[o, i, j] input2[*, j] + bias[o].
Tensor bilinear(const Tensor& input1,
                const Tensor& input2,
                const Tensor& weight,
                const Tensor& bias = {});

}  // namespace ember
