// Kernel slots of the discrete Fourier transforms (ops/fft.cpp): complex-to-complex,
// real-to-complex and complex-to-real, over every dim of a batch of signals but the first.
//
// `in` and `out` are contiguous [B, n_1, ..., n_k] tensors (1 <= k <= 3): B signals transformed
// independently over their k dims. Complex tensors are complex64 or complex128, real ones the
// matching float32 or float64. The result is multiplied by `scale` (1, 1/n or 1/sqrt(n), from
// the op's norm=). The kernels never write to `in`.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct FftKernels {
  // out[b] = scale * sum_j in[b, j] exp(-+2 pi i <j, m / n>): the minus sign when forward.
  using C2C = void (*)(const Tensor& out, const Tensor& in, bool forward, double scale);
  // The forward transform of real signals `in`, keeping the non-redundant half of the last dim:
  // out has in's shape but n_k / 2 + 1 there (the rest is the conjugate of what is kept).
  using R2C = void (*)(const Tensor& out, const Tensor& in, double scale);
  // The inverse (backward-sign) transform of a Hermitian-symmetric signal stored as that half:
  // `out` (real) has the signal's full sizes, `in` n_k / 2 + 1 in the last dim. The imaginary
  // parts that symmetry makes zero are ignored.
  using C2R = void (*)(const Tensor& out, const Tensor& in, double scale);

  C2C c2c = nullptr;
  R2C r2c = nullptr;
  C2R c2r = nullptr;
};

}  // namespace ember
