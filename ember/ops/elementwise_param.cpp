// The public functions of the unary ops with parameters (EMBER_PARAM_UNARY_OPS): PyTorch's
// arguments turned into the functors' parameter lists (the list's params column, with the helpers
// here), and the composites built on elementwise ops (lerp, addcmul, addcdiv, isclose, ...).
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

// The largest and lowest finite values of dtype (for nan_to_num's infinities and clamp's
// missing bounds).
Scalar highest(DType dtype) {
  return dispatch_dtype(dtype, "nan_to_num", [&]<class T>() -> Scalar {
    if constexpr (std::is_same_v<T, bool>)
      return Scalar(true);
    else
      return Scalar(std::numeric_limits<T>::max());
  });
}
Scalar lowest(DType dtype) {
  return dispatch_dtype(dtype, "nan_to_num", [&]<class T>() -> Scalar {
    if constexpr (std::is_same_v<T, bool>)
      return Scalar(false);
    else
      return Scalar(std::numeric_limits<T>::lowest());
  });
}

// clamp's dtype: the input's, promoted with the bounds as Python numbers (weak scalars).
DType clamp_dtype(const Tensor& x,
                  const std::optional<Scalar>& lo,
                  const std::optional<Scalar>& hi) {
  DType dt = x.dtype();
  if (lo) dt = result_type(empty({0}, TensorOptions(dt)), *lo);
  if (hi) dt = result_type(empty({0}, TensorOptions(dt)), *hi);
  return dt;
}

UnaryParams clamp_params(DType dt,
                         const std::optional<Scalar>& lo,
                         const std::optional<Scalar>& hi) {
  EMBER_CHECK(lo || hi, "[clamp] At least one of 'min' or 'max' must not be None");
  return {lo ? *lo : lowest(dt), hi ? *hi : highest(dt), Scalar(0)};
}

UnaryParams nan_to_num_params(DType dt,
                              std::optional<double> nan,
                              std::optional<double> posinf,
                              std::optional<double> neginf) {
  return {Scalar(nan.value_or(0.0)), posinf ? Scalar(*posinf) : highest(dt),
          neginf ? Scalar(*neginf) : lowest(dt)};
}

UnaryParams round_params(const Tensor& x, int64_t decimals) {
  EMBER_CHECK(decimals == 0 || is_floating(x.dtype()),
              "[round] decimals is only supported for floating-point tensors, got ", x.dtype());
  return {Scalar(decimals), Scalar(0), Scalar(0)};
}

UnaryParams gelu_params(std::string_view approximate) {
  EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                    "[gelu] approximate argument must be either none or tanh, got '", approximate,
                    "'");
  return {Scalar(approximate == "tanh"), Scalar(0), Scalar(0)};
}

UnaryParams polygamma_params(int64_t n) {
  EMBER_CHECK(n >= 0, "[polygamma] polygamma(n, x) does not support negative n, got ", n);
  return UnaryParams{Scalar(n), Scalar(0), Scalar(0)};
}

UnaryParams celu_params(const Scalar& alpha) {
  EMBER_CHECK(alpha.to_double() != 0, "[celu] ZeroDivisionError: alpha cannot be 0 for CELU");
  return {alpha, Scalar(1), Scalar(1.0 / alpha.to_double())};
}

}  // namespace

Tensor clamp(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  const DType dt = clamp_dtype(x, min, max);
  const UnaryParams p = clamp_params(dt, min, max);
  return param_unary(ParamUnaryOp::clamp, dt == x.dtype() ? x : x.to(dt), p);
}

Tensor clamp(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  EMBER_CHECK(min || max, "[clamp] At least one of 'min' or 'max' must not be None");
  Tensor out = x;
  if (min) out = maximum(out, *min);
  if (max) out = minimum(out, *max);
  return out;
}

Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  const DType dt = clamp_dtype(self, min, max);  // a float bound makes an integer tensor float
  EMBER_CHECK(dt == self.dtype(), "[clamp_] result type ", dt,
              " can't be cast to the desired output type ", self.dtype());
  return param_unary_(ParamUnaryOp::clamp, self, clamp_params(self.dtype(), min, max));
}

#define ARG(type, name) , type name
#define DEF(type, name, value) , type name
#define KW_ONLY
#define EMBER_DEFINE_PARAM_fn(name, signature, params)   \
  Tensor name(const Tensor& x EMBER_UNPAREN signature) { \
    return param_unary(ParamUnaryOp::name, x, params);   \
  }
#define EMBER_DEFINE_PARAM_fn_inplace(name, signature, params) \
  EMBER_DEFINE_PARAM_fn(name, signature, params)               \
      Tensor& name##_(Tensor& x EMBER_UNPAREN signature) {     \
    return param_unary_(ParamUnaryOp::name, x, params);        \
  }
#define EMBER_DEFINE_PARAM_manual(name, signature, params)
#define EMBER_DEFINE_PARAM(name, F, dtypes, to_float, saves, grad, form, signature, params) \
  EMBER_DEFINE_PARAM_##form(name, signature, params)
EMBER_PARAM_UNARY_OPS(EMBER_DEFINE_PARAM)
#undef EMBER_DEFINE_PARAM
#undef EMBER_DEFINE_PARAM_manual
#undef EMBER_DEFINE_PARAM_fn_inplace
#undef EMBER_DEFINE_PARAM_fn
#undef KW_ONLY
#undef DEF
#undef ARG

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(a.dtype() == b.dtype(), "[isclose] expected both inputs to have the same dtype, got ",
              a.dtype(), " and ", b.dtype());
  EMBER_CHECK_VALUE(rtol >= 0 && atol >= 0, "[isclose] rtol and atol must be non-negative, got ",
                    rtol, " and ", atol);
  NoGradGuard no_grad;
  Tensor close = eq(a, b);  // exact matches, infinities included
  if (equal_nan) close = logical_or(close, logical_and(isnan(a), isnan(b)));
  if (a.dtype() == kBool) return close;
  // |a - b| <= atol + rtol * |b| in floating point (in the default float for integers), finite
  // values only: inf - inf is nan and fails, as it should unless the values were equal.
  const DType dt = is_floating(a.dtype()) ? a.dtype() : get_default_dtype();
  const Tensor fa = a.to(dt), fb = b.to(dt);
  const Tensor within = le(abs(fa - fb), abs(fb) * rtol + atol);
  return logical_or(close, logical_and(within, logical_and(isfinite(fa), isfinite(fb))));
}

namespace {

void check_lerp(const Tensor& start, const Tensor& end, const char* op) {
  EMBER_CHECK_TYPE(is_floating(start.dtype()), "[", op, "] expected a floating-point tensor, got ",
                   start.dtype());
  EMBER_CHECK(start.dtype() == end.dtype(), "[", op, "] expected dtype ", start.dtype(),
              " for `end` but got dtype ", end.dtype());
}

// self = result, where result was computed out of place from self's old value; it must have
// self's shape and a dtype self can hold (Note [In-place ops and autograd]).
Tensor& assign(Tensor& self, const Tensor& result, const char* op) {
  EMBER_CHECK(result.sizes() == self.sizes(), "[", op, "] output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", result.sizes());
  EMBER_CHECK(
      result.dtype() == self.dtype() || is_floating(self.dtype()) || !is_floating(result.dtype()),
      "[", op, "] result type ", result.dtype(), " can't be cast to the desired output type ",
      self.dtype());
  const bool recording = any_requires_grad(self) || result.requires_grad();
  check_inplace(self, op, recording);
  if (!recording) {
    NoGradGuard no_grad;
    copy_(self, result);
    return self;
  }
  detail::commit_recorded(self, result.dtype() == self.dtype() ? result : result.to(self.dtype()),
                          op);
  return self;
}

}  // namespace

Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight) {
  check_lerp(start, end, "lerp");
  const double w = weight.to_double();
  const Tensor diff = end - start;
  return w < 0.5 ? start + diff * weight : end - diff * (1.0 - w);
}

Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  check_lerp(start, end, "lerp");
  EMBER_CHECK(weight.dtype() == start.dtype(), "[lerp] expected dtype ", start.dtype(),
              " for `weight` but got dtype ", weight.dtype());
  const Tensor diff = end - start;
  return where(lt(abs(weight), 0.5), start + weight * diff, end - diff * (1 - weight));
}

Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight) {
  return assign(self, lerp(self.requires_grad() ? ember::clone(self) : self, end, weight), "lerp_");
}

Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight) {
  return assign(self, lerp(self.requires_grad() ? ember::clone(self) : self, end, weight), "lerp_");
}

Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  EMBER_CHECK_TYPE(input.dtype() != kBool || value.is_bool(),
                   "[addcmul] not implemented for dtype bool with a non-bool value");
  const Tensor prod = t1 * t2;
  return input + (value.is_integral() && value.to_int() == 1 ? prod : prod * value);
}

Tensor& addcmul_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return assign(self, addcmul(self.requires_grad() ? ember::clone(self) : self, t1, t2, value),
                "addcmul_");
}

Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  EMBER_CHECK(is_floating(t1.dtype()) || is_floating(t2.dtype()),
              "[addcdiv] Integer division with addcdiv is not supported; use addcmul with "
              "tensor1.div(tensor2) or floating tensors (got ",
              t1.dtype(), " and ", t2.dtype(), ")");
  const Tensor q = t1 / t2;
  return input + (value.is_integral() && value.to_int() == 1 ? q : q * value);
}

Tensor& addcdiv_(Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return assign(self, addcdiv(self.requires_grad() ? ember::clone(self) : self, t1, t2, value),
                "addcdiv_");
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all(isclose(a, b, rtol, atol, equal_nan)).item().to_bool();
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  NoGradGuard no_grad;
  return all(eq(a, b)).item().to_bool();
}

}  // namespace ember
