// Internal to the CPU convolution kernels (nn_conv*.cpp): the sizes of one convolution padded to
// three spatial dims, and the two implementations behind the ConvKernels slots.
#pragma once

#include "ember/backend/kernels_nn_conv.h"

namespace ember::cpu::conv {

// One convolution's sizes, with missing spatial dims as size 1 (kernel 1, stride 1, pad 0), so
// the loops of the reference kernels are written once for 1, 2 and 3 dims.
struct Dims {
  int64_t spatial, n, c, o, groups, cg, og;
  int64_t in[3], out[3], k[3], stride[3], dil[3], pad[3];
  int64_t in_size, out_size, k_size;  // products over the spatial dims
};
Dims dims_of(const Tensor& x, const Tensor& w, const Tensor& y, const ConvGeometry& g);

// Element strides of a tensor as [batch, channel, d0, d1, d2] (missing spatial dims 0).
struct Strides5 {
  int64_t s[5];
};
Strides5 strides5(const Tensor& t);

// float32 through oneDNN (nn_conv_onednn.cpp). Each returns false, having written nothing, when
// oneDNN has no implementation for the case; the caller then uses the reference kernel.
bool onednn_forward(
    const Tensor& y, const Tensor& x, const Tensor& w, const Tensor* bias, const ConvGeometry& g);
bool onednn_backward_data(const Tensor& dx,
                          const Tensor& dy,
                          const Tensor& w,
                          const ConvGeometry& g);
bool onednn_backward_weight(
    const Tensor& dw, const Tensor* db, const Tensor& x, const Tensor& dy, const ConvGeometry& g);

// Any float32 or float64 convolution by im2col and BLAS (nn_conv_ref.cpp): float64, which
// oneDNN lacks, and whatever oneDNN refuses. Correct, not fast.
void ref_forward(
    const Tensor& y, const Tensor& x, const Tensor& w, const Tensor* bias, const ConvGeometry& g);
void ref_backward_data(const Tensor& dx, const Tensor& dy, const Tensor& w, const ConvGeometry& g);
void ref_backward_weight(
    const Tensor& dw, const Tensor* db, const Tensor& x, const Tensor& dy, const ConvGeometry& g);

}  // namespace ember::cpu::conv
