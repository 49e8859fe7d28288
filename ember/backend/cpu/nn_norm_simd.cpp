// The vectorised loops of nn_norm_simd.h. Highway compiles this file once per SIMD target (as
// simd.cpp) and HWY_DYNAMIC_DISPATCH picks the best one at run time. Each loop keeps four vector
// accumulators (or four column vectors) so that adds do not wait on each other; tails are scalar.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ember/backend/cpu/nn_norm_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <cstdint>
#include <type_traits>

#include "ember/backend/cpu/nn_norm_simd.h"

HWY_BEFORE_NAMESPACE();
namespace ember::cpu::norm_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- contiguous runs
// -----------------------------------------------------------------------------

template <class T>
void moments(const T* x, int64_t n, double* mean_out, double* m2_out, const T* next) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, x + i));
    s1 = hn::Add(s1, hn::LoadU(d, x + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, x + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, x + i + 3 * N));
  }
  for (; i + N <= n; i += N) s0 = hn::Add(s0, hn::LoadU(d, x + i));
  T s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
  for (; i < n; ++i) s += x[i];
  // Second pass around m (the mean rounded to T); the sum of deviations e corrects for that
  // rounding: mean = m + e / n, m2 = sum((x - m)^2) - e^2 / n.
  const T m = T(double(s) / double(n));
  const auto vm = hn::Set(d, m);
  auto e0 = hn::Zero(d), e1 = hn::Zero(d), e2 = hn::Zero(d), e3 = hn::Zero(d);
  auto q0 = hn::Zero(d), q1 = hn::Zero(d), q2 = hn::Zero(d), q3 = hn::Zero(d);
  i = 0;
  // While this run is in cache, the memory system fetches the next one (one line per vector).
  const int64_t line = 64 / int64_t(sizeof(T));
  for (; i + 4 * N <= n; i += 4 * N) {
    if (next) {
      for (int64_t k = 0; k < 4 * N; k += line) hwy::Prefetch(next + i + k);
    }
    const auto a0 = hn::Sub(hn::LoadU(d, x + i), vm);
    const auto a1 = hn::Sub(hn::LoadU(d, x + i + N), vm);
    const auto a2 = hn::Sub(hn::LoadU(d, x + i + 2 * N), vm);
    const auto a3 = hn::Sub(hn::LoadU(d, x + i + 3 * N), vm);
    e0 = hn::Add(e0, a0);
    e1 = hn::Add(e1, a1);
    e2 = hn::Add(e2, a2);
    e3 = hn::Add(e3, a3);
    q0 = hn::MulAdd(a0, a0, q0);
    q1 = hn::MulAdd(a1, a1, q1);
    q2 = hn::MulAdd(a2, a2, q2);
    q3 = hn::MulAdd(a3, a3, q3);
  }
  for (; i + N <= n; i += N) {
    const auto a0 = hn::Sub(hn::LoadU(d, x + i), vm);
    e0 = hn::Add(e0, a0);
    q0 = hn::MulAdd(a0, a0, q0);
  }
  T e = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(e0, e1), hn::Add(e2, e3))));
  T q = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(q0, q1), hn::Add(q2, q3))));
  for (; i < n; ++i) {
    const T a0 = x[i] - m;
    e += a0;
    q += a0 * a0;
  }
  const double ed = double(e), qd = double(q);
  *mean_out = double(m) + ed / double(n);
  const double m2 = qd - ed * ed / double(n);
  *m2_out = m2 > 0 ? m2 : 0;
}

template <class T>
void affine(const T* x, T* y, int64_t n, T scale, T shift) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto vs = hn::Set(d, scale), vb = hn::Set(d, shift);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), vs, vb), d, y + i);
    hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i + N), vs, vb), d, y + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), vs, vb), d, y + i);
  for (; i < n; ++i) y[i] = x[i] * scale + shift;
}

// sum(g * w) and sum(g * w * (x - mean)) (W: with a per-element weight), four accumulator
// pairs so that the adds do not wait on each other.
template <bool W, class T>
void weighted_dot_sums(
    const T* g, const T* x, const T* w, int64_t n, T mean, double* sg, double* sgx) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto vm = hn::Set(d, mean);
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  auto b0 = hn::Zero(d), b1 = hn::Zero(d), b2 = hn::Zero(d), b3 = hn::Zero(d);
  auto load_g = [&](int64_t i) {
    if constexpr (W)
      return hn::Mul(hn::LoadU(d, g + i), hn::LoadU(d, w + i));
    else
      return hn::LoadU(d, g + i);
  };
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto g0 = load_g(i), g1 = load_g(i + N), g2 = load_g(i + 2 * N), g3 = load_g(i + 3 * N);
    a0 = hn::Add(a0, g0);
    a1 = hn::Add(a1, g1);
    a2 = hn::Add(a2, g2);
    a3 = hn::Add(a3, g3);
    b0 = hn::MulAdd(g0, hn::Sub(hn::LoadU(d, x + i), vm), b0);
    b1 = hn::MulAdd(g1, hn::Sub(hn::LoadU(d, x + i + N), vm), b1);
    b2 = hn::MulAdd(g2, hn::Sub(hn::LoadU(d, x + i + 2 * N), vm), b2);
    b3 = hn::MulAdd(g3, hn::Sub(hn::LoadU(d, x + i + 3 * N), vm), b3);
  }
  for (; i + N <= n; i += N) {
    const auto g0 = load_g(i);
    a0 = hn::Add(a0, g0);
    b0 = hn::MulAdd(g0, hn::Sub(hn::LoadU(d, x + i), vm), b0);
  }
  T a = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  T b = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(b0, b1), hn::Add(b2, b3))));
  for (; i < n; ++i) {
    const T gi = W ? g[i] * w[i] : g[i];
    a += gi;
    b += gi * (x[i] - mean);
  }
  *sg = double(a);
  *sgx = double(b);
}

template <class T>
void dot_sums(const T* g, const T* x, int64_t n, T mean, double* sg, double* sgx) {
  weighted_dot_sums<false>(g, x, static_cast<const T*>(nullptr), n, mean, sg, sgx);
}

template <class T>
void axpby(const T* g, const T* x, T* dx, int64_t n, T a, T b, T c) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto va = hn::Set(d, a), vb = hn::Set(d, b), vc = hn::Set(d, c);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto t = hn::MulAdd(hn::LoadU(d, x + i), vb, vc);
    hn::StoreU(hn::MulAdd(hn::LoadU(d, g + i), va, t), d, dx + i);
  }
  for (; i < n; ++i) dx[i] = a * g[i] + (b * x[i] + c);
}

// ---- rows of C columns (channels-last) ----------------------------------------------------------

// Columns are taken kCols at a time; both passes hold four column vectors in registers down
// the rows of the block (the second pass reads the block from cache).
constexpr int64_t kCols = 512;

// Rows of exactly K vectors (C = K * N with K <= 4, e.g. 16 to 64 float channels): the
// per-column state stays in registers across the rows instead of in arrays.
template <class T, class F>
bool with_narrow_rows(int64_t C, F f) {
  const int64_t N = int64_t(hn::Lanes(hn::ScalableTag<T>()));
  if (C == N) return f(std::integral_constant<int, 1>()), true;
  if (C == 2 * N) return f(std::integral_constant<int, 2>()), true;
  if (C == 3 * N) return f(std::integral_constant<int, 3>()), true;
  if (C == 4 * N) return f(std::integral_constant<int, 4>()), true;
  return false;
}

// Calls f(k) for k < K (the column vectors of a narrow row).
template <int K, class F>
HWY_INLINE void for_vectors(F f) {
  f(std::integral_constant<int, 0>());
  if constexpr (K > 1) f(std::integral_constant<int, 1>());
  if constexpr (K > 2) f(std::integral_constant<int, 2>());
  if constexpr (K > 3) f(std::integral_constant<int, 3>());
}

template <int K, class T>
void narrow_column_sums(const T* x,
                        int64_t rows,
                        T* acc,
                        int64_t ld = K * int64_t(hn::Lanes(hn::ScalableTag<T>()))) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  auto sum = [&](auto k) -> decltype(s0)& {
    if constexpr (k == 0) return s0;
    if constexpr (k == 1) return s1;
    if constexpr (k == 2) return s2;
    if constexpr (k == 3) return s3;
  };
  for (int64_t r = 0; r < rows; ++r) {
    const T* p = x + r * ld;
    for_vectors<K>([&](auto k) { sum(k) = hn::Add(sum(k), hn::LoadU(d, p + k * N)); });
  }
  for_vectors<K>([&](auto k) { hn::Store(sum(k), d, acc + k * N); });
}

template <int K, class T>
void narrow_affine(const T* x, T* y, int64_t rows, const T* scale, const T* shift) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d)), C = K * N;
  const auto s0 = hn::LoadU(d, scale), s1 = hn::LoadU(d, scale + (K > 1 ? N : 0));
  const auto s2 = hn::LoadU(d, scale + (K > 2 ? 2 * N : 0));
  const auto s3 = hn::LoadU(d, scale + (K > 3 ? 3 * N : 0));
  const auto h0 = hn::LoadU(d, shift), h1 = hn::LoadU(d, shift + (K > 1 ? N : 0));
  const auto h2 = hn::LoadU(d, shift + (K > 2 ? 2 * N : 0));
  const auto h3 = hn::LoadU(d, shift + (K > 3 ? 3 * N : 0));
  for (int64_t r = 0; r < rows; ++r) {
    const T* p = x + r * C;
    T* q = y + r * C;
    hn::StoreU(hn::MulAdd(hn::LoadU(d, p), s0, h0), d, q);
    if constexpr (K > 1) hn::StoreU(hn::MulAdd(hn::LoadU(d, p + N), s1, h1), d, q + N);
    if constexpr (K > 2) hn::StoreU(hn::MulAdd(hn::LoadU(d, p + 2 * N), s2, h2), d, q + 2 * N);
    if constexpr (K > 3) hn::StoreU(hn::MulAdd(hn::LoadU(d, p + 3 * N), s3, h3), d, q + 3 * N);
  }
}

template <int K, class T>
void narrow_dot_sums(const T* g,
                     const T* x,
                     int64_t rows,
                     const T* mean,
                     double* sg,
                     double* sgx,
                     int64_t ld = K * int64_t(hn::Lanes(hn::ScalableTag<T>()))) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d)), C = K * N;
  const auto m0 = hn::LoadU(d, mean), m1 = hn::LoadU(d, mean + (K > 1 ? N : 0));
  const auto m2 = hn::LoadU(d, mean + (K > 2 ? 2 * N : 0));
  const auto m3 = hn::LoadU(d, mean + (K > 3 ? 3 * N : 0));
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  auto b0 = hn::Zero(d), b1 = hn::Zero(d), b2 = hn::Zero(d), b3 = hn::Zero(d);
  for (int64_t r = 0; r < rows; ++r) {
    const T* gp = g + r * ld;
    const T* xp = x + r * ld;
    const auto g0 = hn::LoadU(d, gp);
    a0 = hn::Add(a0, g0);
    b0 = hn::MulAdd(g0, hn::Sub(hn::LoadU(d, xp), m0), b0);
    if constexpr (K > 1) {
      const auto g1 = hn::LoadU(d, gp + N);
      a1 = hn::Add(a1, g1);
      b1 = hn::MulAdd(g1, hn::Sub(hn::LoadU(d, xp + N), m1), b1);
    }
    if constexpr (K > 2) {
      const auto g2 = hn::LoadU(d, gp + 2 * N);
      a2 = hn::Add(a2, g2);
      b2 = hn::MulAdd(g2, hn::Sub(hn::LoadU(d, xp + 2 * N), m2), b2);
    }
    if constexpr (K > 3) {
      const auto g3 = hn::LoadU(d, gp + 3 * N);
      a3 = hn::Add(a3, g3);
      b3 = hn::MulAdd(g3, hn::Sub(hn::LoadU(d, xp + 3 * N), m3), b3);
    }
  }
  HWY_ALIGN T ba[4 * HWY_LANES(T)], bb[4 * HWY_LANES(T)];
  hn::Store(a0, d, ba);
  hn::Store(b0, d, bb);
  if constexpr (K > 1) hn::Store(a1, d, ba + N), hn::Store(b1, d, bb + N);
  if constexpr (K > 2) hn::Store(a2, d, ba + 2 * N), hn::Store(b2, d, bb + 2 * N);
  if constexpr (K > 3) hn::Store(a3, d, ba + 3 * N), hn::Store(b3, d, bb + 3 * N);
  for (int64_t c = 0; c < C; ++c) {
    sg[c] = double(ba[c]);
    sgx[c] = double(bb[c]);
  }
}

template <int K, class T>
void narrow_axpby(const T* g,
                  const T* x,
                  T* dx,
                  int64_t rows,
                  const T* a,
                  const T* b,
                  const T* cc,
                  int64_t ld = K * int64_t(hn::Lanes(hn::ScalableTag<T>()))) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto at = [&](const T* p, int k) { return hn::LoadU(d, p + (k < K ? k * N : 0)); };
  const auto a0 = at(a, 0), a1 = at(a, 1), a2 = at(a, 2), a3 = at(a, 3);
  const auto b0 = at(b, 0), b1 = at(b, 1), b2 = at(b, 2), b3 = at(b, 3);
  const auto c0 = at(cc, 0), c1 = at(cc, 1), c2 = at(cc, 2), c3 = at(cc, 3);
  for (int64_t r = 0; r < rows; ++r) {
    const T* gp = g + r * ld;
    const T* xp = x + r * ld;
    T* q = dx + r * ld;
    hn::StoreU(hn::MulAdd(hn::LoadU(d, gp), a0, hn::MulAdd(hn::LoadU(d, xp), b0, c0)), d, q);
    if constexpr (K > 1)
      hn::StoreU(hn::MulAdd(hn::LoadU(d, gp + N), a1, hn::MulAdd(hn::LoadU(d, xp + N), b1, c1)), d,
                 q + N);
    if constexpr (K > 2)
      hn::StoreU(
          hn::MulAdd(hn::LoadU(d, gp + 2 * N), a2, hn::MulAdd(hn::LoadU(d, xp + 2 * N), b2, c2)), d,
          q + 2 * N);
    if constexpr (K > 3)
      hn::StoreU(
          hn::MulAdd(hn::LoadU(d, gp + 3 * N), a3, hn::MulAdd(hn::LoadU(d, xp + 3 * N), b3, c3)), d,
          q + 3 * N);
  }
}

// Column sums of `rows` rows (stride C) over columns [0, w): groups of four column vectors held
// in registers down the rows, then the remaining columns into the array.
template <class T>
void column_sums(const T* x, int64_t rows, int64_t C, int64_t w, T* acc) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  if (w == C &&
      with_narrow_rows<T>(C, [&](auto k) { narrow_column_sums<decltype(k)::value>(x, rows, acc); }))
    return;
  int64_t c0 = 0;
  for (; c0 + 4 * N <= w; c0 += 4 * N) narrow_column_sums<4>(x + c0, rows, acc + c0, C);
  for (int64_t c = c0; c < w; ++c) acc[c] = T(0);
  for (int64_t r = 0; r < rows; ++r) {
    const T* p = x + r * C;
    int64_t c = c0;
    for (; c + N <= w; c += N)
      hn::Store(hn::Add(hn::Load(d, acc + c), hn::LoadU(d, p + c)), d, acc + c);
    for (; c < w; ++c) acc[c] += p[c];
  }
}

template <class T>
void rows_moments(const T* x, int64_t rows, int64_t C, double* mean, double* m2, const T* next) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const double inv_n = 1.0 / double(rows);
  const T inv = T(inv_n);
  const int64_t line = 64 / int64_t(sizeof(T));
  HWY_ALIGN T mv[kCols];
  HWY_ALIGN T be[4 * HWY_LANES(T)], bq[4 * HWY_LANES(T)];
  for (int64_t c0 = 0; c0 < C; c0 += kCols) {
    const int64_t w = C - c0 < kCols ? C - c0 : kCols;
    const T* xb = x + c0;
    column_sums(xb, rows, C, w, mv);
    {
      const auto vi = hn::Set(d, inv);
      int64_t c = 0;
      for (; c + N <= w; c += N) hn::Store(hn::Mul(hn::Load(d, mv + c), vi), d, mv + c);
      for (; c < w; ++c) mv[c] *= inv;
    }
    double* mb = mean + c0;
    double* qb = m2 + c0;
    // mean = m + e / n, m2 = q - e^2 / n with e and q the sums of (x - m) and (x - m)^2.
    auto finish_b = [&](int64_t c, int64_t width) {
      for (int64_t k = 0; k < width; ++k) {
        const double e = double(be[k]);
        mb[c + k] = double(mv[c + k]) + e * inv_n;
        const double q = double(bq[k]) - e * e * inv_n;
        qb[c + k] = q > 0 ? q : 0;
      }
    };
    int64_t c = 0;
    for (; c + 4 * N <= w; c += 4 * N) {
      const auto m0 = hn::Load(d, mv + c), m1 = hn::Load(d, mv + c + N);
      const auto m2v = hn::Load(d, mv + c + 2 * N), m3 = hn::Load(d, mv + c + 3 * N);
      auto e0 = hn::Zero(d), e1 = hn::Zero(d), e2 = hn::Zero(d), e3 = hn::Zero(d);
      auto q0 = hn::Zero(d), q1 = hn::Zero(d), q2 = hn::Zero(d), q3 = hn::Zero(d);
      for (int64_t r = 0; r < rows; ++r) {
        const T* p = xb + r * C + c;
        if (next) {
          // The same lines of the next block (the same shape, rows after this one).
          for (int64_t k = 0; k < 4 * N; k += line) hwy::Prefetch(next + (p - x) + k);
        }
        const auto a0 = hn::Sub(hn::LoadU(d, p), m0), a1 = hn::Sub(hn::LoadU(d, p + N), m1);
        const auto a2 = hn::Sub(hn::LoadU(d, p + 2 * N), m2v);
        const auto a3 = hn::Sub(hn::LoadU(d, p + 3 * N), m3);
        e0 = hn::Add(e0, a0);
        e1 = hn::Add(e1, a1);
        e2 = hn::Add(e2, a2);
        e3 = hn::Add(e3, a3);
        q0 = hn::MulAdd(a0, a0, q0);
        q1 = hn::MulAdd(a1, a1, q1);
        q2 = hn::MulAdd(a2, a2, q2);
        q3 = hn::MulAdd(a3, a3, q3);
      }
      hn::Store(e0, d, be);
      hn::Store(e1, d, be + N);
      hn::Store(e2, d, be + 2 * N);
      hn::Store(e3, d, be + 3 * N);
      hn::Store(q0, d, bq);
      hn::Store(q1, d, bq + N);
      hn::Store(q2, d, bq + 2 * N);
      hn::Store(q3, d, bq + 3 * N);
      finish_b(c, 4 * N);
    }
    for (; c + N <= w; c += N) {
      const auto m0 = hn::Load(d, mv + c);
      auto e0 = hn::Zero(d), q0 = hn::Zero(d);
      for (int64_t r = 0; r < rows; ++r) {
        const auto a0 = hn::Sub(hn::LoadU(d, xb + r * C + c), m0);
        e0 = hn::Add(e0, a0);
        q0 = hn::MulAdd(a0, a0, q0);
      }
      hn::Store(e0, d, be);
      hn::Store(q0, d, bq);
      finish_b(c, N);
    }
    for (; c < w; ++c) {
      T e = 0, q = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const T a = xb[r * C + c] - mv[c];
        e += a;
        q += a * a;
      }
      be[0] = e;
      bq[0] = q;
      finish_b(c, 1);
    }
  }
}

template <class T>
void rows_affine(const T* x, T* y, int64_t rows, int64_t C, const T* scale, const T* shift) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  if (with_narrow_rows<T>(
          C, [&](auto k) { narrow_affine<decltype(k)::value>(x, y, rows, scale, shift); }))
    return;
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * C;
    T* yr = y + r * C;
    int64_t c = 0;
    for (; c + N <= C; c += N) {
      hn::StoreU(hn::MulAdd(hn::LoadU(d, xr + c), hn::LoadU(d, scale + c), hn::LoadU(d, shift + c)),
                 d, yr + c);
    }
    for (; c < C; ++c) yr[c] = xr[c] * scale[c] + shift[c];
  }
}

// Groups of four column vectors held in registers down the rows; the remaining columns (fewer
// than four vectors) into arrays, rows in memory order.
template <class T>
void rows_dot_sums(
    const T* g, const T* x, int64_t rows, int64_t C, const T* mean, double* sg, double* sgx) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  if (with_narrow_rows<T>(
          C, [&](auto k) { narrow_dot_sums<decltype(k)::value>(g, x, rows, mean, sg, sgx); }))
    return;
  int64_t c0 = 0;
  for (; c0 + 4 * N <= C; c0 += 4 * N)
    narrow_dot_sums<4>(g + c0, x + c0, rows, mean + c0, sg + c0, sgx + c0, C);
  if (c0 == C) return;
  HWY_ALIGN T sa[4 * HWY_LANES(T)], sb[4 * HWY_LANES(T)];
  const int64_t w = C - c0;
  const T* m = mean + c0;
  for (int64_t c = 0; c < w; ++c) sa[c] = sb[c] = T(0);
  for (int64_t r = 0; r < rows; ++r) {
    const T* gr = g + r * C + c0;
    const T* xr = x + r * C + c0;
    int64_t c = 0;
    for (; c + N <= w; c += N) {
      const auto gv = hn::LoadU(d, gr + c);
      hn::Store(hn::Add(hn::Load(d, sa + c), gv), d, sa + c);
      hn::Store(
          hn::MulAdd(gv, hn::Sub(hn::LoadU(d, xr + c), hn::LoadU(d, m + c)), hn::Load(d, sb + c)),
          d, sb + c);
    }
    for (; c < w; ++c) {
      sa[c] += gr[c];
      sb[c] += gr[c] * (xr[c] - m[c]);
    }
  }
  for (int64_t c = 0; c < w; ++c) {
    sg[c0 + c] = double(sa[c]);
    sgx[c0 + c] = double(sb[c]);
  }
}

template <class T>
void rows_axpby(
    const T* g, const T* x, T* dx, int64_t rows, int64_t C, const T* a, const T* b, const T* cc) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  if (with_narrow_rows<T>(
          C, [&](auto k) { narrow_axpby<decltype(k)::value>(g, x, dx, rows, a, b, cc); }))
    return;
  for (int64_t r = 0; r < rows; ++r) {
    const T* gr = g + r * C;
    const T* xr = x + r * C;
    T* dr = dx + r * C;
    int64_t c = 0;
    for (; c + N <= C; c += N) {
      const auto t = hn::MulAdd(hn::LoadU(d, xr + c), hn::LoadU(d, b + c), hn::LoadU(d, cc + c));
      hn::StoreU(hn::MulAdd(hn::LoadU(d, gr + c), hn::LoadU(d, a + c), t), d, dr + c);
    }
    for (; c < C; ++c) dr[c] = a[c] * gr[c] + (b[c] * xr[c] + cc[c]);
  }
}

// ---- layer norm rows ----------------------------------------------------------------------------

template <class T>
void ln_apply(const T* x, T* y, int64_t n, T mean, T rstd, const T* w, const T* b) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  if (!w && !b) return affine(x, y, n, rstd, -mean * rstd);
  const auto vm = hn::Set(d, mean), vr = hn::Set(d, rstd);
  int64_t i = 0;
  if (w && b) {
    for (; i + N <= n; i += N) {
      const auto h = hn::Mul(hn::Sub(hn::LoadU(d, x + i), vm), vr);
      hn::StoreU(hn::MulAdd(h, hn::LoadU(d, w + i), hn::LoadU(d, b + i)), d, y + i);
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i] + b[i];
  } else if (w) {
    for (; i + N <= n; i += N) {
      const auto h = hn::Mul(hn::Sub(hn::LoadU(d, x + i), vm), vr);
      hn::StoreU(hn::Mul(h, hn::LoadU(d, w + i)), d, y + i);
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * rstd * w[i];
  } else {
    for (; i + N <= n; i += N) {
      const auto h = hn::Mul(hn::Sub(hn::LoadU(d, x + i), vm), vr);
      hn::StoreU(hn::Add(h, hn::LoadU(d, b + i)), d, y + i);
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * rstd + b[i];
  }
}

template <class T>
void ln_sums(const T* g, const T* x, const T* w, int64_t n, T mean, double* sgw, double* sgwx) {
  if (w)
    weighted_dot_sums<true>(g, x, w, n, mean, sgw, sgwx);
  else
    weighted_dot_sums<false>(g, x, w, n, mean, sgw, sgwx);
}

// One pass over a row: dx = a * g * w + b * x + c (DX), and dw += g * (x - mean) * rstd,
// db += g (P).
template <bool DX, bool W, bool P, class T>
void ln_backward_row_impl(const T* g,
                          const T* x,
                          const T* w,
                          T* dx,
                          int64_t n,
                          T mean,
                          T rstd,
                          T a,
                          T b,
                          T c,
                          T* dw,
                          T* db,
                          const T* next_g,
                          const T* next_x) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const int64_t line = 64 / int64_t(sizeof(T));
  const auto va = hn::Set(d, a), vb = hn::Set(d, b), vc = hn::Set(d, c);
  const auto vm = hn::Set(d, mean), vr = hn::Set(d, rstd);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    if (next_g && i % line == 0) {
      // The next row, while this one is in cache.
      hwy::Prefetch(next_g + i);
      hwy::Prefetch(next_x + i);
    }
    const auto gv = hn::LoadU(d, g + i), xv = hn::LoadU(d, x + i);
    if constexpr (DX) {
      const auto gw = W ? hn::Mul(gv, hn::LoadU(d, w + i)) : gv;
      hn::StoreU(hn::MulAdd(gw, va, hn::MulAdd(xv, vb, vc)), d, dx + i);
    }
    if constexpr (P) {
      const auto h = hn::Mul(hn::Sub(xv, vm), vr);
      hn::StoreU(hn::MulAdd(gv, h, hn::LoadU(d, dw + i)), d, dw + i);
      hn::StoreU(hn::Add(gv, hn::LoadU(d, db + i)), d, db + i);
    }
  }
  for (; i < n; ++i) {
    if constexpr (DX) dx[i] = a * (W ? g[i] * w[i] : g[i]) + (b * x[i] + c);
    if constexpr (P) {
      dw[i] += g[i] * ((x[i] - mean) * rstd);
      db[i] += g[i];
    }
  }
}

template <class T>
void ln_backward_row(const T* g,
                     const T* x,
                     const T* w,
                     T* dx,
                     int64_t n,
                     T mean,
                     T rstd,
                     T a,
                     T b,
                     T c,
                     T* dw,
                     T* db,
                     const T* next_g,
                     const T* next_x) {
  const int k = (dx ? 4 : 0) + (w ? 2 : 0) + (dw ? 1 : 0);
  switch (k) {
#define EMBER_LN_CASE(K, DX, W, P)                                                             \
  case K:                                                                                      \
    return ln_backward_row_impl<DX, W, P>(g, x, w, dx, n, mean, rstd, a, b, c, dw, db, next_g, \
                                          next_x);
    EMBER_LN_CASE(1, false, false, true)
    EMBER_LN_CASE(3, false, true, true)
    EMBER_LN_CASE(4, true, false, false)
    EMBER_LN_CASE(5, true, false, true)
    EMBER_LN_CASE(6, true, true, false)
    EMBER_LN_CASE(7, true, true, true)
#undef EMBER_LN_CASE
    default:
      return;
  }
}

// ---- dropout
// --------------------------------------------------------------------------------------

constexpr uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;

// Philox4x32-10 (as ember::philox in core/generator.cpp) for the 16 blocks counter + l, l < 16.
void philox_group(uint64_t key, uint64_t counter, uint32_t* words) {
#if HWY_TARGET == HWY_SCALAR
  for (int l = 0; l < 16; ++l) {
    const uint64_t ctr = counter + uint64_t(l);
    uint32_t c0 = uint32_t(ctr), c1 = uint32_t(ctr >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
    for (int round = 0; round < 10; ++round) {
      const uint64_t p0 = uint64_t(kMul0) * c0, p1 = uint64_t(kMul1) * c2;
      const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0, n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
      c1 = uint32_t(p1);
      c3 = uint32_t(p0);
      c0 = n0;
      c2 = n2;
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    words[l] = c0;
    words[16 + l] = c1;
    words[32 + l] = c2;
    words[48 + l] = c3;
  }
#else
  const hn::ScalableTag<uint32_t> du;
  const hn::Repartition<uint64_t, decltype(du)> dw;
  const size_t N = hn::Lanes(du);
  HWY_ALIGN uint32_t lo[16], hi[16];
  for (int l = 0; l < 16; ++l) {
    lo[l] = uint32_t(counter + uint64_t(l));
    hi[l] = uint32_t((counter + uint64_t(l)) >> 32);
  }
  // 32x32 -> 64-bit products of every lane: MulEven on the even lanes and on the odd lanes
  // shifted down; the high and low halves are then interleaved back into lanes.
  const auto m0 = hn::Set(du, kMul0), m1 = hn::Set(du, kMul1);
  auto mulhilo = [&](auto a, auto m, auto& h, auto& l) {
    const auto pe = hn::MulEven(a, m);
    const auto po = hn::MulEven(hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(dw, a))), m);
    h = hn::OddEven(hn::BitCast(du, po), hn::BitCast(du, hn::ShiftRight<32>(pe)));
    l = hn::OddEven(hn::BitCast(du, hn::ShiftLeft<32>(po)), hn::BitCast(du, pe));
  };
  for (size_t v = 0; v < 16; v += N) {
    auto c0 = hn::LoadU(du, lo + v), c1 = hn::LoadU(du, hi + v);
    auto c2 = hn::Zero(du), c3 = hn::Zero(du);
    uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
    for (int round = 0; round < 10; ++round) {
      decltype(c0) h0, l0, h1, l1;
      mulhilo(c0, m0, h0, l0);
      mulhilo(c2, m1, h1, l1);
      c0 = hn::Xor(hn::Xor(h1, c1), hn::Set(du, k0));
      c2 = hn::Xor(hn::Xor(h0, c3), hn::Set(du, k1));
      c1 = l1;
      c3 = l0;
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    hn::StoreU(c0, du, words + v);
    hn::StoreU(c1, du, words + 16 + v);
    hn::StoreU(c2, du, words + 32 + v);
    hn::StoreU(c3, du, words + 48 + v);
  }
#endif
}

template <class T>
void dropout(const T* x,
             T* y,
             int64_t n,
             uint64_t key,
             uint64_t counter,
             uint32_t threshold,
             T mul,
             T add_kept,
             T add_dropped) {
  HWY_ALIGN uint32_t w[64];
  for (int64_t start = 0; start < n; start += 64, counter += 16) {
    philox_group(key, counter, w);
    const int64_t len = n - start < 64 ? n - start : 64;
    const T* xs = x + start;
    T* ys = y + start;
    int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    if constexpr (sizeof(T) == 4) {
      // Unsigned compare as signed after flipping the top bit (every target has signed compare).
      const hn::ScalableTag<T> d;
      const hn::RebindToUnsigned<decltype(d)> du;
      const hn::RebindToSigned<decltype(d)> di;
      const int64_t N = int64_t(hn::Lanes(d));
      const auto flip = hn::Set(du, 0x80000000u);
      const auto thr = hn::BitCast(di, hn::Xor(hn::Set(du, threshold), flip));
      const auto vmul = hn::Set(d, mul), vak = hn::Set(d, add_kept), vad = hn::Set(d, add_dropped);
      for (; i + N <= len; i += N) {
        const auto word = hn::BitCast(di, hn::Xor(hn::LoadU(du, w + i), flip));
        const auto kept = hn::RebindMask(d, hn::Lt(word, thr));
        const auto m = hn::IfThenElseZero(kept, vmul);
        const auto a = hn::IfThenElse(kept, vak, vad);
        hn::StoreU(hn::MulAdd(hn::LoadU(d, xs + i), m, a), d, ys + i);
      }
    }
#endif
    for (; i < len; ++i) {
      const bool kept = w[i] < threshold;
      ys[i] = xs[i] * (kept ? mul : T(0)) + (kept ? add_kept : add_dropped);
    }
  }
}

template <class T>
void fill_loops(Loops<T>& t) {
  t.moments = &moments<T>;
  t.affine = &affine<T>;
  t.dot_sums = &dot_sums<T>;
  t.axpby = &axpby<T>;
  t.rows_moments = &rows_moments<T>;
  t.rows_affine = &rows_affine<T>;
  t.rows_dot_sums = &rows_dot_sums<T>;
  t.rows_axpby = &rows_axpby<T>;
  t.ln_apply = &ln_apply<T>;
  t.ln_sums = &ln_sums<T>;
  t.ln_backward_row = &ln_backward_row<T>;
  t.dropout = &dropout<T>;
}

const Table* MakeTable() {
  static const Table table = [] {
    Table t;
    t.target = hwy::TargetName(HWY_TARGET);
    fill_loops(t.f32);
    fill_loops(t.f64);
    t.philox_group = &philox_group;
    return t;
  }();
  return &table;
}

}  // namespace ember::cpu::norm_simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::cpu::norm_simd {
HWY_EXPORT(MakeTable);

const Table& table() {
  static const Table* const t = HWY_DYNAMIC_DISPATCH(MakeTable)();
  return *t;
}
}  // namespace ember::cpu::norm_simd
#endif
