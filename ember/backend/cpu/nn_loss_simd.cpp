// The row loops of nn_loss_simd.h. Highway compiles this file once per SIMD target
// (foreach_target.h re-includes it) and HWY_DYNAMIC_DISPATCH picks the best one at run time, as in
// backend/cpu/simd.cpp. Two vector accumulators per loop keep the adds off the critical path; the
// lanes are combined in a fixed order, so results do not depend on threads or timing.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ember/backend/cpu/nn_loss_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/backend/cpu/nn_loss_simd.h"

HWY_BEFORE_NAMESPACE();
namespace ember::cpu::loss_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class T>
double max_loop(const void* xv, int64_t n, bool* special) {
  const T* x = static_cast<const T*>(xv);
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), len = size_t(n);
  auto m0 = hn::Set(d, -std::numeric_limits<T>::infinity()), m1 = m0;
  // x - x is 0 for finite x and NaN for inf or NaN: the sums stay 0 while every value is finite.
  auto f0 = hn::Zero(d), f1 = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * N <= len; i += 2 * N) {
    const auto a = hn::LoadU(d, x + i), b = hn::LoadU(d, x + i + N);
    m0 = hn::Max(m0, a);
    m1 = hn::Max(m1, b);
    f0 = hn::Add(f0, hn::Sub(a, a));
    f1 = hn::Add(f1, hn::Sub(b, b));
  }
  for (; i + N <= len; i += N) {
    const auto a = hn::LoadU(d, x + i);
    m0 = hn::Max(m0, a);
    f0 = hn::Add(f0, hn::Sub(a, a));
  }
  bool sp = !hn::AllFalse(d, hn::IsNaN(hn::Add(f0, f1)));
  T m = hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
  for (; i < len; ++i) {
    sp |= !std::isfinite(x[i]);
    m = x[i] > m ? x[i] : m;
  }
  *special = sp;
  return double(m);
}

template <class T>
double sum_exp_loop(const void* xv, int64_t n, double shift) {
  const T* x = static_cast<const T*>(xv);
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), len = size_t(n);
  const T s = T(shift);
  const auto vs = hn::Set(d, s);
  auto a0 = hn::Zero(d), a1 = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * N <= len; i += 2 * N) {
    a0 = hn::Add(a0, hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vs)));
    a1 = hn::Add(a1, hn::Exp(d, hn::Sub(hn::LoadU(d, x + i + N), vs)));
  }
  for (; i + N <= len; i += N) a0 = hn::Add(a0, hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vs)));
  T r = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
  for (; i < len; ++i) r += std::exp(x[i] - s);
  return double(r);
}

template <class T>
double sum_loop(const void* xv, const void* wv, int64_t n) {
  const T* x = static_cast<const T*>(xv);
  const T* w = static_cast<const T*>(wv);
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), len = size_t(n);
  auto a0 = hn::Zero(d), a1 = hn::Zero(d);
  size_t i = 0;
  if (w) {
    for (; i + 2 * N <= len; i += 2 * N) {
      a0 = hn::MulAdd(hn::LoadU(d, x + i), hn::LoadU(d, w + i), a0);
      a1 = hn::MulAdd(hn::LoadU(d, x + i + N), hn::LoadU(d, w + i + N), a1);
    }
    for (; i + N <= len; i += N) a0 = hn::MulAdd(hn::LoadU(d, x + i), hn::LoadU(d, w + i), a0);
  } else {
    for (; i + 2 * N <= len; i += 2 * N) {
      a0 = hn::Add(a0, hn::LoadU(d, x + i));
      a1 = hn::Add(a1, hn::LoadU(d, x + i + N));
    }
    for (; i + N <= len; i += N) a0 = hn::Add(a0, hn::LoadU(d, x + i));
  }
  T r = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
  for (; i < len; ++i) r += w ? x[i] * w[i] : x[i];
  return double(r);
}

template <class T>
void grad_loop(
    const void* xv, int64_t n, double lse, double a, double c, const void* wv, void* outv) {
  const T* x = static_cast<const T*>(xv);
  const T* w = static_cast<const T*>(wv);
  T* out = static_cast<T*>(outv);
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), len = size_t(n);
  const T ta = T(a), tc = T(c), tl = T(lse);
  const auto va = hn::Set(d, ta), vc = hn::Set(d, tc), vl = hn::Set(d, tl);
  size_t i = 0;
  if (w) {
    for (; i + N <= len; i += N) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vl));
      hn::StoreU(hn::NegMulAdd(vc, hn::LoadU(d, w + i), hn::Mul(va, e)), d, out + i);
    }
    for (; i < len; ++i) out[i] = ta * std::exp(x[i] - tl) - tc * w[i];
  } else {
    for (; i + N <= len; i += N) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vl));
      hn::StoreU(hn::MulSub(va, e, vc), d, out + i);
    }
    for (; i < len; ++i) out[i] = ta * std::exp(x[i] - tl) - tc;
  }
}

template <class T>
void axpy_loop(void* accv, const void* xv, int64_t n, double s) {
  T* acc = static_cast<T*>(accv);
  const T* x = static_cast<const T*>(xv);
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), len = size_t(n);
  size_t i = 0;
  if (s == 1) {
    for (; i + N <= len; i += N)
      hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::LoadU(d, x + i)), d, acc + i);
    for (; i < len; ++i) acc[i] += x[i];
  } else {
    const T ts = T(s);
    const auto vs = hn::Set(d, ts);
    for (; i + N <= len; i += N)
      hn::StoreU(hn::MulAdd(vs, hn::LoadU(d, x + i), hn::LoadU(d, acc + i)), d, acc + i);
    for (; i < len; ++i) acc[i] += ts * x[i];
  }
}

// One block of K vectors of columns [c, c + K * lanes): the bag's rows are added into K
// accumulators held in registers, then stored once.
template <int K, class D, class T, class F>
HWY_INLINE void bag_block(D d,
                          size_t c,
                          T* out,
                          const T* base,
                          int64_t stride,
                          const int64_t* idx,
                          int64_t m,
                          const T* w,
                          T scale,
                          int64_t pad,
                          const F& prefetch) {
  const size_t N = hn::Lanes(d);
  const bool plain = !w && scale == T(1);
  const auto vscale = hn::Set(d, scale);
  hn::Vec<D> a[K];
#pragma GCC unroll 8
  for (int j = 0; j < K; ++j) a[j] = hn::Zero(d);
  for (int64_t k = 0; k < m; ++k) {
    if (c == 0) prefetch(k);
    if (pad >= 0 && idx[k] == pad) continue;
    const T* r = base + idx[k] * stride + c;
    if (plain) {
#pragma GCC unroll 8
      for (int j = 0; j < K; ++j) a[j] = hn::Add(a[j], hn::LoadU(d, r + j * N));
    } else {
      const auto vs = w ? hn::Set(d, w[k]) : vscale;
#pragma GCC unroll 8
      for (int j = 0; j < K; ++j) a[j] = hn::MulAdd(vs, hn::LoadU(d, r + j * N), a[j]);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < K; ++j) hn::StoreU(a[j], d, out + c + j * N);
}

template <class T>
void bag_sum_loop(void* outv,
                  const void* basev,
                  int64_t stride,
                  const int64_t* idx,
                  int64_t m,
                  int64_t ahead,
                  const void* wv,
                  double scale,
                  int64_t pad,
                  int64_t n) {
  T* out = static_cast<T*>(outv);
  const T* base = static_cast<const T*>(basev);
  const T* w = static_cast<const T*>(wv);
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), len = size_t(n);
  const T ts = T(scale);
  const size_t row_bytes = len * sizeof(T);
  // Rows prefetched ahead of the one being added: about 12 KiB in flight (measured on Zen 4:
  // 48 rows of 256 bytes, or 24 of 512, make lookups in a table far larger than the caches about
  // twice as fast as 8 rows ahead).
  constexpr size_t kInFlight = 12288;
  const int64_t dist =
      std::clamp<int64_t>(int64_t(kInFlight / std::max<size_t>(row_bytes, 1)), 4, 64);
  auto prefetch = [&](int64_t k) {
    k += dist;
    if (k < m + ahead) {
      const char* r = reinterpret_cast<const char*>(base + idx[k] * stride);
      for (size_t o = 0; o < row_bytes; o += 64) prefetch_line(r + o);
    }
  };
  size_t c = 0;
  for (; c + 8 * N <= len; c += 8 * N)
    bag_block<8>(d, c, out, base, stride, idx, m, w, ts, pad, prefetch);
  for (; c + 4 * N <= len; c += 4 * N)
    bag_block<4>(d, c, out, base, stride, idx, m, w, ts, pad, prefetch);
  for (; c + N <= len; c += N) bag_block<1>(d, c, out, base, stride, idx, m, w, ts, pad, prefetch);
  for (; c < len; ++c) {
    T a = 0;
    for (int64_t k = 0; k < m; ++k) {
      if (c == 0) prefetch(k);
      if (pad >= 0 && idx[k] == pad) continue;
      a += (w ? w[k] : ts) * base[idx[k] * stride + c];
    }
    out[c] = a;
  }
}

template <class T>
Table make_table() {
  Table t;
  t.max = &max_loop<T>;
  t.sum_exp = &sum_exp_loop<T>;
  t.sum = &sum_loop<T>;
  t.grad = &grad_loop<T>;
  t.axpy = &axpy_loop<T>;
  t.bag_sum = &bag_sum_loop<T>;
  return t;
}

const Table* MakeTables() {
  static const Table tables[2] = {make_table<float>(), make_table<double>()};
  return tables;
}

}  // namespace ember::cpu::loss_simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::cpu::loss_simd {
HWY_EXPORT(MakeTables);

const Table* tables() {
  static const Table* const t = HWY_DYNAMIC_DISPATCH(MakeTables)();
  return t;
}
}  // namespace ember::cpu::loss_simd
#endif
