// Complex tensors' own ops: the parts of a complex number, conjugation, and the views between a
// complex tensor and pairs of reals. Arithmetic, exp, log, matmul, sum and the rest take complex
// tensors through their own topics (their registry records list the complex dtypes).
#pragma once

#include "ember/core/tensor.h"

namespace ember {

// A complex tensor's storage seen as (real, imag) pairs: shape (..., 2) of the real dtype. A view.
Tensor view_as_real(const Tensor& self);
// The reverse: a float32/float64 tensor whose last dim has size 2 and stride 1 (and whose other
// strides and offset are even) seen as complex64/complex128. A view.
Tensor view_as_complex(const Tensor& self);
// The real and imaginary parts of a complex tensor, as views; real of a real tensor is itself,
// imag of one raises (as PyTorch).
Tensor real(const Tensor& self);
Tensor imag(const Tensor& self);
// The complex conjugate: a real tensor itself, a complex one a new tensor (PyTorch marks a lazy
// conj bit instead; ember copies, so is_conj() is always false).
Tensor conj(const Tensor& self);
Tensor conj_physical(const Tensor& self);
// arg(z), in the real dtype; for real input pi where x < 0 and 0 elsewhere (integers become the
// default float dtype).
Tensor angle(const Tensor& self);
// z / |z| (0 where z == 0); sign(x) for real input.
Tensor sgn(const Tensor& self);
// real + i imag and abs * (cos(angle) + i sin(angle)): float32/float64 inputs of one dtype,
// broadcast together.
Tensor complex(const Tensor& real, const Tensor& imag);
Tensor polar(const Tensor& abs, const Tensor& angle);

namespace detail {
// |z| of a complex tensor in its real dtype, with its gradient g * z / |z| (0 at 0): abs() of a
// complex tensor.
Tensor complex_abs(const Tensor& self);
}  // namespace detail

}  // namespace ember
