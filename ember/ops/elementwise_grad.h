// The gradient formulas of the elementwise lists (core/elementwise_ops.h) that do not fit on one
// line, written with differentiable ops so that second derivatives work. Only ops/elementwise.cpp,
// where the lists' gradient columns are expanded, includes this file; a new formula goes here.
#pragma once

#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"

namespace ember::detail {

inline constexpr double kLn2 = 0.69314718055994530942;
inline constexpr double kLn10 = 2.30258509299404568402;
inline constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
inline constexpr double kSqrtPiOver2 = 0.88622692545275801365;

inline Tensor pow_base_grad(const Tensor& g, const Tensor& a, const Tensor& b) {
  // d/da a^b = b * a^(b-1), and 0 where b == 0 (a^(b-1) may be inf there: 0 * inf is nan).
  return where(eq(b, 0), Scalar(0), g * b * pow(a, b - 1));
}

inline Tensor pow_exponent_grad(const Tensor& g,
                                const Tensor& a,
                                const Tensor& b,
                                const Tensor& out) {
  // d/db a^b = a^b * log(a); PyTorch defines it as 0 where a == 0 and Re(b) >= 0.
  return where(eq(a, 0) * ge(real(b), 0), Scalar(0), g * out * log(a));
}

inline Tensor max_grad(const Tensor& g, const Tensor& a, const Tensor& b) {
  // As PyTorch: ties share the gradient; a NaN operand takes all of it.
  return where(eq(a, b), g / 2, where(lt(a, b), Scalar(0), g));
}

inline Tensor fmax_mask(const Tensor& a, const Tensor& b) { return logical_or(ge(a, b), isnan(b)); }
inline Tensor fmin_mask(const Tensor& a, const Tensor& b) { return logical_or(le(a, b), isnan(b)); }

inline Tensor silu_grad(const Tensor& g, const Tensor& x) {
  const Tensor s = sigmoid(x);
  return g * s * (x * (1 - s) + 1);
}

inline Tensor mish_grad(const Tensor& g, const Tensor& x) {
  const Tensor t = tanh(softplus(x));
  return g * (t + x * sigmoid(x) * (1 - t * t));
}

inline Tensor hardswish_grad(const Tensor& g, const Tensor& x) {
  return where(x < -3, Scalar(0), where(x <= 3, g * (x / 3 + 0.5), g));
}

inline Tensor elu_grad(const Tensor& g, const Tensor& x, const Tensor& out, const UnaryParams& p) {
  // For x <= 0, out = scale * alpha * (exp(input_scale * x) - 1), so the derivative is
  // input_scale * (out + scale * alpha).
  const double alpha = p[0].to_double(), scale = p[1].to_double(), input_scale = p[2].to_double();
  return where(x > 0, g * scale, g * input_scale * (out + scale * alpha));
}

inline Tensor softplus_grad(const Tensor& g, const Tensor& x, const UnaryParams& p) {
  const Tensor z = x * p[0];
  return where(z > p[1], g, g * sigmoid(z));
}

inline Tensor gelu_grad(const Tensor& g, const Tensor& x, bool tanh_approx) {
  if (!tanh_approx) {
    // d/dx x * Phi(x) = Phi(x) + x * phi(x).
    constexpr double kInvSqrt2 = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;
    const Tensor cdf = (erf(x * kInvSqrt2) + 1) * 0.5;
    const Tensor pdf = exp(x * x * -0.5) * kInvSqrt2Pi;
    return g * (cdf + x * pdf);
  }
  constexpr double kBeta = 0.79788456080286535588, kKappa = 0.044715;
  const Tensor t = tanh((x + x * x * x * kKappa) * kBeta);
  const Tensor dinner = (x * x * (3 * kKappa) + 1) * kBeta;
  return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * dinner);
}

inline Tensor logit_grad(const Tensor& g, const Tensor& x, const Scalar& eps) {
  const Tensor grad = g / (x * (1 - x));
  if (eps.to_double() < 0) return grad;
  return where(logical_or(x<eps, x> 1 - eps.to_double()), Scalar(0), grad);
}

// A derivative PyTorch does not define either (igamma's with respect to a, nextafter's): backward
// through it is an error, raised only when that input needs a gradient.
[[noreturn]] inline Tensor grad_not_implemented(const char* op, const char* arg) {
  EMBER_FAIL_KIND(ErrorKind::NotImplemented, "[", op, "] the derivative with respect to ", arg,
                  " is not implemented");
}

// d/dx of log P(a, x)'s integrand: x^(a-1) e^-x / Gamma(a), the derivative of igamma in x.
inline Tensor igamma_x_grad(const Tensor& g, const Tensor& a, const Tensor& x) {
  return g * exp((a - 1) * log(x) - x - lgamma(a));
}

// I1'(x) = I0(x) - I1(x) / x, 1/2 at 0; I1e'(x) = I0e(x) - I1e(x) (sign(x) + 1 / x), 1/2 at 0.
inline Tensor i1_grad(const Tensor& g, const Tensor& x, const Tensor& out) {
  const Tensor safe = where(eq(x, Scalar(0)), Scalar(1), x);
  return g * where(eq(x, Scalar(0)), Scalar(0.5), i0(x) - out / safe);
}
inline Tensor i1e_grad(const Tensor& g, const Tensor& x, const Tensor& out) {
  const Tensor safe = where(eq(x, Scalar(0)), Scalar(1), x);
  return g *
         where(eq(x, Scalar(0)), Scalar(0.5), special_i0e(x) - out * (sign(x) + reciprocal(safe)));
}

}  // namespace ember::detail
