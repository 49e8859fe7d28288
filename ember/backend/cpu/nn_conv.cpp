// CPU kernels of the convolutions: float32 through oneDNN (nn_conv_onednn.cpp), float64 and
// whatever oneDNN refuses through im2col and BLAS (nn_conv_ref.cpp). linear and bilinear are
// composites of the matrix products and need no kernel of their own.
#include "ember/backend/cpu/nn_conv.h"

#include "ember/backend/cpu/register.h"

namespace ember::cpu {
namespace {

void forward_kernel(
    const Tensor& y, const Tensor& x, const Tensor& w, const Tensor* bias, const ConvGeometry& g) {
  if (x.dtype() == kFloat32 && conv::onednn_forward(y, x, w, bias, g)) return;
  conv::ref_forward(y, x, w, bias, g);
}

void backward_data_kernel(const Tensor& dx,
                          const Tensor& dy,
                          const Tensor& w,
                          const ConvGeometry& g) {
  if (dy.dtype() == kFloat32 && conv::onednn_backward_data(dx, dy, w, g)) return;
  conv::ref_backward_data(dx, dy, w, g);
}

void backward_weight_kernel(
    const Tensor& dw, const Tensor* db, const Tensor& x, const Tensor& dy, const ConvGeometry& g) {
  if (x.dtype() == kFloat32 && conv::onednn_backward_weight(dw, db, x, dy, g)) return;
  conv::ref_backward_weight(dw, db, x, dy, g);
}

const ConvKernels kConvKernels{&forward_kernel, &backward_data_kernel, &backward_weight_kernel};

}  // namespace

void register_nn_conv(KernelTable& t) { t.nn_conv = &kConvKernels; }

}  // namespace ember::cpu
