// The gradient formulas of the elementwise lists that do not fit on one line, written with
// differentiable ops so that second derivatives work.
#include <limits>

#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"

namespace ember::detail {

Tensor pow_base_grad(const Tensor& g, const Tensor& a, const Tensor& b) {
  // d/da a^b = b * a^(b-1), and 0 where b == 0 (a^(b-1) may be inf there: 0 * inf is nan).
  return where(eq(b, 0), Scalar(0), g * b * pow(a, b - 1));
}

Tensor pow_exponent_grad(const Tensor& g, const Tensor& a, const Tensor& b, const Tensor& out) {
  // d/db a^b = a^b * log(a); PyTorch defines it as 0 where a == 0 and b >= 0.
  return where(eq(a, 0) * ge(b, 0), Scalar(0), g * out * log(a));
}

Tensor max_grad(const Tensor& g, const Tensor& a, const Tensor& b) {
  // As PyTorch: ties share the gradient; a NaN operand takes all of it.
  return where(eq(a, b), g / 2, where(lt(a, b), Scalar(0), g));
}

Tensor fmax_mask(const Tensor& a, const Tensor& b) { return logical_or(ge(a, b), isnan(b)); }
Tensor fmin_mask(const Tensor& a, const Tensor& b) { return logical_or(le(a, b), isnan(b)); }

Tensor silu_grad(const Tensor& g, const Tensor& x) {
  const Tensor s = sigmoid(x);
  return g * s * (x * (1 - s) + 1);
}

Tensor mish_grad(const Tensor& g, const Tensor& x) {
  const Tensor t = tanh(softplus(x));
  return g * (t + x * sigmoid(x) * (1 - t * t));
}

Tensor hardswish_grad(const Tensor& g, const Tensor& x) {
  return where(x < -3, Scalar(0), where(x <= 3, g * (x / 3 + 0.5), g));
}

Tensor elu_grad(const Tensor& g, const Tensor& x, const Tensor& out, const UnaryParams& p) {
  // For x <= 0, out = scale * alpha * (exp(input_scale * x) - 1), so the derivative is
  // input_scale * (out + scale * alpha).
  const double alpha = p[0].to_double(), scale = p[1].to_double(), input_scale = p[2].to_double();
  return where(x > 0, g * scale, g * input_scale * (out + scale * alpha));
}

Tensor softplus_grad(const Tensor& g, const Tensor& x, const UnaryParams& p) {
  const Tensor z = x * p[0];
  return where(z > p[1], g, g * sigmoid(z));
}

Tensor gelu_grad(const Tensor& g, const Tensor& x, bool tanh_approx) {
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

Tensor logit_grad(const Tensor& g, const Tensor& x, const Scalar& eps) {
  const Tensor grad = g / (x * (1 - x));
  if (eps.to_double() < 0) return grad;
  return where(logical_or(x<eps, x> 1 - eps.to_double()), Scalar(0), grad);
}

Tensor masked_grad(const Tensor& g,
                   const Tensor& t,
                   const Scalar& lo,
                   const std::optional<Scalar>& hi,
                   bool closed) {
  const ElementwiseKernels::MaskedGrad k = kernels(g.device()).elementwise.masked_grad;
  if (!k || g.device() != t.device() || g.dtype() != t.dtype() || !is_floating(g.dtype()) ||
      g.sizes() != t.sizes()) {
    // Backends without the kernel, and gradients of another dtype or shape: the same values in
    // three passes.
    Tensor mask = closed ? ge(t, lo) : gt(t, lo);
    if (hi) mask = mask * (closed ? le(t, *hi) : lt(t, *hi));
    return g * mask;
  }
  // The layout g * mask gives.
  Tensor out = new_output(g.sizes(), g.dtype(), g.device(), &g, &t);
  // No upper bound is +inf, closed: only NaN fails t <= inf, and NaN fails t > lo as well.
  const Scalar h = hi ? *hi : Scalar(std::numeric_limits<double>::infinity());
  k(out, g, t, lo, h, closed, closed || !hi);
  if (any_requires_grad(g)) {
    // d out / d g is the same mask; t gets no gradient (the mask is flat almost everywhere), as
    // the comparisons of the composite expression gave none. PyTorch's name for relu's.
    record("ThresholdBackwardBackward0", {&g}, {&out},
           [st = SavedTensor(t), lo, hi, closed](TensorList& grads, Node& n) {
             return TensorList{masked_grad(grads[0], st.unpack(n), lo, hi, closed)};
           });
  }
  return out;
}

}  // namespace ember::detail
