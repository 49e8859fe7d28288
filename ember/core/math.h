// Scalar functors of the elementwise ops: written once, called by the CPU loop and (later) the
// CUDA loop. Each takes and returns the "op math" type (float for the 16-bit floats).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ember/core/scalar.h"

#ifdef __CUDACC__
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember::math {

// Signed integer arithmetic wraps around, as in PyTorch, instead of being undefined: int32 and
// int64 compute in their unsigned twins (narrower types are promoted to int and cannot overflow).
template <class T, bool Wide = std::is_integral_v<T>&& std::is_signed_v<T> && (sizeof(T) >= 4)>
struct Wrap {
  using type = T;
};
template <class T>
struct Wrap<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using wrap_t = typename Wrap<T>::type;

// ---- unary ---------------------------------------------------------------------------------
struct Neg {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(wrap_t<T>(0) - wrap_t<T>(x));
  }
};
struct Abs {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>)
      return x;
    else
      return x < T(0) ? T(wrap_t<T>(0) - wrap_t<T>(x)) : x;
  }
};
struct Sign {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return x;
    else
      return T((T(0) < x) - (x < T(0)));
  }
};
struct Exp {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::exp(x);
  }
};
struct Log {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::log(x);
  }
};
struct Sqrt {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::sqrt(x);
  }
};
struct Tanh {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::tanh(x);
  }
};
struct Sigmoid {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(1) / (T(1) + std::exp(-x));
  }
};
struct Relu {
  // x < 0 ? 0 : x keeps NaN as NaN, as PyTorch does.
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }
};

// ---- more unary (floating point unless noted) ------------------------------------------------
#define EMBER_SIMPLE_UNARY(Name, expr)          \
  struct Name {                                 \
    template <class T>                          \
    EMBER_HOST_DEVICE T operator()(T x) const { \
      return expr;                              \
    }                                           \
  };
EMBER_SIMPLE_UNARY(Exp2, std::exp2(x))
EMBER_SIMPLE_UNARY(Expm1, std::expm1(x))
EMBER_SIMPLE_UNARY(Log2, std::log2(x))
EMBER_SIMPLE_UNARY(Log10, std::log10(x))
EMBER_SIMPLE_UNARY(Log1p, std::log1p(x))
EMBER_SIMPLE_UNARY(Rsqrt, T(1) / std::sqrt(x))
EMBER_SIMPLE_UNARY(Reciprocal, T(1) / x)
EMBER_SIMPLE_UNARY(Sin, std::sin(x))
EMBER_SIMPLE_UNARY(Cos, std::cos(x))
EMBER_SIMPLE_UNARY(Tan, std::tan(x))
EMBER_SIMPLE_UNARY(Asin, std::asin(x))
EMBER_SIMPLE_UNARY(Acos, std::acos(x))
EMBER_SIMPLE_UNARY(Atan, std::atan(x))
EMBER_SIMPLE_UNARY(Sinh, std::sinh(x))
EMBER_SIMPLE_UNARY(Cosh, std::cosh(x))
EMBER_SIMPLE_UNARY(Asinh, std::asinh(x))
EMBER_SIMPLE_UNARY(Acosh, std::acosh(x))
EMBER_SIMPLE_UNARY(Atanh, std::atanh(x))
EMBER_SIMPLE_UNARY(Erf, std::erf(x))
EMBER_SIMPLE_UNARY(Erfc, std::erfc(x))
EMBER_SIMPLE_UNARY(Frac, x - std::trunc(x))
EMBER_SIMPLE_UNARY(Silu, x / (T(1) + std::exp(-x)))
EMBER_SIMPLE_UNARY(Softsign, x / (T(1) + std::abs(x)))
// log1p(exp(x)) overflows to inf for large x; x itself is then exact.
EMBER_SIMPLE_UNARY(Mish, x* std::tanh(x > T(20) ? x : std::log1p(std::exp(x))))
EMBER_SIMPLE_UNARY(Hardsigmoid, x <= T(-3) ? T(0) : x >= T(3) ? T(1) : x / T(6) + T(0.5))
EMBER_SIMPLE_UNARY(Hardswish, x <= T(-3) ? T(0) : x >= T(3) ? x : x * (x + T(3)) / T(6))
// NaN stays NaN (both comparisons are false).
EMBER_SIMPLE_UNARY(Relu6, x < T(0) ? T(0) : (x > T(6) ? T(6) : x))
#undef EMBER_SIMPLE_UNARY

// SELU's constants (Klambauer et al. 2017), as PyTorch.
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;
struct Selu {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return x > T(0) ? T(kSeluScale) * x : T(kSeluScale * kSeluAlpha) * std::expm1(x);
  }
};

// Square keeps integers integer (and wraps as multiplication does).
struct Square {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(wrap_t<T>(x) * wrap_t<T>(x));
  }
};

// floor, ceil, trunc return integers unchanged.
#define EMBER_ROUNDING_UNARY(Name, fn)          \
  struct Name {                                 \
    template <class T>                          \
    EMBER_HOST_DEVICE T operator()(T x) const { \
      if constexpr (std::is_integral_v<T>)      \
        return x;                               \
      else                                      \
        return fn(x);                           \
    }                                           \
  };
EMBER_ROUNDING_UNARY(Floor, std::floor)
EMBER_ROUNDING_UNARY(Ceil, std::ceil)
EMBER_ROUNDING_UNARY(Trunc, std::trunc)
#undef EMBER_ROUNDING_UNARY

struct BitwiseNot {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return !x;
    else
      return T(~x);
  }
};

// The inverse error function: Giles' single-precision approximation ("Approximating the erfinv
// function", GPU Computing Gems, 2011), then two Newton steps in double, which bring it to
// double precision. erfinv(+-1) = +-inf; outside [-1, 1] it is NaN.
EMBER_HOST_DEVICE inline double erfinv_double(double y) {
  if (!(y > -1.0 && y < 1.0)) {
    if (y == 1.0) return INFINITY;
    if (y == -1.0) return -INFINITY;
    return NAN;
  }
  double w = -std::log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  constexpr double kTwoOverSqrtPi = 1.1283791670955126;
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (kTwoOverSqrtPi * std::exp(-x * x));
  return x;
}
struct Erfinv {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(erfinv_double(double(x)));
  }
};

// ---- unary ops with parameters -----------------------------------------------------------------
// Class templates over the op-math type A, built once per call from the op's parameters (p[0..2],
// converted to A), so that the inner loop sees plain values.
template <class A>
struct Clamp {
  A lo, hi;
  explicit Clamp(const Scalar* p) : lo(p[0].to<A>()), hi(p[1].to<A>()) {}
  // min(max(x, lo), hi): with lo > hi every element becomes hi, as in PyTorch; NaN stays.
  EMBER_HOST_DEVICE A operator()(A x) const {
    const A t = x < lo ? lo : x;
    return t > hi ? hi : t;
  }
};
template <class A>
struct Threshold {
  A threshold, value;
  explicit Threshold(const Scalar* p) : threshold(p[0].to<A>()), value(p[1].to<A>()) {}
  EMBER_HOST_DEVICE A operator()(A x) const { return x <= threshold ? value : x; }
};
template <class A>
struct LeakyRelu {
  A slope;
  explicit LeakyRelu(const Scalar* p) : slope(p[0].to<A>()) {}
  EMBER_HOST_DEVICE A operator()(A x) const { return x > A(0) ? x : x * slope; }
};
// scale * (x > 0 ? x : alpha * (exp(input_scale * x) - 1)); celu is alpha, 1, 1 / alpha.
template <class A>
struct Elu {
  A alpha, scale, input_scale;
  explicit Elu(const Scalar* p)
      : alpha(p[0].to<A>()), scale(p[1].to<A>()), input_scale(p[2].to<A>()) {}
  EMBER_HOST_DEVICE A operator()(A x) const {
    return x > A(0) ? scale * x : scale * alpha * std::expm1(x * input_scale);
  }
};
template <class A>
struct Softplus {
  A beta, threshold;
  explicit Softplus(const Scalar* p) : beta(p[0].to<A>()), threshold(p[1].to<A>()) {}
  EMBER_HOST_DEVICE A operator()(A x) const {
    return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
  }
};
// p[0] = 0: x * Phi(x) with the exact normal CDF; 1: the tanh approximation.
template <class A>
struct Gelu {
  bool tanh_approx;
  explicit Gelu(const Scalar* p) : tanh_approx(p[0].to_bool()) {}
  EMBER_HOST_DEVICE A operator()(A x) const {
    if (tanh_approx) {
      constexpr A kBeta = A(0.7978845608028654), kKappa = A(0.044715);  // sqrt(2 / pi)
      return A(0.5) * x * (A(1) + std::tanh(kBeta * (x + kKappa * x * x * x)));
    }
    return A(0.5) * x * (A(1) + std::erf(x * A(0.7071067811865476)));
  }
};
// log(x / (1 - x)), with x first clamped to [eps, 1 - eps] when eps >= 0.
template <class A>
struct Logit {
  A eps;
  explicit Logit(const Scalar* p) : eps(p[0].to<A>()) {}
  EMBER_HOST_DEVICE A operator()(A x) const {
    if (eps >= A(0)) x = x < eps ? eps : (x > A(1) - eps ? A(1) - eps : x);
    return std::log(x / (A(1) - x));
  }
};
// Half to even, at `decimals` digits (negative: left of the point). Integers are unchanged.
template <class A>
struct Round {
  int64_t decimals;
  A scale;
  explicit Round(const Scalar* p) : decimals(p[0].to_int()), scale(A(1)) {
    for (int64_t i = 0; i < (decimals < 0 ? -decimals : decimals); ++i) scale = A(scale * A(10));
  }
  EMBER_HOST_DEVICE A operator()(A x) const {
    if constexpr (std::is_integral_v<A>) {
      return x;
    } else {
      if (decimals == 0) return std::nearbyint(x);
      if (decimals > 0) return std::nearbyint(x * scale) / scale;
      return std::nearbyint(x / scale) * scale;
    }
  }
};
template <class A>
struct NanToNum {
  A nan, posinf, neginf;
  explicit NanToNum(const Scalar* p)
      : nan(p[0].to<A>()), posinf(p[1].to<A>()), neginf(p[2].to<A>()) {}
  EMBER_HOST_DEVICE A operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      if (x != x) return nan;
      if (std::isinf(x)) return x > A(0) ? posinf : neginf;
    }
    return x;
  }
};

// ---- binary --------------------------------------------------------------------------------
struct Add {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return T(wrap_t<T>(a) + wrap_t<T>(b));
  }
};
struct Sub {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return T(wrap_t<T>(a) - wrap_t<T>(b));
  }
};
struct Mul {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return T(wrap_t<T>(a) * wrap_t<T>(b));
  }
};
struct Div {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return a / b;
  }
};
struct Pow {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      // Integer power by squaring. Negative exponents truncate toward zero as in PyTorch:
      // only bases 1 and -1 survive.
      if (b < T(0)) {
        if (a == T(1)) return T(1);
        if constexpr (std::is_signed_v<T>) {
          if (a == T(-1)) return (b % 2) ? T(-1) : T(1);
        }
        return T(0);
      }
      // In the unsigned twin: an overflowing result wraps (as PyTorch's), never undefined.
      using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < 4), int, T>>;
      U result = 1, base = U(a);
      auto e = b;
      while (true) {
        if (e & 1) result = U(result * base);
        e >>= 1;
        if (!e) break;
        base = U(base * base);
      }
      return T(result);
    }
  }
};

// Integer division and remainder round toward -inf (Python's // and %). Division by zero is
// refused before the kernel runs (ops/elementwise.cpp), and MIN / -1 wraps instead of trapping.
struct FloorDivide {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(wrap_t<T>(0) - wrap_t<T>(a));
        const T q = a / b;
        return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
      } else {
        return T(a / b);
      }
    } else {
      // As Python and PyTorch: the quotient from fmod, so that a == b * q + r holds closely.
      if (b == T(0)) return a / b;
      const T mod = std::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return std::copysign(T(0), a / b);
      T q = std::floor(div);
      if (div - q > T(0.5)) q += T(1);
      return q;
    }
  }
};
struct Remainder {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
        const T r = a % b;
        return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
      } else {
        return T(a % b);
      }
    } else {
      T r = std::fmod(a, b);
      if (r != T(0) && ((b < T(0)) != (r < T(0)))) r += b;
      return r;
    }
  }
};
struct Fmod {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
      }
      return T(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};
struct Atan2 {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return std::atan2(a, b);
  }
};
struct Hypot {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return std::hypot(a, b);
  }
};
struct Logaddexp {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if (std::isinf(a) && a == b) return a;  // -inf with -inf, inf with inf: no inf - inf
    const T m = a > b ? a : b;
    return m + std::log1p(std::exp(-std::abs(a - b)));
  }
};
template <class T>
EMBER_HOST_DEVICE bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}
// maximum/minimum propagate NaN; fmax/fmin ignore it (NaN only when both are).
template <bool Max, bool PropagateNan>
struct Extremum {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if (is_nan(a)) return PropagateNan ? a : b;
    if (is_nan(b)) return PropagateNan ? b : a;
    return (Max ? a > b : a < b) ? a : b;
  }
};
using Maximum = Extremum<true, true>;
using Minimum = Extremum<false, true>;
using Fmax = Extremum<true, false>;
using Fmin = Extremum<false, false>;
struct BitwiseAnd {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return T(a & b);
  }
};
struct BitwiseOr {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return T(a | b);
  }
};
struct BitwiseXor {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return T(a ^ b);
  }
};
// Shifts as PyTorch's: a shift by the bit width or more (or a negative one) gives 0, or the sign
// for a right shift of a negative number; never undefined behaviour.
struct ShiftLeft {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < 4), int, T>>;
    constexpr auto kBits = sizeof(T) * 8;
    if (b < T(0) || uint64_t(b) >= kBits) return T(0);
    return T(U(U(a) << U(b)));
  }
};
struct ShiftRight {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    constexpr auto kBits = sizeof(T) * 8;
    if (b < T(0) || uint64_t(b) >= kBits) {
      if constexpr (std::is_signed_v<T>) return a < T(0) ? T(-1) : T(0);
      return T(0);
    }
    return T(a >> b);
  }
};

// ---- comparisons (return bool) -------------------------------------------------------------
struct Eq {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a == b;
  }
};
struct Ne {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a != b;
  }
};
struct Lt {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a < b;
  }
};
struct Le {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Gt {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a > b;
  }
};
struct Ge {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a >= b;
  }
};

// Logical ops: any nonzero (NaN included) is true.
struct LogicalAnd {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return (a != T(0)) && (b != T(0));
  }
};
struct LogicalOr {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return (a != T(0)) || (b != T(0));
  }
};
struct LogicalXor {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return (a != T(0)) != (b != T(0));
  }
};

// ---- predicates (unary, return bool) ---------------------------------------------------------
struct IsNan {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    return is_nan(x);
  }
};
struct IsInf {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return std::isinf(x);
    else
      return false;
  }
};
struct IsFinite {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return std::isfinite(x);
    else
      return true;
  }
};
struct LogicalNot {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    return x == T(0);
  }
};

}  // namespace ember::math
