// Kernel slots of the complex ops (ops/complex.cpp): the parts of complex numbers and
// conjugation. The views (view_as_real, real, imag) and the composites (complex, polar, sgn) need
// no kernel.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct ComplexKernels {
  // out and in have one shape. abs: |z| into the real dtype of a complex `in` (hypot, no
  // overflow); angle: arg(z) into the real dtype, or for a real `in` pi where in < 0, 0
  // elsewhere, NaN kept (PyTorch's angle); conj: the conjugate, complex to the same dtype.
  using Unary = void (*)(const Tensor& out, const Tensor& in);

  Unary abs = nullptr;
  Unary angle = nullptr;
  Unary conj = nullptr;
};

}  // namespace ember
