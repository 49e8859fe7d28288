// Sampling ops with tensor parameters and the in-place samplers. The draws come from the random
// kernel (backend/cpu/random.cpp: Philox, element i from counter base + i / 2) or the
// multinomial kernel (one counter range per row), so results depend on the seed only, never on
// the thread count. The in-place samplers draw into a fresh tensor and copy_ it into self, which
// makes copy_'s checks and, on a tensor that requires grad, a zero gradient for the old values.
#include "ember/ops/random.h"

#include <cmath>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/statistics.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kRandomOps[] = {
    {"rand", OpKind::Random, kFloatingTypes | kComplexTypes, false},
    {"randn", OpKind::Random, kFloatingTypes | kComplexTypes, false},
    {"randint", OpKind::Random, kNumericTypes, false},
    {"randperm", OpKind::Random, kNumericTypes, false},
    {"rand_like", OpKind::Random, kFloatingTypes | kComplexTypes, false},
    {"randn_like", OpKind::Random, kFloatingTypes | kComplexTypes, false},
    {"randint_like", OpKind::Random, kNumericTypes, false},
    {"bernoulli", OpKind::Random, kFloatingTypes, false},
    {"multinomial", OpKind::Random, kFloatingTypes, false},
    {"normal", OpKind::Random, kFloatingTypes, false},
    {"normal_", OpKind::Random, kFloatingTypes, false},
    {"uniform_", OpKind::Random, kFloatingTypes, false},
    {"exponential_", OpKind::Random, kFloatingTypes, false},
    {"random_", OpKind::Random, kAllTypes, false},
    {"bernoulli_", OpKind::Random, kAllTypes, false},
    {"_standard_gamma", OpKind::Random, kFloatingTypes, false},
    {"poisson", OpKind::Random, kFloatingTypes, false},
    {"binomial", OpKind::Random, kFloatingTypes, false},
};

Generator& gen_or_default(Generator* g) { return g ? *g : default_generator(); }

// The options of a *_like tensor: like's dtype and device where `o` gives none.
TensorOptions options_like(const Tensor& like, TensorOptions o) {
  return o.dtype(o.dtype_.value_or(like.dtype()))
      .device(o.device_ == kCPU ? like.device() : o.device_);
}

// A contiguous tensor of samples from the random kernel, outside autograd.
Tensor draw(RandomDist dist,
            IntArrayRef size,
            DType dtype,
            Device device,
            Generator* gen,
            const Scalar& a,
            const Scalar& b,
            const char* op) {
  Tensor out = empty(size, TensorOptions(dtype).device(device));
  kernel(kernels(device).random.random, device, op)(dist, out, gen_or_default(gen), a, b);
  return out;
}

// A new tensor of samples (rand, randn, randint); requires_grad as the options ask.
Tensor sample(RandomDist dist,
              IntArrayRef size,
              TensorOptions o,
              Generator* gen,
              const Scalar& a,
              const Scalar& b,
              const char* op) {
  const DType dt = o.dtype_.value_or(get_default_dtype());
  const bool pairs = dist != RandomDist::Integer && is_complex(dt);
  if (dist != RandomDist::Integer) {
    EMBER_CHECK(is_floating(dt) || pairs, "[", op, "] expected a floating or complex dtype, got ",
                dt);
  }
  Tensor out = empty(size, o.requires_grad(false).dtype(dt));
  // A complex tensor is filled through its (re, im) pairs: PyTorch's complex rand and randn have
  // independent parts, uniform on [0, 1) or normal with variance 1/2 each (so E|z|^2 = 1).
  Tensor target = pairs ? view_as_real(out) : out;
  kernel(kernels(out.device()).random.random, out.device(), op)(dist, target, gen_or_default(gen),
                                                                a, b);
  if (pairs && dist == RandomDist::Normal) target.mul_(Scalar(std::sqrt(0.5)));
  if (o.requires_grad_) out.requires_grad_(true);
  return out;
}

// The uniforms a tensor of probabilities is compared with: float64 for float64 probabilities,
// float32 (24 random bits) otherwise, as PyTorch's bernoulli_distribution<double> / <float>.
DType uniform_dtype(const Tensor& p) { return p.dtype() == kFloat64 ? kFloat64 : kFloat32; }

bool any_true(const Tensor& mask) { return any(mask).item().to_double() != 0; }

void check_floating(const Tensor& t, const char* op, const char* what) {
  // RuntimeError, as PyTorch's "not implemented for 'Long'".
  EMBER_CHECK(is_floating(t.dtype()), "[", op, "] expected a floating-point ", what, ", got dtype ",
              t.dtype());
}

// Probabilities must lie in [0, 1] (NaN does not).
void check_probabilities(const Tensor& p, const char* op) {
  NoGradGuard no_grad;
  EMBER_CHECK(!any_true(logical_not(bitwise_and(ge(p, 0), le(p, 1)))), "[", op,
              "] expected all probabilities p to be in [0, 1]");
}

void check_probability(double p, const char* op) {
  EMBER_CHECK(p >= 0 && p <= 1, "[", op, "] expected 0 <= p <= 1, but got p=", p);
}

// As PyTorch: the samples do not depend differentiably on the parameters, so the parameters get
// a zero gradient (rather than none).
void record_zero_grad(const char* name, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (!any_requires_grad(a, b)) return;
  record(name, {&a, &b}, {&out}, [](TensorList& g, Node&) {
    return TensorList{zeros_like(g[0]), zeros_like(g[0])};
  });
}
void record_zero_grad(const char* name, const Tensor& a, const Tensor& out) {
  if (!any_requires_grad(a)) return;
  record(name, {&a}, {&out}, [](TensorList& g, Node&) { return TensorList{zeros_like(g[0])}; });
}

// mean + std * z for standard normal z of `shape`, in `dtype`, without a graph.
Tensor normal_impl(const Tensor& mean, const Tensor& std, Generator* gen) {
  const DType dt = result_type(mean, std);
  EMBER_CHECK(is_floating(dt), "[normal] expected floating-point mean and std, got dtypes ",
              mean.dtype(), " and ", std.dtype());
  NoGradGuard no_grad;
  EMBER_CHECK(!any_true(lt(std, 0)), "[normal] expected all elements of std >= 0.0");
  const DimVector shape = broadcast_shapes(mean.sizes(), std.sizes(), "normal");
  const Tensor z = draw(RandomDist::Normal, shape, dt, mean.device(), gen, 0.0, 1.0, "normal");
  return add(to_dtype(mean, dt), mul(to_dtype(std, dt), z));
}

void check_std(double std, const char* op) {
  EMBER_CHECK(std >= 0, "[", op, "] expected std >= 0.0, but found std ", std);
}

// Replaces self's values by `src` (self's shape) after the in-place checks, naming `op`.
Tensor& overwrite(Tensor& self, const Tensor& src, const char* op) {
  check_inplace(self, op, any_requires_grad(self));
  return copy_(self, src);
}

// The number of consecutive integers from 0 that `dtype` holds exactly (floating) minus one, or
// its largest value (integers, bool).
int64_t random_max(DType dtype) {
  switch (dtype) {
    case kFloat16:
      return int64_t(1) << 11;
    case kBFloat16:
      return int64_t(1) << 8;
    case kFloat32:
      return int64_t(1) << 24;
    case kFloat64:
      return int64_t(1) << 53;
    default:
      return dispatch_dtype<kIntegralTypes | kBool>(
          dtype, "random_", []<class T>() { return int64_t(std::numeric_limits<T>::max()); });
  }
}

int64_t random_min(DType dtype) {
  if (is_floating(dtype)) return -random_max(dtype);
  return dispatch_dtype<kIntegralTypes | kBool>(
      dtype, "random_", []<class T>() { return int64_t(std::numeric_limits<T>::lowest()); });
}

}  // namespace

std::span<const OpInfo> random_op_infos() { return kRandomOps; }

Tensor rand(IntArrayRef size, TensorOptions o, Generator* gen) {
  return sample(RandomDist::Uniform, size, o, gen, 0.0, 1.0, "rand");
}
Tensor randn(IntArrayRef size, TensorOptions o, Generator* gen) {
  return sample(RandomDist::Normal, size, o, gen, 0.0, 1.0, "randn");
}
Tensor randint(int64_t low, int64_t high, IntArrayRef size, TensorOptions o, Generator* gen) {
  EMBER_CHECK(low < high, "[randint] expected low < high, got low=", low, ", high=", high);
  if (!o.dtype_) o.dtype_ = kInt64;
  const DType dt = *o.dtype_;
  if (is_integral(dt) || dt == kBool) {
    // [low, high) must fit the dtype, as PyTorch checks ("from/to is out of bounds").
    const bool fits = dispatch_dtype(dt, "randint", [&]<class T>() {
      return low >= int64_t(std::numeric_limits<T>::lowest()) &&
             high - 1 <= int64_t(std::numeric_limits<T>::max());
    });
    EMBER_CHECK(fits, "[randint] the range [", low, ", ", high, ") is out of bounds for dtype ",
                dt);
  }
  return sample(RandomDist::Integer, size, o, gen, low, high, "randint");
}
Tensor randperm(int64_t n, TensorOptions o, Generator* gen) {
  EMBER_CHECK(n >= 0, "[randperm] n must be non-negative, got ", n);
  if (!o.dtype_) o.dtype_ = kInt64;
  if (is_floating(*o.dtype_)) {
    // Every value 0..n-1 must be exact, or the permutation would repeat values.
    const int digits = *o.dtype_ == kFloat16    ? 11
                       : *o.dtype_ == kBFloat16 ? 8
                       : *o.dtype_ == kFloat32  ? 24
                                                : 53;
    EMBER_CHECK(n <= (int64_t(1) << digits) + 1, "[randperm] n must be at most ",
                (int64_t(1) << digits) + 1, " for dtype ", *o.dtype_, ", got ", n);
  }
  Tensor t = empty({n}, o.requires_grad(false));
  kernel(kernels(t.device()).random.randperm, t.device(), "randperm")(t, gen_or_default(gen));
  if (o.requires_grad_) t.requires_grad_(true);
  return t;
}

Tensor rand_like(const Tensor& like, TensorOptions o, Generator* gen) {
  return rand(like.sizes(), options_like(like, o), gen);
}
Tensor randn_like(const Tensor& like, TensorOptions o, Generator* gen) {
  return randn(like.sizes(), options_like(like, o), gen);
}
Tensor randint_like(
    const Tensor& like, int64_t low, int64_t high, TensorOptions o, Generator* gen) {
  return randint(low, high, like.sizes(), options_like(like, o), gen);
}

Tensor bernoulli(const Tensor& p, Generator* gen) {
  check_floating(p, "bernoulli", "tensor of probabilities");
  check_probabilities(p, "bernoulli");
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor u = draw(RandomDist::Uniform, p.sizes(), uniform_dtype(p), p.device(), gen, 0.0,
                          1.0, "bernoulli");
    out = to_dtype(lt(u, p), p.dtype());
  }
  record_zero_grad("BernoulliBackward0", p, out);
  return out;
}

Tensor bernoulli(const Tensor& self, double p, Generator* gen) {
  check_floating(self, "bernoulli", "tensor");
  check_probability(p, "bernoulli");
  NoGradGuard no_grad;
  const Tensor u =
      draw(RandomDist::Uniform, self.sizes(), kFloat64, self.device(), gen, 0.0, 1.0, "bernoulli");
  return to_dtype(lt(u, p), self.dtype());
}

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement, Generator* gen) {
  EMBER_CHECK(is_floating(input.dtype()),
              "[multinomial] only supports floating-point dtypes for input, got ", input.dtype());
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2,
              "[multinomial] expected a 1-D or 2-D tensor of weights, got ", input.dim(), "-D");
  EMBER_CHECK(num_samples > 0, "[multinomial] cannot sample n_sample <= 0 samples, got ",
              num_samples);
  const int64_t n = input.sizes()[input.dim() - 1];
  EMBER_CHECK(n > 0, "[multinomial] the number of categories cannot be zero");
  EMBER_CHECK(replacement || num_samples <= n,
              "[multinomial] cannot sample n_sample > prob_dist.size(-1) samples without "
              "replacement (n_sample=",
              num_samples, ", categories=", n, ")");
  NoGradGuard no_grad;
  const int64_t rows = input.dim() == 1 ? 1 : input.sizes()[0];
  const Tensor w = contiguous(to_dtype(reshape(input, {rows, n}), kFloat64));
  EMBER_CHECK(!any_true(logical_not(bitwise_and(isfinite(w), ge(w, 0)))),
              "[multinomial] probability tensor contains either `inf`, `nan` or element < 0");
  if (rows > 0) {
    EMBER_CHECK(amin(sum(w, {1})).item().to_double() > 0,
                "[multinomial] invalid multinomial distribution (sum of probabilities <= 0)");
    EMBER_CHECK(replacement || amin(count_nonzero(w, {1})).item().to_int() >= num_samples,
                "[multinomial] invalid multinomial distribution (with replacement=False, not "
                "enough non-negative category to sample): asked for ",
                num_samples, " samples");
  }
  Tensor out = empty({rows, num_samples}, TensorOptions(kInt64).device(input.device()));
  kernel(kernels(input.device()).random.multinomial, input.device(), "multinomial")(
      out, w, replacement, gen_or_default(gen));
  return input.dim() == 1 ? reshape(out, {num_samples}) : out;
}

Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  Tensor out = normal_impl(mean, std, gen);
  record_zero_grad("NormalBackward3", mean, std, out);
  return out;
}

Tensor normal(double mean, const Tensor& std, Generator* gen) {
  check_floating(std, "normal", "std");
  Tensor out =
      normal_impl(scalar_tensor(mean, TensorOptions(std.dtype()).device(std.device())), std, gen);
  record_zero_grad("NormalBackward2", std, out);
  return out;
}

Tensor normal(const Tensor& mean, double std, Generator* gen) {
  check_floating(mean, "normal", "mean");
  check_std(std, "normal");
  Tensor out =
      normal_impl(mean, scalar_tensor(std, TensorOptions(mean.dtype()).device(mean.device())), gen);
  record_zero_grad("NormalBackward1", mean, out);
  return out;
}

Tensor normal(double mean, double std, IntArrayRef size, TensorOptions o, Generator* gen) {
  check_std(std, "normal");
  const DType dt = o.dtype_.value_or(get_default_dtype());
  EMBER_CHECK_TYPE(is_floating(dt), "[normal] expected a floating dtype, got ", dt);
  Tensor out = draw(RandomDist::Normal, size, dt, o.device_, gen, mean, std, "normal");
  if (o.requires_grad_) out.requires_grad_(true);
  return out;
}

Tensor& normal_(Tensor& self, double mean, double std, Generator* gen) {
  check_floating(self, "normal_", "tensor");
  check_std(std, "normal_");
  check_inplace(self, "normal_", any_requires_grad(self));
  return overwrite(self,
                   draw(RandomDist::Normal, self.sizes(), self.dtype(), self.device(), gen, mean,
                        std, "normal_"),
                   "normal_");
}

Tensor& uniform_(Tensor& self, double from, double to, Generator* gen) {
  check_floating(self, "uniform_", "tensor");
  EMBER_CHECK(from <= to, "[uniform_] expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  check_inplace(self, "uniform_", any_requires_grad(self));
  return overwrite(self,
                   draw(RandomDist::Uniform, self.sizes(), self.dtype(), self.device(), gen, from,
                        to, "uniform_"),
                   "uniform_");
}

Tensor& exponential_(Tensor& self, double lambd, Generator* gen) {
  check_floating(self, "exponential_", "tensor");
  EMBER_CHECK(lambd > 0, "[exponential_] expects lambda > 0.0, but found lambda=", lambd);
  check_inplace(self, "exponential_", any_requires_grad(self));
  return overwrite(self,
                   draw(RandomDist::Exponential, self.sizes(), self.dtype(), self.device(), gen,
                        lambd, 0.0, "exponential_"),
                   "exponential_");
}

Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen) {
  const int64_t lo = random_min(self.dtype()), hi = random_max(self.dtype());
  if (to) {
    EMBER_CHECK(from < *to, "[random_] expects 'from' to be less than 'to', but got from=", from,
                " >= to=", *to);
    EMBER_CHECK(from >= lo && *to - 1 <= hi, "[random_] the range [", from, ", ", *to,
                ") is out of bounds for dtype ", self.dtype(), " (values in [", lo, ", ", hi, "])");
  } else {
    EMBER_CHECK(from >= lo && from <= hi, "[random_] from=", from, " is out of bounds for dtype ",
                self.dtype());
  }
  check_inplace(self, "random_", any_requires_grad(self));
  // [from, hi + 1); hi + 1 overflows int64 only for int64, where the kernel's unsigned span
  // arithmetic reads INT64_MIN as 2^63.
  const int64_t end = to ? *to
                      : hi == std::numeric_limits<int64_t>::max()
                          ? std::numeric_limits<int64_t>::min()
                          : hi + 1;
  // Drawn as int64 (exact for every bound above) and converted by copy_.
  return overwrite(
      self,
      draw(RandomDist::Integer, self.sizes(), kInt64, self.device(), gen, from, end, "random_"),
      "random_");
}

Tensor& random_(Tensor& self, Generator* gen) { return random_(self, 0, std::nullopt, gen); }

Tensor& bernoulli_(Tensor& self, double p, Generator* gen) {
  EMBER_CHECK_TYPE(!is_complex(self.dtype()), "[bernoulli_] not implemented for dtype ",
                   self.dtype());
  check_probability(p, "bernoulli_");
  check_inplace(self, "bernoulli_", any_requires_grad(self));
  const Tensor u =
      draw(RandomDist::Uniform, self.sizes(), kFloat64, self.device(), gen, 0.0, 1.0, "bernoulli_");
  return overwrite(self, lt(u, p), "bernoulli_");
}

Tensor& bernoulli_(Tensor& self, const Tensor& p, Generator* gen) {
  EMBER_CHECK_TYPE(!is_complex(self.dtype()), "[bernoulli_] not implemented for dtype ",
                   self.dtype());
  check_floating(p, "bernoulli_", "tensor of probabilities");
  EMBER_CHECK(is_expandable_to(p.sizes(), self.sizes()), "[bernoulli_] the probabilities of shape ",
              p.sizes(), " cannot be broadcast to self's shape ", self.sizes());
  check_probabilities(p, "bernoulli_");
  check_inplace(self, "bernoulli_", any_requires_grad(self));
  Tensor hit;
  {
    NoGradGuard no_grad;  // p may require grad: the comparison has no gradient anyway
    hit = lt(draw(RandomDist::Uniform, self.sizes(), uniform_dtype(p), self.device(), gen, 0.0, 1.0,
                  "bernoulli_"),
             p);
  }
  return overwrite(self, hit, "bernoulli_");
}

namespace {
// One draw per element of the broadcast parameters, in float64 by the sample kernel, returned in
// the parameters' dtype.
Tensor param_sample(
    ParamSampler which, const Tensor& a, const Tensor& b, Generator* gen, const char* op) {
  check_floating(a, op, "tensor of parameters");
  NoGradGuard no_grad;
  Tensor pa = a, pb;
  DType dt = a.dtype();
  if (b.defined()) {
    check_floating(b, op, "tensor of parameters");
    dt = result_type(a, b);
    const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), op);
    pa = expand(a, shape);
    pb = contiguous(to_dtype(expand(b, shape), kFloat64));
  }
  pa = contiguous(to_dtype(pa, kFloat64));
  Tensor out = empty(pa.sizes(), TensorOptions(kFloat64).device(a.device()));
  kernel(kernels(a.device()).random.sample, a.device(), op)(which, out, pa, pb,
                                                            gen_or_default(gen));
  return to_dtype(out, dt);
}
}  // namespace

Tensor _standard_gamma(const Tensor& alpha, Generator* gen) {
  {
    NoGradGuard no_grad;
    check_floating(alpha, "_standard_gamma", "tensor of concentrations");
    EMBER_CHECK(!any_true(lt(alpha, 0)),
                "[_standard_gamma] expected all concentrations >= 0 (Gamma's alpha)");
  }
  Tensor out = param_sample(ParamSampler::Gamma, alpha, Tensor(), gen, "_standard_gamma");
  // As PyTorch: never 0, the smallest normal number of the dtype instead (log stays finite).
  NoGradGuard no_grad;
  // The smallest normal number: float16's 2^-14, bfloat16's and float32's 2^-126.
  const double tiny = out.dtype() == kFloat64   ? std::numeric_limits<double>::min()
                      : out.dtype() == kFloat16 ? 6.103515625e-05
                                                : double(std::numeric_limits<float>::min());
  return clamp(out, std::optional<Scalar>(Scalar(tiny)));
}

Tensor poisson(const Tensor& rates, Generator* gen) {
  {
    NoGradGuard no_grad;
    check_floating(rates, "poisson", "tensor of rates");
    EMBER_CHECK(!any_true(logical_not(ge(rates, 0))),
                "[poisson] invalid Poisson rate, expected rate to be non-negative");
  }
  Tensor out = param_sample(ParamSampler::Poisson, rates, Tensor(), gen, "poisson");
  record_zero_grad("PoissonBackward0", rates, out);
  return out;
}

Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen) {
  {
    NoGradGuard no_grad;
    check_floating(prob, "binomial", "tensor of probabilities");
    check_probabilities(prob, "binomial");
  }
  return param_sample(ParamSampler::Binomial, count, prob, gen, "binomial");
}

}  // namespace ember
