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

// What the bag loop needs, computed once per call.
template <class T>
struct Bag {
  const T* base;
  int64_t stride;
  const int64_t* idx;
  int64_t m, ahead;  // the bag's indices, and how many after them may be read
  const T* w;        // per-row scale, or null
  T scale;
  int64_t pad;   // -1: none (indices are checked >= 0)
  int64_t dist;  // rows prefetched ahead
  size_t lines;  // cache lines a row can touch
};

// Prefetches row idx[k + dist]: the lines from the one holding its first byte (rows need not
// start on a line boundary: NumPy's memory is 16-byte aligned).
template <class T>
HWY_INLINE void prefetch_row(const Bag<T>& b, int64_t k) {
  k += b.dist;
  if (k >= b.m + b.ahead) return;
  const uintptr_t p = reinterpret_cast<uintptr_t>(b.base + b.idx[k] * b.stride) & ~uintptr_t(63);
  for (size_t l = 0; l < b.lines; ++l) prefetch_line(reinterpret_cast<const void*>(p + 64 * l));
}

// One block of K vectors of columns [c, c + K * lanes): the bag's rows are added into K
// accumulators held in registers, then stored once. The first block prefetches the rows ahead;
// `Plain` rows are added unscaled. `tail` lanes (< 1 vector) are read and written under a mask.
template <int K, bool Prefetch, bool Plain, class D, class T>
HWY_INLINE void bag_block(D d, const Bag<T>& b, size_t c, T* out, size_t tail = 0) {
  const size_t N = hn::Lanes(d);
  const auto vscale = hn::Set(d, b.scale);
  const auto mask = hn::FirstN(d, tail);
  hn::Vec<D> a[K];
#pragma GCC unroll 8
  for (int j = 0; j < K; ++j) a[j] = hn::Zero(d);
  for (int64_t k = 0; k < b.m; ++k) {
    if constexpr (Prefetch) prefetch_row(b, k);
    const int64_t i = b.idx[k];
    if (i == b.pad) continue;
    const T* r = b.base + i * b.stride + c;
    if (tail) {
      const auto v = hn::MaskedLoad(mask, d, r);
      a[0] = Plain ? hn::Add(a[0], v) : hn::MulAdd(b.w ? hn::Set(d, b.w[k]) : vscale, v, a[0]);
    } else if constexpr (Plain) {
#pragma GCC unroll 8
      for (int j = 0; j < K; ++j) a[j] = hn::Add(a[j], hn::LoadU(d, r + j * N));
    } else {
      const auto vs = b.w ? hn::Set(d, b.w[k]) : vscale;
#pragma GCC unroll 8
      for (int j = 0; j < K; ++j) a[j] = hn::MulAdd(vs, hn::LoadU(d, r + j * N), a[j]);
    }
  }
  if (tail) {
    hn::BlendedStore(a[0], mask, d, out + c);
    return;
  }
#pragma GCC unroll 8
  for (int j = 0; j < K; ++j) hn::StoreU(a[j], d, out + c + j * N);
}

// Masked loads that read nothing past the mask: AVX2 and AVX-512 (Highway's SSE4 and scalar
// forms load the whole vector, which could run past the table's end).
constexpr bool kMaskedLoads = HWY_TARGET <= HWY_AVX2;

// Columns [c, len) one at a time (targets without masked loads).
template <bool Prefetch, class T>
void bag_scalar(const Bag<T>& b, size_t c, size_t len, T* out) {
  for (; c < len; ++c) {
    T a = 0;
    for (int64_t k = 0; k < b.m; ++k) {
      if (Prefetch && c == 0) prefetch_row(b, k);
      if (b.idx[k] == b.pad) continue;
      a += (b.w ? b.w[k] : b.scale) * b.base[b.idx[k] * b.stride + c];
    }
    out[c] = a;
  }
}

template <bool Plain, class D, class T>
void bag_columns(D d, const Bag<T>& b, T* out, size_t len) {
  const size_t N = hn::Lanes(d);
  if (len < N && !kMaskedLoads) return bag_scalar<true>(b, 0, len, out);
  size_t c = 0;
  // The first block prefetches: 8 vectors if the row has them, else 4, else 1, else a masked one.
  if (len >= 8 * N) {
    bag_block<8, true, Plain>(d, b, 0, out);
    c = 8 * N;
  } else if (len >= 4 * N) {
    bag_block<4, true, Plain>(d, b, 0, out);
    c = 4 * N;
  } else if (len >= N) {
    bag_block<1, true, Plain>(d, b, 0, out);
    c = N;
  } else {
    bag_block<1, true, Plain>(d, b, 0, out, len);
    return;
  }
  for (; c + 8 * N <= len; c += 8 * N) bag_block<8, false, Plain>(d, b, c, out);
  for (; c + 4 * N <= len; c += 4 * N) bag_block<4, false, Plain>(d, b, c, out);
  for (; c + N <= len; c += N) bag_block<1, false, Plain>(d, b, c, out);
  if (c < len) {
    if constexpr (kMaskedLoads) {
      bag_block<1, false, Plain>(d, b, c, out, len - c);
    } else {
      bag_scalar<false>(b, c, len, out);
    }
  }
}

template <class T>
void bag_sums_loop(void* outv,
                   const void* basev,
                   int64_t stride,
                   const int64_t* idx,
                   const int64_t* starts,
                   int64_t b0,
                   int64_t b1,
                   int64_t n_idx,
                   const void* wv,
                   bool mean,
                   int64_t pad,
                   int64_t n,
                   int64_t* bag_size) {
  const hn::ScalableTag<T> d;
  const size_t len = size_t(n), row_bytes = len * sizeof(T);
  // Rows prefetched ahead of the one being added: about 16 KiB in flight. Measured on Zen 4
  // with tables larger than the caches: 64 rows of 256 bytes or 32 of 512 take about half the
  // time of 8 rows ahead; 16 rows of 512 bytes are 20% slower, and more than 24 KiB no faster.
  constexpr size_t kInFlight = 16384;
  const int64_t dist =
      std::clamp<int64_t>(int64_t(kInFlight / std::max<size_t>(row_bytes, 1)), 4, 64);
  const T* w = static_cast<const T*>(wv);
  Bag<T> b{
      static_cast<const T*>(basev), stride, nullptr, 0, 0, nullptr, T(1), pad < 0 ? -1 : pad, dist,
      (row_bytes + 63 + 63) / 64};
  T* out = static_cast<T*>(outv);
  for (int64_t bag = b0; bag < b1; ++bag) {
    const int64_t k0 = starts[bag], k1 = starts[bag + 1];
    int64_t count = k1 - k0;
    if (b.pad >= 0)
      for (int64_t k = k0; k < k1; ++k) count -= idx[k] == b.pad;
    bag_size[bag] = count;
    b.idx = idx + k0;
    b.m = k1 - k0;
    b.ahead = n_idx - k1;
    b.w = w ? w + k0 : nullptr;
    // A mean scales each row by 1 / count as it is added (as fbgemm does).
    b.scale = mean && count > 0 ? T(1) / T(count) : T(1);
    T* o = out + bag * n;
    if (len == 0) continue;
    if (!b.w && b.scale == T(1)) {
      bag_columns<true>(d, b, o, len);
    } else {
      bag_columns<false>(d, b, o, len);
    }
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
  t.bag_sums = &bag_sums_loop<T>;
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
