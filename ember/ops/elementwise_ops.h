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
#define EMBER_UNARY_OPS(X)                                              \
  X(neg, Neg, kNumericTypes, false, kSaveNone, neg(g))                  \
  X(abs, Abs, kNumericTypes, false, kSaveX, g* sign(x))                 \
  X(sign, Sign, kAllTypes, false, kSaveNone, zeros_like(g))             \
  X(exp, Exp, kFloatingTypes, true, kSaveOut, g* out)                   \
  X(log, Log, kFloatingTypes, true, kSaveX, g / x)                      \
  X(sqrt, Sqrt, kFloatingTypes, true, kSaveOut, g / (2 * out))          \
  X(tanh, Tanh, kFloatingTypes, true, kSaveOut, g*(1 - out * out))      \
  X(sigmoid, Sigmoid, kFloatingTypes, true, kSaveOut, g* out*(1 - out)) \
  X(relu, Relu, kNumericTypes, false, kSaveOut, g*(out > 0))

// X(name, Functor, dtypes, to_float, saves, gradient wrt a, gradient wrt b)
#define EMBER_BINARY_OPS(X)                                                                     \
  X(add, Add, kAllTypes, false, kSaveNone, g, g)                                                \
  X(sub, Sub, kNumericTypes, false, kSaveNone, g, neg(g))                                       \
  X(mul, Mul, kAllTypes, false, kSaveA | kSaveB, g * b, g * a)                                  \
  X(div, Div, kFloatingTypes, true, kSaveB | kSaveOut, g / b, neg(g) * out / b)                 \
  X(pow, Pow, kNumericTypes, false, kSaveA | kSaveB | kSaveOut, detail::pow_base_grad(g, a, b), \
    detail::pow_exponent_grad(g, a, b, out))

// X(name, Functor): comparisons, all dtypes, bool result, no gradient.
#define EMBER_COMPARE_OPS(X) X(eq, Eq) X(ne, Ne) X(lt, Lt) X(le, Le) X(gt, Gt) X(ge, Ge)

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
enum class CompareOp : uint8_t {
  EMBER_COMPARE_OPS(EMBER_ENUM_ENTRY)
#undef EMBER_ENUM_ENTRY
};

#define EMBER_COUNT_ENTRY(...) +1
inline constexpr int kNumUnaryOps = 0 EMBER_UNARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumBinaryOps = 0 EMBER_BINARY_OPS(EMBER_COUNT_ENTRY);
inline constexpr int kNumCompareOps = 0 EMBER_COMPARE_OPS(EMBER_COUNT_ENTRY);
#undef EMBER_COUNT_ENTRY

}  // namespace ember
