// Random sampling, arange/linspace and randperm on the CPU.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"

namespace ember::cpu {
namespace {

// Uniform in [0, 1) from as many random bits as T's significand holds (24 for float, 53 for
// double, 11 for float16, 8 for bfloat16), as PyTorch does: more bits would round up to 1.0.
template <class T>
constexpr int uniform_bits() {
  if constexpr (std::is_same_v<T, double>)
    return 53;
  else if constexpr (std::is_same_v<T, Half>)
    return 11;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return 8;
  else
    return 24;
}
template <class T>
double uniform(uint32_t hi, uint32_t lo) {
  constexpr int bits = uniform_bits<T>();
  const uint64_t word = (uint64_t(hi) << 32) | lo;
  return double(word >> (64 - bits)) * (1.0 / double(uint64_t(1) << bits));
}

// Element i of the output is produced by Philox block (base + i / 2), so it does not depend on
// threads (Note [Deterministic reductions] has the same aim for sums).
template <class T>
void random_typed(RandomDist dist,
                  T* out,
                  int64_t n,
                  uint64_t key,
                  uint64_t base,
                  const Scalar& a,
                  const Scalar& b) {
  // Integer draws: [low, high) as an offset from low, in unsigned arithmetic (the span of int64
  // does not fit in int64).
  const uint64_t low = uint64_t(a.to_int()), span = uint64_t(b.to_int()) - low;
  const double fa = a.to_double(), fb = b.to_double();
  parallel_for(0, (n + 1) / 2, 4096, [&](int64_t pb, int64_t pe) {
    for (int64_t pair = pb; pair < pe; ++pair) {
      // One block of four words makes two elements (pair 2p, 2p+1).
      const auto w = philox(key, base + uint64_t(pair), 0);
      const int64_t i = 2 * pair;
      if (dist == RandomDist::Integer) {
        const int64_t v0 = int64_t(low + ((uint64_t(w[0]) << 32) | w[1]) % span);
        const int64_t v1 = int64_t(low + ((uint64_t(w[2]) << 32) | w[3]) % span);
        out[i] = T(opmath_t<T>(v0));
        if (i + 1 < n) out[i + 1] = T(opmath_t<T>(v1));
        continue;
      }
      double v0, v1;
      if (dist == RandomDist::Uniform) {
        v0 = fa + (fb - fa) * uniform<T>(w[0], w[1]);
        v1 = fa + (fb - fa) * uniform<T>(w[2], w[3]);
      } else if (dist == RandomDist::Exponential) {
        // Inversion: -log(1 - u) / rate, with 1 - u in (0, 1] so the log is finite.
        v0 = -std::log(1.0 - uniform<double>(w[0], w[1])) / fa;
        v1 = -std::log(1.0 - uniform<double>(w[2], w[3])) / fa;
      } else {
        // Box-Muller: two uniforms give two independent normals.
        const double u1 = 1.0 - uniform<double>(w[0], w[1]);  // in (0, 1]: log is finite
        const double u2 = uniform<double>(w[2], w[3]);
        const double r = std::sqrt(-2.0 * std::log(u1));
        v0 = fa + fb * r * std::cos(2.0 * std::numbers::pi * u2);
        v1 = fa + fb * r * std::sin(2.0 * std::numbers::pi * u2);
      }
      out[i] = T(opmath_t<T>(v0));
      if (i + 1 < n) out[i + 1] = T(opmath_t<T>(v1));
    }
  });
}

// --- PyTorch's CPU stream (Note [Random streams] in core/generator.cpp) --------------------------
// Each draws serially in element order, as PyTorch's cpu_serial_kernel does, under the
// generator's lock.

// uniform_real_distribution<T>: the low digits(T) bits of one word (64 bits for double, 32
// otherwise) over 2^digits, scaled in T's accumulation type (float below double).
template <class T>
opmath_t<T> mt_uniform(Mt19937Stream& s, opmath_t<T> from, opmath_t<T> to) {
  using A = opmath_t<T>;
  constexpr int bits = uniform_bits<T>();
  const uint64_t word = std::is_same_v<T, double> ? s.random64() : uint64_t(s.random());
  const A x = A(word & ((uint64_t(1) << bits) - 1)) * (A(1) / A(uint64_t(1) << bits));
  return x * (to - from) + from;
}

// normal_distribution<double>: Box-Muller on two double uniforms from `uniform`, the second
// normal kept in `next` for the following draw. Both parameter-sampler sources use it.
template <class Uniform>
double box_muller(std::optional<double>& next, Uniform&& uniform) {
  if (next) {
    const double z = *next;
    next.reset();
    return z;
  }
  const double u1 = uniform(), u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  next = r * std::sin(theta);
  return r * std::cos(theta);
}

double mt_normal(Mt19937Stream& s, double mean, double std) {
  return box_muller(s.next_normal, [&] { return mt_uniform<double>(s, 0.0, 1.0); }) * std + mean;
}

// normal_fill's block of 16 uniforms in place: pairs (j, j + 8) become two normals.
template <class T>
void mt_normal_16(T* d, opmath_t<T> mean, opmath_t<T> std) {
  using A = opmath_t<T>;
  for (int j = 0; j < 8; ++j) {
    const A u1 = A(1) - A(d[j]), u2 = A(d[j + 8]);
    const A radius = std::sqrt(A(-2) * std::log(u1));
    const A theta = A(2.0 * std::numbers::pi * double(u2));
    d[j] = T(radius * std::cos(theta) * std + mean);
    d[j + 8] = T(radius * std::sin(theta) * std + mean);
  }
}

template <class T>
void mt_random_typed(
    RandomDist dist, T* out, int64_t n, Mt19937Stream& s, const Scalar& a, const Scalar& b) {
  using A = opmath_t<T>;
  if (dist == RandomDist::Integer) {
    // uniform_int_from_to_distribution: a 64-bit word only when the span needs one.
    const uint64_t low = uint64_t(a.to_int()), span = uint64_t(b.to_int()) - low;
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t w = span >= (uint64_t(1) << 32) ? s.random64() : uint64_t(s.random());
      out[i] = T(A(int64_t(low + w % span)));
    }
  } else if (dist == RandomDist::Uniform) {
    const A from = A(T(a.to_double())), to = A(T(b.to_double()));
    for (int64_t i = 0; i < n; ++i) out[i] = T(mt_uniform<T>(s, from, to));
  } else if (dist == RandomDist::Exponential) {
    // exponential_distribution<double>: -log1p(-u) / rate.
    const double rate = a.to_double();
    for (int64_t i = 0; i < n; ++i)
      out[i] = T(A(-1.0 / rate * std::log1p(-mt_uniform<double>(s, 0.0, 1.0))));
  } else if (n >= 16) {
    // normal_fill: every uniform first, Box-Muller per block of 16, and the tail's last 16
    // redrawn and transformed again.
    const A mean = A(T(a.to_double())), std = A(T(b.to_double()));
    for (int64_t i = 0; i < n; ++i) out[i] = T(mt_uniform<T>(s, A(0), A(1)));
    for (int64_t i = 0; i + 16 <= n; i += 16) mt_normal_16(out + i, mean, std);
    if (n % 16 != 0) {
      T* tail = out + n - 16;
      for (int i = 0; i < 16; ++i) tail[i] = T(mt_uniform<T>(s, A(0), A(1)));
      mt_normal_16(tail, mean, std);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = T(A(mt_normal(s, a.to_double(), b.to_double())));
  }
}

void random_kernel(
    RandomDist dist, const Tensor& out, Generator& gen, const Scalar& a, const Scalar& b) {
  EMBER_ASSERT(out.is_contiguous(), "random output must be contiguous");
  const int64_t n = out.numel();
  if (n == 0) return;
  if (random_stream() == RandomStream::Mt19937) {
    gen.with_mt19937([&](Mt19937Stream& s) {
      dispatch_dtype<kNumericTypes>(out.dtype(), "random", [&]<class T>() {
        mt_random_typed<T>(dist, static_cast<T*>(out.data_ptr()), n, s, a, b);
      });
    });
    return;
  }
  const uint64_t key = gen.initial_seed();
  const uint64_t base = gen.reserve(uint64_t((n + 1) / 2));
  dispatch_dtype<kNumericTypes>(out.dtype(), "random", [&]<class T>() {
    random_typed<T>(dist, static_cast<T*>(out.data_ptr()), n, key, base, a, b);
  });
}

void randperm_kernel(const Tensor& out, Generator& gen) {
  const int64_t n = out.numel();
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  if (random_stream() == RandomStream::Mt19937) {
    // PyTorch's randperm_cpu: Fisher-Yates from the front, one 32-bit word per swap (PyTorch
    // switches to another method from n = 2^32 / 20 on).
    EMBER_CHECK(n < int64_t(std::numeric_limits<uint32_t>::max() / 20), "[randperm] n = ", n,
                " is beyond the mt19937 stream's range (",
                std::numeric_limits<uint32_t>::max() / 20, ")");
    gen.with_mt19937([&](Mt19937Stream& s) {
      for (int64_t i = 0; i + 1 < n; ++i) {
        const int64_t z = int64_t(uint64_t(s.random()) % uint64_t(n - i));
        std::swap(perm[size_t(i)], perm[size_t(i + z)]);
      }
    });
  } else {
    const uint64_t key = gen.initial_seed();
    const uint64_t base = gen.reserve(uint64_t(n));
    // Fisher-Yates, one Philox block per swap.
    for (int64_t i = n - 1; i > 0; --i) {
      const auto w = philox(key, base + uint64_t(i), 0);
      const int64_t j = int64_t(((uint64_t(w[0]) << 32) | w[1]) % uint64_t(i + 1));
      std::swap(perm[i], perm[j]);
    }
  }
  dispatch_dtype<kNumericTypes>(out.dtype(), "randperm", [&]<class T>() {
    EMBER_CHECK(n == 0 || double(n - 1) <= double(std::numeric_limits<T>::max()),
                "[randperm] n is too large for dtype ", out.dtype());
    T* p = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) p[i] = T(opmath_t<T>(perm[i]));
  });
}

// PyTorch's multinomial: one sample or none replaced is the exponential race over the whole
// weight matrix at once (q ~ Exp(1) for every weight, then the largest w / q); with replacement,
// per row, one double uniform per sample against the normalised cumulative weights.
void mt_multinomial(const Tensor& out, const Tensor& w, bool replacement, Generator& gen) {
  const int64_t rows = w.sizes()[0], n = w.sizes()[1], k = out.sizes()[1];
  const double* wp = static_cast<const double*>(w.data_ptr());
  int64_t* op = static_cast<int64_t*>(out.data_ptr());
  std::vector<double> acc(static_cast<size_t>(rows * n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  gen.with_mt19937([&](Mt19937Stream& s) {
    if (!replacement || k == 1) {
      for (int64_t i = 0; i < rows * n; ++i)
        acc[size_t(i)] = wp[i] / -std::log1p(-mt_uniform<double>(s, 0.0, 1.0));
      return;
    }
    for (int64_t r = 0; r < rows; ++r) {
      const double* row = wp + r * n;
      double total = 0;
      for (int64_t i = 0; i < n; ++i) acc[size_t(r * n + i)] = total += row[i];
      for (int64_t i = 0; i < n; ++i) acc[size_t(r * n + i)] /= total;
      for (int64_t j = 0; j < k; ++j) {
        const double u = mt_uniform<double>(s, 0.0, 1.0);
        const double* cum = acc.data() + r * n;
        op[r * k + j] = std::min<int64_t>(int64_t(std::lower_bound(cum, cum + n, u) - cum), n - 1);
      }
    }
  });
  if (replacement && k > 1) return;
  for (int64_t r = 0; r < rows; ++r) {
    const double* key = acc.data() + r * n;
    for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t x, int64_t y) {
      return key[x] > key[y] || (key[x] == key[y] && x < y);
    });
    for (int64_t j = 0; j < k; ++j) op[r * k + j] = order[size_t(j)];
  }
}

// Row r uses the Philox blocks base + r * per_row + j, so rows are independent of the threads.
// With replacement: inversion of the cumulative weights by binary search, one block per sample.
// Without: the exponential race (keys E_i / w_i with E_i ~ Exp(1), smallest first), which picks
// categories in the order sequential sampling without replacement would.
void multinomial_kernel(const Tensor& out, const Tensor& w, bool replacement, Generator& gen) {
  EMBER_ASSERT(
      out.is_contiguous() && w.is_contiguous() && w.dtype() == kFloat64 && out.dtype() == kInt64,
      "multinomial expects contiguous float64 weights and int64 output");
  const int64_t rows = w.sizes()[0], n = w.sizes()[1], k = out.sizes()[1];
  if (rows == 0 || k == 0) return;
  if (random_stream() == RandomStream::Mt19937) return mt_multinomial(out, w, replacement, gen);
  const uint64_t per_row = uint64_t(replacement ? k : n);
  const uint64_t key = gen.initial_seed();
  const uint64_t base = gen.reserve(uint64_t(rows) * per_row);
  const double* wp = static_cast<const double*>(w.data_ptr());
  int64_t* op = static_cast<int64_t*>(out.data_ptr());
  parallel_for(0, rows, 1, [&](int64_t rb, int64_t re) {
    std::vector<double> acc(static_cast<size_t>(n), 0.0);
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t r = rb; r < re; ++r) {
      const double* row = wp + r * n;
      int64_t* dst = op + r * k;
      const uint64_t first = base + uint64_t(r) * per_row;
      if (replacement) {
        double total = 0;
        for (int64_t i = 0; i < n; ++i) acc[size_t(i)] = total += row[i];
        for (int64_t j = 0; j < k; ++j) {
          const auto b = philox(key, first + uint64_t(j), 0);
          const double u = uniform<double>(b[0], b[1]) * total;
          // The first category whose cumulative weight exceeds u, skipping zero weights.
          int64_t i = int64_t(std::upper_bound(acc.begin(), acc.end(), u) - acc.begin());
          if (i >= n) i = n - 1;
          while (row[i] == 0 && i > 0) --i;
          dst[j] = i;
        }
        continue;
      }
      for (int64_t i = 0; i < n; ++i) {
        const auto b = philox(key, first + uint64_t(i), 0);
        const double e = -std::log(1.0 - uniform<double>(b[0], b[1]));
        acc[size_t(i)] = row[i] > 0 ? e / row[i] : std::numeric_limits<double>::infinity();
        order[size_t(i)] = i;
      }
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t x, int64_t y) {
        return acc[size_t(x)] < acc[size_t(y)] || (acc[size_t(x)] == acc[size_t(y)] && x < y);
      });
      for (int64_t j = 0; j < k; ++j) dst[j] = order[size_t(j)];
    }
  });
}

// --- Gamma, Poisson and binomial samplers
// --------------------------------------------------------- Rejection methods, as PyTorch's CPU
// samplers (ATen's Distributions.h): Marsaglia and Tsang's for the gamma (alpha < 1 boosted by
// U^(1/alpha)), Hoermann's transformed rejection (PTRS) for a Poisson rate of 10 or more and
// multiplication of uniforms below, Hoermann's BTRS for a binomial with count * min(p, 1 - p) >= 10
// and geometric inversion below. Written once over a source of uniform and normal doubles:
// PyTorch's stream (serial, its generator's draws in order) or Philox, where element i has its own
// sub-stream (counter base + i, the attempt in the counter's high word), so the draws do not depend
// on the thread count.

// Element i's numbers in the Philox stream: two uniform doubles per block.
class PhiloxSource {
 public:
  PhiloxSource(uint64_t key, uint64_t counter) : key_(key), counter_(counter) {}
  double uniform() {
    if (have_ == 0) {
      const auto w = philox(key_, counter_, block_++);
      words_[0] = cpu::uniform<double>(w[0], w[1]);
      words_[1] = cpu::uniform<double>(w[2], w[3]);
      have_ = 2;
    }
    return words_[2 - have_--];
  }
  double normal() {
    return box_muller(next_normal_, [&] { return uniform(); });
  }

 private:
  uint64_t key_, counter_, block_ = 0;
  double words_[2] = {0, 0};
  int have_ = 0;
  std::optional<double> next_normal_;
};

// PyTorch's stream: its generator's double uniforms and its cached-pair normals.
class Mt19937Source {
 public:
  explicit Mt19937Source(Mt19937Stream& s) : s_(s) {}
  double uniform() { return mt_uniform<double>(s_, 0.0, 1.0); }
  double normal() { return mt_normal(s_, 0.0, 1.0); }

 private:
  Mt19937Stream& s_;
};

// The float constants are PyTorch's float literals (1.0f / 3.0f, 0.0331f), so the mt19937
// stream reproduces its values.
template <class Source>
double sample_gamma(double alpha, Source& src) {
  double scale = 1.0;
  if (alpha < 1.0) {
    if (alpha == 0.0) return 0.0;
    scale *= std::pow(1 - src.uniform(), 1.0f / alpha);
    alpha += 1.0;
  }
  const double d = alpha - double(1.0f / 3.0f);
  const double c = 1.0f / std::sqrt(9.0f * d);
  for (;;) {
    double x, y;
    do {
      x = src.normal();
      y = 1.0f + c * x;
    } while (y <= 0);
    const double v = y * y * y;
    const double u = 1 - src.uniform();
    const double xx = x * x;
    if (u < 1.0f - double(0.0331f) * xx * xx) return scale * d * v;
    if (std::log(u) < 0.5f * xx + d * (1.0f - v + std::log(v))) return scale * d * v;
  }
}

template <class Source>
double sample_poisson(double lambda, Source& src) {
  if (lambda >= 10) {
    const double slam = std::sqrt(lambda), loglam = std::log(lambda);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const double U = src.uniform() - 0.5;
      const double V = src.uniform();
      const double us = 0.5 - std::fabs(U);
      const int64_t k = int64_t(std::floor((2 * a / us + b) * U + lambda + 0.43));
      if (us >= 0.07 && V <= vr) return double(k);
      if (k < 0 || (us < 0.013 && V > us)) continue;
      if (std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b) <=
          -lambda + double(k) * loglam - std::lgamma(double(k) + 1))
        return double(k);
    }
  }
  if (lambda == 0) return 0;
  const double enlam = std::exp(-lambda);
  double prod = 1.0;
  int64_t x = 0;
  for (;;) {
    prod *= src.uniform();
    if (prod > enlam)
      x += 1;
    else
      return double(x);
  }
}

// log(k!) - (the first Stirling terms), exact for k <= 9 and by its series beyond.
double stirling_tail(double k) {
  static constexpr double kTable[10] = {
      0.08106146679532726,  0.04134069595540929, 0.02767792568499834, 0.02079067210376509,
      0.01664469118982119,  0.01387612882307075, 0.01189670994589177, 0.01041126526197209,
      0.009255462182712733, 0.008330563433362871};
  if (k <= 9) return kTable[int(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

template <class Source>
double binomial_btrs(double count, double prob, Source& src) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  for (;;) {
    const double U = src.uniform() - 0.5;
    double V = src.uniform();
    const double us = 0.5 - std::fabs(U);
    const double k = std::floor((2 * a / us + b) * U + c);
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && V <= v_r) return k;
    V = std::log(V * alpha / (a / (us * us) + b));
    const double upperbound = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                              (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                              (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) +
                              stirling_tail(m) + stirling_tail(count - m) - stirling_tail(k) -
                              stirling_tail(count - k);
    if (V <= upperbound) return k;
  }
}

template <class Source>
double binomial_inversion(double count, double prob, Source& src) {
  double geom_sum = 0, num_geom = 0;
  const double logprob = std::log1p(-prob);
  for (;;) {
    const double geom = std::ceil(std::log(src.uniform()) / logprob);
    geom_sum += geom;
    if (geom_sum > count) return num_geom;
    num_geom += 1;
  }
}

template <class Source>
double sample_binomial(double count, double prob, Source& src) {
  if (count <= 0.0 || prob <= 0.0) return 0;
  if (prob >= 1.0) return count;
  if (prob <= 0.5)
    return count * prob >= 10.0 ? binomial_btrs(count, prob, src)
                                : binomial_inversion(count, prob, src);
  const double q = 1.0 - prob;
  return count -
         (count * q >= 10.0 ? binomial_btrs(count, q, src) : binomial_inversion(count, q, src));
}

template <class Source>
double sample_one(ParamSampler which, double a, double b, Source& src) {
  switch (which) {
    case ParamSampler::Gamma:
      return sample_gamma(a, src);
    case ParamSampler::Poisson:
      return sample_poisson(a, src);
    default:
      return sample_binomial(a, b, src);
  }
}

void sample_kernel(
    ParamSampler which, const Tensor& out, const Tensor& a, const Tensor& b, Generator& gen) {
  EMBER_ASSERT(out.is_contiguous() && out.dtype() == kFloat64 && a.is_contiguous() &&
                   (which != ParamSampler::Binomial || b.is_contiguous()),
               "the parameter samplers take contiguous float64 tensors");
  const int64_t n = out.numel();
  if (n == 0) return;
  double* o = static_cast<double*>(out.data_ptr());
  const double* pa = static_cast<const double*>(a.data_ptr());
  const double* pb =
      which == ParamSampler::Binomial ? static_cast<const double*>(b.data_ptr()) : nullptr;
  if (random_stream() == RandomStream::Mt19937) {
    gen.with_mt19937([&](Mt19937Stream& s) {
      Mt19937Source src(s);
      for (int64_t i = 0; i < n; ++i) o[i] = sample_one(which, pa[i], pb ? pb[i] : 0.0, src);
    });
    return;
  }
  const uint64_t key = gen.initial_seed();
  const uint64_t base = gen.reserve(uint64_t(n));
  parallel_for(0, n, 1024, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      PhiloxSource src(key, base + uint64_t(i));
      o[i] = sample_one(which, pa[i], pb ? pb[i] : 0.0, src);
    }
  });
}

}  // namespace

void register_random(KernelTable& t) {
  t.random.random = &random_kernel;
  t.random.randperm = &randperm_kernel;
  t.random.multinomial = &multinomial_kernel;
  t.random.sample = &sample_kernel;
}

}  // namespace ember::cpu
