// Kernel slots of the convolutions (ops/nn_conv.cpp): conv1d/2d/3d and conv_transpose1d/2d/3d,
// through oneDNN; linear and bilinear are composites of the matrix products.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

// The geometry of one convolution y = conv(x, w): x [N, C, *in] and w [O, C / groups, *k] give
// y [N, O, *out], for 1 to 3 spatial dims. pad_l is the padding before each spatial dim; the
// padding after it follows from the sizes (out = (in + pad_l + pad_r - dilation * (k - 1) - 1)
// / stride + 1), so 'same' padding with an even kernel and a transposed convolution's
// output_padding need no field of their own. Transposed convolutions are backward_data.
struct ConvGeometry {
  int64_t spatial = 2;
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t pad_l[3] = {0, 0, 0};
  int64_t groups = 1;
};

// Contract of the three slots: tensors of one dtype (float32 or float64), sizes consistent with
// the geometry, none empty (the op handles empty tensors), with any positive strides (NCHW,
// channels-last, strided views); outputs are written whole, in their own strides.
struct ConvKernels {
  // y = conv(x, w) + bias (bias: [O] contiguous, or null).
  using Forward = void (*)(
      const Tensor& y, const Tensor& x, const Tensor& w, const Tensor* bias, const ConvGeometry& g);
  // dx = the gradient of sum(dy * conv(x, w)) with respect to x: the transposed convolution of dy.
  using BackwardData = void (*)(const Tensor& dx,
                                const Tensor& dy,
                                const Tensor& w,
                                const ConvGeometry& g);
  // dw = the gradient of sum(dy * conv(x, w)) with respect to w; db (if not null, [O]
  // contiguous) = dy summed over the batch and spatial dims.
  using BackwardWeight = void (*)(
      const Tensor& dw, const Tensor* db, const Tensor& x, const Tensor& dy, const ConvGeometry& g);

  Forward forward = nullptr;
  BackwardData backward_data = nullptr;
  BackwardWeight backward_weight = nullptr;
};

}  // namespace ember
