// The elementwise op lists. One line per op; the forward functions (ops/elementwise.cpp), the
// kernel table slots, the CPU kernels (backend/cpu/elementwise.cpp), the registry records and the
// Python bindings (python/src/elementwise.cpp) are all expanded from these lists.
//
// Columns:
//   name      the op's name in C++ and Python
//   Functor   the scalar function in core/math.h
//   dtypes    dtypes the kernel computes in; for the complex ones, the gradient expression is
//             f'(z) with real coefficients, and the saved tensors go in conjugated, so that the
//             input's gradient is g * conj(f'(z)) (PyTorch's convention, docs/design/complex.md)
//   to_float  true: integer and bool inputs are promoted to the default float dtype first
//   saves     which of x / a / b / out the gradient reads (nothing else is kept alive)
//   gradient  an expression in g (the incoming gradient) and x, a, b, out
// Broadcasting is undone by the engine (it sums a gradient back to its input's shape), so the
// gradient expressions ignore it.
#pragma once

#include "ember/core/dtype.h"

// X(name, Functor, dtypes, to_float, saves, gradient wrt x)
#define EMBER_UNARY_OPS(X)                                                                      \
  X(neg, Neg, kNumericTypes | kComplexTypes, false, kSaveNone, neg(g))                          \
  X(abs, Abs, kNumericTypes | kComplexTypes, false, kSaveX, g * sign(x))                        \
  X(sign, Sign, kAllTypes, false, kSaveNone, zeros_like(g))                                     \
  X(square, Square, kNumericTypes | kComplexTypes, false, kSaveX, g * x * 2)                    \
  X(floor, Floor, kNumericTypes, false, kSaveNone, zeros_like(g))                               \
  X(ceil, Ceil, kNumericTypes, false, kSaveNone, zeros_like(g))                                 \
  X(trunc, Trunc, kNumericTypes, false, kSaveNone, zeros_like(g))                               \
  X(frac, Frac, kFloatingTypes, false, kSaveNone, g)                                            \
  X(bitwise_not, BitwiseNot, kIntegralTypes | kBool, false, kSaveNone, g)                       \
  X(exp, Exp, kFloatingTypes | kComplexTypes, true, kSaveOut, g * out)                          \
  X(exp2, Exp2, kFloatingTypes, true, kSaveOut, g* out* detail::kLn2)                           \
  X(expm1, Expm1, kFloatingTypes, true, kSaveOut, g*(out + 1))                                  \
  X(log, Log, kFloatingTypes | kComplexTypes, true, kSaveX, g / x)                              \
  X(log2, Log2, kFloatingTypes, true, kSaveX, g / (x * detail::kLn2))                           \
  X(log10, Log10, kFloatingTypes | kComplexTypes, true, kSaveX, g / (x * detail::kLn10))        \
  X(log1p, Log1p, kFloatingTypes, true, kSaveX, g / (x + 1))                                    \
  X(sqrt, Sqrt, kFloatingTypes | kComplexTypes, true, kSaveOut, g / (2 * out))                  \
  X(rsqrt, Rsqrt, kFloatingTypes | kComplexTypes, true, kSaveOut, g * out * out * out * -0.5)   \
  X(reciprocal, Reciprocal, kFloatingTypes | kComplexTypes, true, kSaveOut, neg(g) * out * out) \
  X(sin, Sin, kFloatingTypes | kComplexTypes, true, kSaveX, g * cos(x))                         \
  X(cos, Cos, kFloatingTypes | kComplexTypes, true, kSaveX, neg(g) * sin(x))                    \
  X(tan, Tan, kFloatingTypes | kComplexTypes, true, kSaveOut, g * (out * out + 1))              \
  X(asin, Asin, kFloatingTypes | kComplexTypes, true, kSaveX, g * rsqrt(1 - x * x))             \
  X(acos, Acos, kFloatingTypes | kComplexTypes, true, kSaveX, neg(g) * rsqrt(1 - x * x))        \
  X(atan, Atan, kFloatingTypes | kComplexTypes, true, kSaveX, g / (x * x + 1))                  \
  X(sinh, Sinh, kFloatingTypes | kComplexTypes, true, kSaveX, g * cosh(x))                      \
  X(cosh, Cosh, kFloatingTypes | kComplexTypes, true, kSaveX, g * sinh(x))                      \
  X(tanh, Tanh, kFloatingTypes | kComplexTypes, true, kSaveOut, g * (1 - out * out))            \
  X(asinh, Asinh, kFloatingTypes | kComplexTypes, true, kSaveX, g * rsqrt(x * x + 1))           \
  X(acosh, Acosh, kFloatingTypes | kComplexTypes, true, kSaveX, g * rsqrt(x * x - 1))           \
  X(atanh, Atanh, kFloatingTypes | kComplexTypes, true, kSaveX, g / (1 - x * x))                \
  X(erf, Erf, kFloatingTypes, true, kSaveX, g* exp(neg(x* x)) * detail::kTwoOverSqrtPi)         \
  X(erfc, Erfc, kFloatingTypes, true, kSaveX, g* exp(neg(x* x)) * -detail::kTwoOverSqrtPi)      \
  X(erfinv, Erfinv, kFloatingTypes, true, kSaveOut, g* exp(out* out) * detail::kSqrtPiOver2)    \
  X(lgamma, Lgamma, kFloatingTypes, true, kSaveX, g* digamma(x))                                \
  X(digamma, Digamma, kFloatingTypes, true, kSaveX, g* polygamma(x, 1))                         \
  X(i0, I0, kFloatingTypes, true, kSaveX, g* special_i1(x))                                     \
  X(special_i0e, I0e, kFloatingTypes, true, kSaveX | kSaveOut,                                  \
    g * (special_i1e(x) - sign(x) * out))                                                       \
  X(special_i1, I1, kFloatingTypes, true, kSaveX | kSaveOut, detail::i1_grad(g, x, out))        \
  X(special_i1e, I1e, kFloatingTypes, true, kSaveX | kSaveOut, detail::i1e_grad(g, x, out))     \
  X(sigmoid, Sigmoid, kFloatingTypes | kComplexTypes, true, kSaveOut, g * out * (1 - out))      \
  X(softsign, Softsign, kFloatingTypes, true, kSaveX, g / square(abs(x) + 1))                   \
  X(relu, Relu, kNumericTypes, false, kSaveOut, detail::masked_grad(g, out, 0, {}, false))      \
  X(relu6, Relu6, kNumericTypes, false, kSaveX, detail::masked_grad(g, x, 0, 6, false))         \
  X(selu, Selu, kFloatingTypes, false, kSaveX | kSaveOut,                                       \
    g * where(x > 0, Scalar(math::kSeluScale), out + math::kSeluScale * math::kSeluAlpha))      \
  X(silu, Silu, kFloatingTypes, false, kSaveX, detail::silu_grad(g, x))                         \
  X(mish, Mish, kFloatingTypes, false, kSaveX, detail::mish_grad(g, x))                         \
  X(hardsigmoid, Hardsigmoid, kFloatingTypes, false, kSaveX,                                    \
    detail::masked_grad(g, x, -3, 3, false) / 6)                                                \
  X(hardswish, Hardswish, kFloatingTypes, false, kSaveX, detail::hardswish_grad(g, x))

// X(name, Functor template, dtypes, to_float, saves, gradient wrt x, form, (signature), params):
// unary ops with up to three Scalar parameters p[0..2], which the gradient may read. The public
// C++ functions (ops/elementwise.h), their definitions (ops/elementwise_param.cpp) and the Python
// bindings (python/src/elementwise.cpp) are expanded from three more columns:
//   form       fn_inplace: ember::name and name_, ember.name, Tensor.name and Tensor.name_;
//              fn: no in-place form (PyTorch has none); manual: written and bound by hand (clamp,
//              which also takes tensor bounds), with an in-place form
//   signature  PyTorch's arguments after the tensor: ARG(type, name), DEF(type, name, default),
//              and KW_ONLY before the keyword-only ones in Python
//   params     the functor's UnaryParams from those arguments and the tensor x (helpers in
//              ops/elementwise_param.cpp)
// What they compute: clamp and hardtanh bound x to [p0, p1]; threshold is x <= threshold ? value
// : x; elu is scale * (x > 0 ? x : alpha * (exp(input_scale * x) - 1)) and celu is elu with
// scale 1, input_scale 1 / alpha (alpha != 0); softplus is log(1 + exp(beta * x)) / beta, x
// itself where beta * x > threshold; gelu's approximate is "none" (the exact normal CDF) or
// "tanh"; logit is log(x / (1 - x)), x clamped to [eps, 1 - eps] first when eps is given; round
// is half to even at `decimals` digits (0 for integer tensors); nan_to_num replaces NaN and the
// infinities, which default to the dtype's largest and lowest finite values.
// clang-format off
#define EMBER_PARAM_UNARY_OPS(X)                                                                 \
  X(clamp, Clamp, kAllTypes, false, kSaveX, detail::masked_grad(g, x, p[0], p[1], true),         \
    manual, (), ())                                                                              \
  X(hardtanh, Clamp, kNumericTypes, false, kSaveX, detail::masked_grad(g, x, p[0], p[1], false), \
    fn_inplace, (DEF(const Scalar&, min_val, -1.0) DEF(const Scalar&, max_val, 1.0)),            \
    (UnaryParams{min_val, max_val, Scalar(0)}))                                                  \
  X(threshold, Threshold, kNumericTypes, false, kSaveX,                                          \
    detail::masked_grad(g, x, p[0], {}, false),                                                  \
    fn_inplace, (ARG(const Scalar&, threshold) ARG(const Scalar&, value)),                       \
    (UnaryParams{threshold, value, Scalar(0)}))                                                  \
  X(leaky_relu, LeakyRelu, kFloatingTypes, false, kSaveX, where(x > 0, g, g * p[0]),             \
    fn_inplace, (DEF(const Scalar&, negative_slope, 0.01)),                                      \
    (UnaryParams{negative_slope, Scalar(0), Scalar(0)}))                                         \
  X(elu, Elu, kFloatingTypes, false, kSaveX | kSaveOut, detail::elu_grad(g, x, out, p),          \
    fn_inplace, (DEF(const Scalar&, alpha, 1.0) DEF(const Scalar&, scale, 1.0)                   \
                 DEF(const Scalar&, input_scale, 1.0)),                                          \
    (UnaryParams{alpha, scale, input_scale}))                                                    \
  X(celu, Elu, kFloatingTypes, false, kSaveX | kSaveOut, detail::elu_grad(g, x, out, p),         \
    fn_inplace, (DEF(const Scalar&, alpha, 1.0)), (celu_params(alpha)))                          \
  X(softplus, Softplus, kFloatingTypes, false, kSaveX, detail::softplus_grad(g, x, p),           \
    fn, (DEF(const Scalar&, beta, 1) DEF(const Scalar&, threshold, 20)),                         \
    (UnaryParams{beta, threshold, Scalar(0)}))                                                   \
  X(gelu, Gelu, kFloatingTypes, false, kSaveX, detail::gelu_grad(g, x, p[0].to_bool()),          \
    fn, (KW_ONLY DEF(std::string_view, approximate, "none")), (gelu_params(approximate)))        \
  X(logit, Logit, kFloatingTypes, true, kSaveX, detail::logit_grad(g, x, p[0]),                  \
    fn_inplace, (DEF(std::optional<double>, eps, std::nullopt)),                                 \
    (UnaryParams{Scalar(eps.value_or(-1.0)), Scalar(0), Scalar(0)}))                             \
  X(polygamma, Polygamma, kFloatingTypes, true, kSaveX, g * polygamma(x, p[0].to<int64_t>() + 1), \
    fn_inplace, (ARG(int64_t, n)), (polygamma_params(n)))                                       \
  X(round, Round, kNumericTypes, false, kSaveNone, zeros_like(g),                                \
    fn_inplace, (KW_ONLY DEF(int64_t, decimals, 0)), (round_params(x, decimals)))                \
  X(nan_to_num, NanToNum, kAllTypes, false, kSaveX, g * isfinite(x),                             \
    fn_inplace, (DEF(std::optional<double>, nan, 0.0) DEF(std::optional<double>, posinf,         \
                 std::nullopt) DEF(std::optional<double>, neginf, std::nullopt)),                \
    (nan_to_num_params(x.dtype(), nan, posinf, neginf)))
// clang-format on
// `EMBER_UNPAREN signature` is a signature column without its parentheses.
#define EMBER_UNPAREN(...) __VA_ARGS__

// X(name, Functor, form): unary predicates, all dtypes, bool result, no gradient; form as above
// (fn_inplace: x.name_() writes the result into x in x's dtype; as in PyTorch, only logical_not).
// clang-format off
#define EMBER_PREDICATE_OPS(X)                                       \
  X(isnan, IsNan, fn) X(isinf, IsInf, fn) X(isfinite, IsFinite, fn) \
  X(logical_not, LogicalNot, fn_inplace)
// clang-format on

// X(name, Functor, dtypes, to_float, saves, gradient wrt a, gradient wrt b)
#define EMBER_BINARY_OPS(X)                                                                      \
  X(add, Add, kAllTypesAndComplex, false, kSaveNone, g, g)                                       \
  X(sub, Sub, kNumericTypes | kComplexTypes, false, kSaveNone, g, neg(g))                        \
  X(mul, Mul, kAllTypesAndComplex, false, kSaveA | kSaveB, g * b, g * a)                         \
  X(div, Div, kFloatingTypes | kComplexTypes, true, kSaveB | kSaveOut, g / b, neg(g) * out / b)  \
  X(pow, Pow, kNumericTypes | kComplexTypes, false, kSaveA | kSaveB | kSaveOut,                  \
    detail::pow_base_grad(g, a, b), detail::pow_exponent_grad(g, a, b, out))                     \
  X(floor_divide, FloorDivide, kNumericTypes, false, kSaveNone, zeros_like(g), zeros_like(g))    \
  X(remainder, Remainder, kNumericTypes, false, kSaveA | kSaveB, g, neg(g) * floor_divide(a, b)) \
  X(fmod, Fmod, kNumericTypes, false, kSaveA | kSaveB, g, neg(g) * trunc(a / b))                 \
  X(atan2, Atan2, kFloatingTypes, true, kSaveA | kSaveB, g * b / (a * a + b * b),                \
    neg(g) * a / (a * a + b * b))                                                                \
  X(hypot, Hypot, kFloatingTypes, false, kSaveA | kSaveB | kSaveOut, g * a / out, g * b / out)   \
  X(igamma, Igamma, kFloatingTypes, true, kSaveA | kSaveB,                                       \
    detail::grad_not_implemented("igamma", "input"), detail::igamma_x_grad(g, a, b))             \
  X(igammac, Igammac, kFloatingTypes, true, kSaveA | kSaveB,                                     \
    detail::grad_not_implemented("igammac", "input"), neg(detail::igamma_x_grad(g, a, b)))       \
  X(nextafter, Nextafter, DTypeSet(kFloat32) | kFloat64, false, kSaveNone,                       \
    detail::grad_not_implemented("nextafter", "input"),                                          \
    detail::grad_not_implemented("nextafter", "other"))                                          \
  X(special_zeta, Zeta, kFloatingTypes, true, kSaveA | kSaveB,                                   \
    detail::grad_not_implemented("special.zeta", "x"), neg(g) * a * special_zeta(a + 1, b))      \
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
// The form column of EMBER_PARAM_UNARY_OPS and EMBER_PREDICATE_OPS.
enum class OpForm : uint8_t { fn, fn_inplace, manual };
constexpr bool has_inplace(OpForm form) { return form != OpForm::fn; }

enum class PredicateOp : uint8_t {
  EMBER_PREDICATE_OPS(EMBER_ENUM_ENTRY)
#undef EMBER_ENUM_ENTRY
};

// The dtypes of a comparison or logical op: eq, ne and the logical ops also take complex
// numbers; the orderings (lt, le, gt, ge) do not.
constexpr DTypeSet compare_dtypes(CompareOp op) {
  return op == CompareOp::lt || op == CompareOp::le || op == CompareOp::gt || op == CompareOp::ge
             ? kAllTypes
             : kAllTypesAndComplex;
}

#define EMBER_COUNT_ENTRY(...) +1
inline constexpr int kNumUnaryOps = 0 EMBER_UNARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumBinaryOps = 0 EMBER_BINARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumCompareOps = 0 EMBER_COMPARE_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumParamUnaryOps = 0 EMBER_PARAM_UNARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumPredicateOps = 0 EMBER_PREDICATE_OPS(EMBER_COUNT_ENTRY);
#undef EMBER_COUNT_ENTRY

}  // namespace ember
