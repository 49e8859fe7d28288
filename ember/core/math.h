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
    if constexpr (is_std_complex<T>)
      return T(std::abs(x));  // abs() of a complex tensor is real: ops/complex.cpp's kernel
    else if constexpr (std::is_unsigned_v<T>)
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
// ---- special functions (torch.special) ------------------------------------------------------
// Written here, in double precision, because they are short and have no well-kept C++ library
// that fits (Boost.Math would be a large dependency for ten functions; Cephes, which PyTorch
// ports, is unmaintained C): docs/design/special.md gives the methods and their accuracy.

// psi(x) = d/dx log Gamma(x): reflection below 0, recurrence up to x >= 10, then the asymptotic
// series in 1/x^2. Poles at 0 and the negative integers: -inf at 0 (PyTorch's choice), NaN at
// the others.
EMBER_HOST_DEVICE inline double digamma_double(double x) {
  constexpr double kPi = 3.14159265358979323846;
  if (x == 0) return std::signbit(x) ? INFINITY : -INFINITY;
  if (x < 0) {
    if (x == std::floor(x)) return NAN;
    // psi(x) = psi(1 - x) - pi / tan(pi x).
    return digamma_double(1.0 - x) - kPi / std::tan(kPi * x);
  }
  double acc = 0;
  while (x < 10) {
    acc -= 1.0 / x;
    x += 1;
  }
  const double r = 1.0 / (x * x);
  // Bernoulli-number terms B_2k / (2k x^2k), k = 1..7.
  const double series =
      r * (1.0 / 12 -
           r * (1.0 / 120 -
                r * (1.0 / 252 -
                     r * (1.0 / 240 - r * (1.0 / 132 - r * (691.0 / 32760 - r * (1.0 / 12)))))));
  return acc + std::log(x) - 0.5 / x - series;
}

// The Hurwitz zeta function zeta(s, q) = sum_{k >= 0} (k + q)^-s for s > 1, by Euler-Maclaurin
// summation (the method of Cephes' zeta): the first terms summed, the tail as an integral plus
// Bernoulli corrections. inf at q a non-positive integer, NaN for s < 1 (s = 1: inf).
EMBER_HOST_DEVICE inline double zeta_double(double s, double q) {
  if (s == 1) return INFINITY;
  if (s < 1) return NAN;
  if (std::isinf(q) && q > 0) return 0.0;  // every term vanishes
  if (q <= 0) {
    if (q == std::floor(q)) return INFINITY;
    return NAN;  // as Cephes and PyTorch: q < 0 needs s an integer, left undefined
  }
  // A_j = (2j)! / B_2j, for the Euler-Maclaurin terms.
  constexpr double kA[] = {12.0,
                           -720.0,
                           30240.0,
                           -1209600.0,
                           47900160.0,
                           -1.8924375803183791606e9,
                           7.47242496e10,
                           -2.950130727918164224e12,
                           1.1646782814350067249e14,
                           -4.5979787224074726105e15,
                           1.8152105401943546773e17,
                           -7.1661652561756670113e18};
  double sum = std::pow(q, -s);
  double a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1.0;
    b = std::pow(a, -s);
    sum += b;
    if (std::abs(b / sum) < 1e-17) return sum;
  }
  const double w = a;
  sum += b * w / (s - 1.0);
  sum -= 0.5 * b;
  double fac = 1.0, k = 0.0;
  for (double A : kA) {
    fac *= s + k;
    b /= w;
    const double t = fac * b / A;
    sum += t;
    if (std::abs(t / sum) < 1e-17) break;
    k += 1.0;
    fac *= s + k;
    b /= w;
    k += 1.0;
  }
  return sum;
}

// The n-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
EMBER_HOST_DEVICE inline double polygamma_double(int64_t n, double x) {
  if (n == 0) return digamma_double(x);
  // A pole of every order: (-1)^(n+1) inf, as SciPy and PyTorch.
  if (x <= 0 && x == std::floor(x)) return n % 2 ? INFINITY : -INFINITY;
  // Below 0, the recurrence psi_n(x) = psi_n(x + 1) - (-1)^n n! / x^(n+1) moves x above 0.
  const double fact = std::tgamma(double(n) + 1);
  const double sign_n = n % 2 ? -1.0 : 1.0;  // (-1)^n
  double acc = 0;
  while (x < 0) {
    acc -= sign_n * fact / std::pow(x, double(n) + 1);
    x += 1;
  }
  return acc - sign_n * fact * zeta_double(double(n) + 1, x);
}

// Modified Bessel functions of the first kind, orders 0 and 1, and their exponentially scaled
// forms (times exp(-|x|)). Below |x| = 30 the power series, whose terms are all positive, so no
// cancellation; above, the asymptotic series e^x / sqrt(2 pi x) sum_k c_k / x^k.
EMBER_HOST_DEVICE inline double bessel_i_series(int order, double x) {
  const double h = 0.5 * x, h2 = h * h;
  double term = order == 0 ? 1.0 : h;
  double sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= h2 / (double(k) * double(k + order));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}
// exp(-|x|) I_order(|x|) for |x| >= 30.
EMBER_HOST_DEVICE inline double bessel_ie_asymptotic(int order, double ax) {
  constexpr double kTwoPi = 6.28318530717958647692;
  const double mu = 4.0 * order * order;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 30; ++k) {
    const double odd = 2.0 * k - 1.0;
    const double next = -term * (mu - odd * odd) / (double(k) * 8.0 * ax);
    if (std::abs(next) >= std::abs(term)) break;  // the series starts diverging
    term = next;
    sum += term;
    if (std::abs(term) < 1e-17 * std::abs(sum)) break;
  }
  return sum / std::sqrt(kTwoPi * ax);
}
EMBER_HOST_DEVICE inline double i0_double(double x) {
  const double ax = std::abs(x);
  if (ax < 30) return bessel_i_series(0, ax);
  return bessel_ie_asymptotic(0, ax) * std::exp(ax);
}
EMBER_HOST_DEVICE inline double i0e_double(double x) {
  const double ax = std::abs(x);
  if (ax < 30) return bessel_i_series(0, ax) * std::exp(-ax);
  return bessel_ie_asymptotic(0, ax);
}
EMBER_HOST_DEVICE inline double i1_double(double x) {
  const double ax = std::abs(x);
  const double v = ax < 30 ? bessel_i_series(1, ax) : bessel_ie_asymptotic(1, ax) * std::exp(ax);
  return x < 0 ? -v : v;
}
EMBER_HOST_DEVICE inline double i1e_double(double x) {
  const double ax = std::abs(x);
  const double v = ax < 30 ? bessel_i_series(1, ax) * std::exp(-ax) : bessel_ie_asymptotic(1, ax);
  return x < 0 ? -v : v;
}

// The regularized incomplete gamma functions P(a, x) (igamma) and Q(a, x) = 1 - P (igammac):
// the series of P for x < a + 1, Lentz's continued fraction of Q otherwise (Numerical Recipes'
// split), each computed directly so that the small one keeps its relative accuracy.
EMBER_HOST_DEVICE inline double igamma_series(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < 2000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::abs(term) < std::abs(sum) * 1e-17) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}
EMBER_HOST_DEVICE inline double igammac_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / kTiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 2000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < 1e-16) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}
// Domain as PyTorch's: a > 0 and x >= 0, else NaN; a = 0 gives P = 1 for x > 0.
EMBER_HOST_DEVICE inline double igamma_double(double a, double x, bool upper) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return NAN;
  if (a == 0) {
    if (x > 0) return upper ? 0.0 : 1.0;
    return NAN;
  }
  if (x == 0) return upper ? 1.0 : 0.0;
  if (std::isinf(a)) return std::isinf(x) ? NAN : (upper ? 1.0 : 0.0);
  if (std::isinf(x)) return upper ? 0.0 : 1.0;
  if (x < a + 1.0) {
    const double p = igamma_series(a, x);
    return upper ? 1.0 - p : p;
  }
  const double q = igammac_fraction(a, x);
  return upper ? q : 1.0 - q;
}

// The functors: each computes in double and rounds once to the element type.
#define EMBER_DOUBLE_UNARY(Name, fn)            \
  struct Name {                                 \
    template <class T>                          \
    EMBER_HOST_DEVICE T operator()(T x) const { \
      return T(fn(double(x)));                  \
    }                                           \
  };
EMBER_DOUBLE_UNARY(Lgamma, std::lgamma)
EMBER_DOUBLE_UNARY(Digamma, digamma_double)
EMBER_DOUBLE_UNARY(I0, i0_double)
EMBER_DOUBLE_UNARY(I0e, i0e_double)
EMBER_DOUBLE_UNARY(I1, i1_double)
EMBER_DOUBLE_UNARY(I1e, i1e_double)
#undef EMBER_DOUBLE_UNARY

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
// The n-th derivative of digamma, n = p[0] >= 0.
template <class A>
struct Polygamma {
  int64_t n;
  explicit Polygamma(const Scalar* p) : n(p[0].to<int64_t>()) {}
  EMBER_HOST_DEVICE A operator()(A x) const { return A(polygamma_double(n, double(x))); }
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
    if constexpr (is_std_complex<T>) {
      // Small integer powers by multiplication, as PyTorch's: exact where std::pow rounds.
      if (b == T(2)) return a * a;
      if (b == T(3)) return a * a * a;
      return std::pow(a, b);
    } else if constexpr (std::is_floating_point_v<T>) {
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
struct Igamma {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T x) const {
    return T(igamma_double(double(a), double(x), false));
  }
};
struct Igammac {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T x) const {
    return T(igamma_double(double(a), double(x), true));
  }
};
struct Nextafter {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return std::nextafter(a, b);
  }
};
struct Zeta {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T s, T q) const {
    return T(zeta_double(double(s), double(q)));
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
  if constexpr (is_std_complex<T>)
    return x.real() != x.real() || x.imag() != x.imag();  // either part, as PyTorch's isnan
  else if constexpr (std::is_floating_point_v<T>)
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
    if constexpr (is_std_complex<T>)
      return std::isinf(x.real()) || std::isinf(x.imag());
    else if constexpr (std::is_floating_point_v<T>)
      return std::isinf(x);
    else
      return false;
  }
};
struct IsFinite {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x) const {
    if constexpr (is_std_complex<T>)
      return std::isfinite(x.real()) && std::isfinite(x.imag());
    else if constexpr (std::is_floating_point_v<T>)
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
