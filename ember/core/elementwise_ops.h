// The elementwise op lists. One line per op; the forward functions (ops/elementwise.cpp), the
// kernel table slots, the CPU kernels (backend/cpu/elementwise.cpp) and the Python bindings
// (python/src/ops.cpp) are all expanded from these lists.
//
// Columns:
//   name      the op's name in C++ and Python
//   Functor   the scalar function in ops/math.h
//   dtypes    dtypes the kernel computes in
//   to_float  true: integer and bool inputs are promoted to the default float dtype first
//   saves     which of x / a / b / out the gradient reads (nothing else is kept alive)
//   gradient  an expression in g (the incoming gradient) and x, a, b, out
// Broadcasting is undone by the engine (it sums a gradient back to its input's shape), so the
// gradient expressions ignore it.
#pragma once

#include "ember/core/dtype.h"

// X(name, Functor, dtypes, to_float, saves, gradient wrt x)
#define EMBER_UNARY_OPS(X)                                                                   \
  X(neg, Neg, kNumericTypes, false, kSaveNone, neg(g))                                       \
  X(abs, Abs, kNumericTypes, false, kSaveX, g* sign(x))                                      \
  X(sign, Sign, kAllTypes, false, kSaveNone, zeros_like(g))                                  \
  X(square, Square, kNumericTypes, false, kSaveX, g* x * 2)                                  \
  X(floor, Floor, kNumericTypes, false, kSaveNone, zeros_like(g))                            \
  X(ceil, Ceil, kNumericTypes, false, kSaveNone, zeros_like(g))                              \
  X(trunc, Trunc, kNumericTypes, false, kSaveNone, zeros_like(g))                            \
  X(frac, Frac, kFloatingTypes, false, kSaveNone, g)                                         \
  X(bitwise_not, BitwiseNot, kIntegralTypes | kBool, false, kSaveNone, g)                    \
  X(exp, Exp, kFloatingTypes, true, kSaveOut, g* out)                                        \
  X(exp2, Exp2, kFloatingTypes, true, kSaveOut, g* out* detail::kLn2)                        \
  X(expm1, Expm1, kFloatingTypes, true, kSaveOut, g*(out + 1))                               \
  X(log, Log, kFloatingTypes, true, kSaveX, g / x)                                           \
  X(log2, Log2, kFloatingTypes, true, kSaveX, g / (x * detail::kLn2))                        \
  X(log10, Log10, kFloatingTypes, true, kSaveX, g / (x * detail::kLn10))                     \
  X(log1p, Log1p, kFloatingTypes, true, kSaveX, g / (x + 1))                                 \
  X(sqrt, Sqrt, kFloatingTypes, true, kSaveOut, g / (2 * out))                               \
  X(rsqrt, Rsqrt, kFloatingTypes, true, kSaveOut, g* out* out* out * -0.5)                   \
  X(reciprocal, Reciprocal, kFloatingTypes, true, kSaveOut, neg(g) * out * out)              \
  X(sin, Sin, kFloatingTypes, true, kSaveX, g* cos(x))                                       \
  X(cos, Cos, kFloatingTypes, true, kSaveX, neg(g) * sin(x))                                 \
  X(tan, Tan, kFloatingTypes, true, kSaveOut, g*(out * out + 1))                             \
  X(asin, Asin, kFloatingTypes, true, kSaveX, g* rsqrt(1 - x * x))                           \
  X(acos, Acos, kFloatingTypes, true, kSaveX, neg(g) * rsqrt(1 - x * x))                     \
  X(atan, Atan, kFloatingTypes, true, kSaveX, g / (x * x + 1))                               \
  X(sinh, Sinh, kFloatingTypes, true, kSaveX, g* cosh(x))                                    \
  X(cosh, Cosh, kFloatingTypes, true, kSaveX, g* sinh(x))                                    \
  X(tanh, Tanh, kFloatingTypes, true, kSaveOut, g*(1 - out * out))                           \
  X(asinh, Asinh, kFloatingTypes, true, kSaveX, g* rsqrt(x* x + 1))                          \
  X(acosh, Acosh, kFloatingTypes, true, kSaveX, g* rsqrt(x* x - 1))                          \
  X(atanh, Atanh, kFloatingTypes, true, kSaveX, g / (1 - x * x))                             \
  X(erf, Erf, kFloatingTypes, true, kSaveX, g* exp(neg(x* x)) * detail::kTwoOverSqrtPi)      \
  X(erfc, Erfc, kFloatingTypes, true, kSaveX, g* exp(neg(x* x)) * -detail::kTwoOverSqrtPi)   \
  X(erfinv, Erfinv, kFloatingTypes, true, kSaveOut, g* exp(out* out) * detail::kSqrtPiOver2) \
  X(sigmoid, Sigmoid, kFloatingTypes, true, kSaveOut, g* out*(1 - out))                      \
  X(softsign, Softsign, kFloatingTypes, true, kSaveX, g / square(abs(x) + 1))                \
  X(relu, Relu, kNumericTypes, false, kSaveOut, detail::masked_grad(g, out, 0, {}, false))   \
  X(relu6, Relu6, kNumericTypes, false, kSaveX, detail::masked_grad(g, x, 0, 6, false))      \
  X(selu, Selu, kFloatingTypes, false, kSaveX | kSaveOut,                                    \
    g * where(x > 0, Scalar(math::kSeluScale), out + math::kSeluScale * math::kSeluAlpha))   \
  X(silu, Silu, kFloatingTypes, false, kSaveX, detail::silu_grad(g, x))                      \
  X(mish, Mish, kFloatingTypes, false, kSaveX, detail::mish_grad(g, x))                      \
  X(hardsigmoid, Hardsigmoid, kFloatingTypes, false, kSaveX,                                 \
    detail::masked_grad(g, x, -3, 3, false) / 6)                                             \
  X(hardswish, Hardswish, kFloatingTypes, false, kSaveX, detail::hardswish_grad(g, x))

// X(name, Functor template, dtypes, to_float, saves, gradient wrt x): unary ops with up to three
// Scalar parameters p[0..2], which the gradient may read. Their public functions (with PyTorch's
// argument names and defaults) are in elementwise.h.
#define EMBER_PARAM_UNARY_OPS(X)                                                                 \
  X(clamp, Clamp, kAllTypes, false, kSaveX, detail::masked_grad(g, x, p[0], p[1], true))         \
  X(hardtanh, Clamp, kNumericTypes, false, kSaveX, detail::masked_grad(g, x, p[0], p[1], false)) \
  X(threshold, Threshold, kNumericTypes, false, kSaveX,                                          \
    detail::masked_grad(g, x, p[0], {}, false))                                                  \
  X(leaky_relu, LeakyRelu, kFloatingTypes, false, kSaveX, where(x > 0, g, g * p[0]))             \
  X(elu, Elu, kFloatingTypes, false, kSaveX | kSaveOut, detail::elu_grad(g, x, out, p))          \
  X(softplus, Softplus, kFloatingTypes, false, kSaveX, detail::softplus_grad(g, x, p))           \
  X(gelu, Gelu, kFloatingTypes, false, kSaveX, detail::gelu_grad(g, x, p[0].to_bool()))          \
  X(logit, Logit, kFloatingTypes, true, kSaveX, detail::logit_grad(g, x, p[0]))                  \
  X(round, Round, kNumericTypes, false, kSaveNone, zeros_like(g))                                \
  X(nan_to_num, NanToNum, kAllTypes, false, kSaveX, g* isfinite(x))

// X(name, Functor): unary predicates, all dtypes, bool result, no gradient.
#define EMBER_PREDICATE_OPS(X) \
  X(isnan, IsNan) X(isinf, IsInf) X(isfinite, IsFinite) X(logical_not, LogicalNot)

// X(name, Functor, dtypes, to_float, saves, gradient wrt a, gradient wrt b)
#define EMBER_BINARY_OPS(X)                                                                      \
  X(add, Add, kAllTypes, false, kSaveNone, g, g)                                                 \
  X(sub, Sub, kNumericTypes, false, kSaveNone, g, neg(g))                                        \
  X(mul, Mul, kAllTypes, false, kSaveA | kSaveB, g * b, g * a)                                   \
  X(div, Div, kFloatingTypes, true, kSaveB | kSaveOut, g / b, neg(g) * out / b)                  \
  X(pow, Pow, kNumericTypes, false, kSaveA | kSaveB | kSaveOut, detail::pow_base_grad(g, a, b),  \
    detail::pow_exponent_grad(g, a, b, out))                                                     \
  X(floor_divide, FloorDivide, kNumericTypes, false, kSaveNone, zeros_like(g), zeros_like(g))    \
  X(remainder, Remainder, kNumericTypes, false, kSaveA | kSaveB, g, neg(g) * floor_divide(a, b)) \
  X(fmod, Fmod, kNumericTypes, false, kSaveA | kSaveB, g, neg(g) * trunc(a / b))                 \
  X(atan2, Atan2, kFloatingTypes, true, kSaveA | kSaveB, g * b / (a * a + b * b),                \
    neg(g) * a / (a * a + b * b))                                                                \
  X(hypot, Hypot, kFloatingTypes, false, kSaveA | kSaveB | kSaveOut, g * a / out, g * b / out)   \
  X(logaddexp, Logaddexp, kFloatingTypes, false, kSaveA | kSaveB | kSaveOut, g * exp(a - out),   \
    g * exp(b - out))                                                                            \
  X(maximum, Maximum, kAllTypes, false, kSaveA | kSaveB, detail::max_grad(g, a, b),              \
    detail::max_grad(g, b, a))                                                                   \
  X(minimum, Minimum, kAllTypes, false, kSaveA | kSaveB, detail::max_grad(g, b, a),              \
    detail::max_grad(g, a, b))                                                                   \
  X(fmax, Fmax, kAllTypes, false, kSaveA | kSaveB, g * detail::fmax_mask(a, b),                  \
    g * logical_not(detail::fmax_mask(a, b)))                                                    \
  X(fmin, Fmin, kAllTypes, false, kSaveA | kSaveB, g * detail::fmin_mask(a, b),                  \
    g * logical_not(detail::fmin_mask(a, b)))                                                    \
  X(bitwise_and, BitwiseAnd, kIntegralTypes | kBool, false, kSaveNone, g, g)                     \
  X(bitwise_or, BitwiseOr, kIntegralTypes | kBool, false, kSaveNone, g, g)                       \
  X(bitwise_xor, BitwiseXor, kIntegralTypes | kBool, false, kSaveNone, g, g)                     \
  X(bitwise_left_shift, ShiftLeft, kIntegralTypes, false, kSaveNone, g, g)                       \
  X(bitwise_right_shift, ShiftRight, kIntegralTypes, false, kSaveNone, g, g)

// X(name, Functor): comparisons and logical ops, all dtypes, bool result, no gradient.
// (clang-format 14 reflows this list differently on every run.)
// clang-format off
#define EMBER_COMPARE_OPS(X)                                                \
  X(eq, Eq) X(ne, Ne) X(lt, Lt) X(le, Le) X(gt, Gt) X(ge, Ge)               \
  X(logical_and, LogicalAnd) X(logical_or, LogicalOr) X(logical_xor, LogicalXor)
// clang-format on

namespace ember {

enum SaveFlags : unsigned {
  kSaveNone = 0,
  kSaveX = 1,
  kSaveA = 1,
  kSaveB = 2,
  kSaveOut = 4,
};

enum class UnaryOp : uint8_t {
#define EMBER_ENUM_ENTRY(name, ...) name,
  EMBER_UNARY_OPS(EMBER_ENUM_ENTRY)
};
enum class BinaryOp : uint8_t { EMBER_BINARY_OPS(EMBER_ENUM_ENTRY) };
enum class CompareOp : uint8_t { EMBER_COMPARE_OPS(EMBER_ENUM_ENTRY) };
enum class ParamUnaryOp : uint8_t { EMBER_PARAM_UNARY_OPS(EMBER_ENUM_ENTRY) };
enum class PredicateOp : uint8_t {
  EMBER_PREDICATE_OPS(EMBER_ENUM_ENTRY)
#undef EMBER_ENUM_ENTRY
};

#define EMBER_COUNT_ENTRY(...) +1
inline constexpr int kNumUnaryOps = 0 EMBER_UNARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumBinaryOps = 0 EMBER_BINARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumCompareOps = 0 EMBER_COMPARE_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumParamUnaryOps = 0 EMBER_PARAM_UNARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumPredicateOps = 0 EMBER_PREDICATE_OPS(EMBER_COUNT_ENTRY);
#undef EMBER_COUNT_ENTRY

}  // namespace ember
