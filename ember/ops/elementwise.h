// Elementwise ops with broadcasting and PyTorch's type promotion (lists in elementwise_ops.h).
#pragma once

#include "ember/core/tensor.h"
#include "ember/ops/elementwise_ops.h"

namespace ember {

#define EMBER_DECLARE_UNARY(name, ...) Tensor name(const Tensor& x);
EMBER_UNARY_OPS(EMBER_DECLARE_UNARY)
#undef EMBER_DECLARE_UNARY

// Each binary op takes tensors or scalars on either side; scalars are weak in promotion.
#define EMBER_DECLARE_BINARY(name, ...)          \
  Tensor name(const Tensor& a, const Tensor& b); \
  Tensor name(const Tensor& a, const Scalar& b); \
  Tensor name(const Scalar& a, const Tensor& b);
EMBER_BINARY_OPS(EMBER_DECLARE_BINARY)
EMBER_COMPARE_OPS(EMBER_DECLARE_BINARY)
#undef EMBER_DECLARE_BINARY

// cond ? a : b elementwise, with broadcasting; a and b promote as a binary op's operands.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b);

// a + alpha * b, a - alpha * b.
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha);

// The dtype PyTorch gives a op b: dimensioned tensors outrank 0-d tensors, which outrank
// scalars, unless a lower-ranked operand is of a higher category (bool < integer < float).
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, const Scalar& b);

// In place: self = self op other; the result dtype must be castable to self's dtype.
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& add_(Tensor& self, const Scalar& other);
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& sub_(Tensor& self, const Scalar& other);
Tensor& mul_(Tensor& self, const Tensor& other);
Tensor& mul_(Tensor& self, const Scalar& other);
Tensor& div_(Tensor& self, const Tensor& other);
Tensor& div_(Tensor& self, const Scalar& other);
Tensor& zero_(Tensor& self);
Tensor& fill_(Tensor& self, const Scalar& value);
// Raises if `value` does not fit `dtype` (fill_ and full store it; arithmetic wraps instead).
void check_fill_value(const Scalar& value, DType dtype, const char* op);
Tensor& copy_(Tensor& self, const Tensor& src);

namespace detail {
Tensor pow_base_grad(const Tensor& g, const Tensor& a, const Tensor& b);
Tensor pow_exponent_grad(const Tensor& g, const Tensor& a, const Tensor& b, const Tensor& out);
}  // namespace detail

}  // namespace ember
