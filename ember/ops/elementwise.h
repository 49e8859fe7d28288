// Elementwise ops with broadcasting and PyTorch's type promotion (lists in elementwise_ops.h).
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "ember/core/elementwise_ops.h"
#include "ember/core/tensor.h"

namespace ember {

// Each unary op and its in-place form (x.exp_()); the in-place form refuses results that self's
// dtype cannot hold (an integer tensor's exp_).
#define EMBER_DECLARE_UNARY(name, ...) \
  Tensor name(const Tensor& x);        \
  Tensor& name##_(Tensor& self);
EMBER_UNARY_OPS(EMBER_DECLARE_UNARY)
#undef EMBER_DECLARE_UNARY

// Predicates: a bool tensor of x's shape (and, for fn_inplace ones, x.name_()).
#define EMBER_DECLARE_PREDICATE_fn(name) Tensor name(const Tensor& x);
#define EMBER_DECLARE_PREDICATE_fn_inplace(name) \
  EMBER_DECLARE_PREDICATE_fn(name) Tensor& name##_(Tensor& self);
#define EMBER_DECLARE_PREDICATE(name, F, form) EMBER_DECLARE_PREDICATE_##form(name)
EMBER_PREDICATE_OPS(EMBER_DECLARE_PREDICATE)
#undef EMBER_DECLARE_PREDICATE
#undef EMBER_DECLARE_PREDICATE_fn_inplace
#undef EMBER_DECLARE_PREDICATE_fn

// The unary ops with parameters (EMBER_PARAM_UNARY_OPS, which says what each computes), with
// PyTorch's arguments and defaults.
#define ARG(type, name) , type name
#define DEF(type, name, value) , type name = value
#define KW_ONLY
#define EMBER_DECLARE_PARAM_fn(name, signature) \
  Tensor name(const Tensor& x EMBER_UNPAREN signature);
#define EMBER_DECLARE_PARAM_fn_inplace(name, signature) \
  EMBER_DECLARE_PARAM_fn(name, signature) Tensor& name##_(Tensor& self EMBER_UNPAREN signature);
#define EMBER_DECLARE_PARAM_manual(name, signature)
#define EMBER_DECLARE_PARAM(name, F, dtypes, to_float, saves, grad, form, signature, params) \
  EMBER_DECLARE_PARAM_##form(name, signature)
EMBER_PARAM_UNARY_OPS(EMBER_DECLARE_PARAM)
#undef EMBER_DECLARE_PARAM
#undef EMBER_DECLARE_PARAM_manual
#undef EMBER_DECLARE_PARAM_fn_inplace
#undef EMBER_DECLARE_PARAM_fn
#undef KW_ONLY
#undef DEF
#undef ARG

// clamp's bounds: one that is not given is no bound; bounds of another category promote (an
// integer tensor clamped at 0.5 gives floats).
Tensor clamp(const Tensor& x,
             const std::optional<Scalar>& min,
             const std::optional<Scalar>& max = std::nullopt);
// Tensor bounds broadcast with x: maximum(x, min), then minimum(., max).
Tensor clamp(const Tensor& x,
             const std::optional<Tensor>& min,
             const std::optional<Tensor>& max = std::nullopt);
Tensor& clamp_(Tensor& self,
               const std::optional<Scalar>& min,
               const std::optional<Scalar>& max = std::nullopt);

// start + weight * (end - start), computed as end - (end - start) * (1 - weight) where
// weight >= 0.5 so that weight 1 gives end exactly; floating tensors of one dtype.
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight);
// input + value * tensor1 * tensor2, and input + value * tensor1 / tensor2 (floating only).
Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor& addcmul_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor& addcdiv_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);

// Comparisons built from the above. |a - b| <= atol + rtol * |b|, infinities equal to
// themselves, NaN equal to NaN only with equal_nan.
Tensor isclose(const Tensor& a,
               const Tensor& b,
               double rtol = 1e-5,
               double atol = 1e-8,
               bool equal_nan = false);
bool allclose(const Tensor& a,
              const Tensor& b,
              double rtol = 1e-5,
              double atol = 1e-8,
              bool equal_nan = false);
// Same shape and the same values (dtypes may differ).
bool equal(const Tensor& a, const Tensor& b);

// Each binary op takes tensors or scalars on either side; scalars are weak in promotion.
#define EMBER_DECLARE_BINARY(name, ...)          \
  Tensor name(const Tensor& a, const Tensor& b); \
  Tensor name(const Tensor& a, const Scalar& b); \
  Tensor name(const Scalar& a, const Tensor& b);
EMBER_BINARY_OPS(EMBER_DECLARE_BINARY)
EMBER_COMPARE_OPS(EMBER_DECLARE_BINARY)
#undef EMBER_DECLARE_BINARY

// The in-place forms of the binary ops (add_ and sub_ also take alpha, below), comparisons
// included: self = self op other, cast to self's dtype (bool results become 0 and 1).
#define EMBER_DECLARE_BINARY_INPLACE(name, ...)       \
  Tensor& name##_(Tensor& self, const Tensor& other); \
  Tensor& name##_(Tensor& self, const Scalar& other);
EMBER_BINARY_OPS(EMBER_DECLARE_BINARY_INPLACE)
EMBER_COMPARE_OPS(EMBER_DECLARE_BINARY_INPLACE)
#undef EMBER_DECLARE_BINARY_INPLACE

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

// In place: self = self + alpha * other; the result dtype must be castable to self's dtype.
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha);
Tensor& zero_(Tensor& self);
Tensor& fill_(Tensor& self, const Scalar& value);
// Raises if `value` does not fit `dtype` (fill_ and full store it; arithmetic wraps instead).
void check_fill_value(const Scalar& value, DType dtype, const char* op);
Tensor& copy_(Tensor& self, const Tensor& src);

// The ops with parameters, by list entry: p holds the op's parameters in its functor's order.
using UnaryParams = std::array<Scalar, 3>;
Tensor param_unary(ParamUnaryOp op, const Tensor& x, const UnaryParams& p);
Tensor& param_unary_(ParamUnaryOp op, Tensor& self, const UnaryParams& p);

namespace detail {
// For in-place ops while recording: writes `result`, computed out of place from self's old value,
// into self and moves self's history to result's node (Note [In-place ops and autograd]).
void commit_recorded(Tensor& self, const Tensor& result, const char* name);
// A new elementwise result: the layout of the first of a, b that has the result's shape and is
// dense but not contiguous (channels-last stays channels-last), else contiguous.
Tensor new_output(IntArrayRef shape,
                  DType dtype,
                  Device device,
                  const Tensor* a = nullptr,
                  const Tensor* b = nullptr);
// g * (lo < t < hi) in one pass (<= at both bounds when `closed`; no upper bound without hi): the
// gradient of relu, relu6, hardtanh, threshold, clamp and hardsigmoid. Differentiable in g (the
// same mask), not in t. g and t have one shape. The 0/1 mask multiplies g, as the expressions
// it replaced did: where t is outside (or NaN), a negative g gives -0.0 and a NaN or infinite g
// NaN, where PyTorch's threshold_backward gives 0.
Tensor masked_grad(const Tensor& g,
                   const Tensor& t,
                   const Scalar& lo,
                   const std::optional<Scalar>& hi,
                   bool closed);
}  // namespace detail

}  // namespace ember
