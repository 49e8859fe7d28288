// The vectorised loops of simd.h. Highway compiles this file once per SIMD target
// (foreach_target.h re-includes it), each copy in its own namespace with that target's compiler
// flags, and HWY_DYNAMIC_DISPATCH picks the best one the CPU supports at run time.
//
// Each copy builds a Table of plain function pointers. The loops run the scalar functors of
// core/math.h, except where a functor has an explicit vector form below (Vec<F>, VecBin<F>): the
// transcendental functions, whose scalar forms (std::exp, ...) the compiler cannot vectorise,
// and the simple arithmetic (at -O2 GCC vectorises only loops that need no aliasing checks, and
// in-place ops alias their input and output). A unary vector form is used only where its inputs
// are in its domain (finite, and in range for the function); a vector holding another value
// (NaN, inf, the log of a negative number...) is computed with the scalar functor, so special
// values behave exactly as in the portable loops.
// Compiled for AVX-512, AVX2, SSE4 and plain scalar code; SSSE3 is left out (every x86-64 CPU
// made since 2008 has SSE4), which saves one of the five compilations of this file.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ember/backend/cpu/simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cmath>
#include <limits>

#include "ember/backend/cpu/simd.h"
#include "ember/core/math.h"

HWY_BEFORE_NAMESPACE();
namespace ember::cpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- vector forms of the functors -------------------------------------------------------------

// Vec<F>: `ok` when F has a vector form; `apply(d, x)` computes it; `domain(d, x)` is the mask
// of lanes it is valid for (a vector with any other lane goes to the scalar functor).
template <class F>
struct Vec {
  static constexpr bool ok = false;
};

template <class D, class V>
HWY_INLINE auto finite_below(D d, V x, double limit) {
  return hn::And(hn::Not(hn::IsNaN(x)), hn::Lt(hn::Abs(x), hn::Set(d, hn::TFromD<D>(limit))));
}

// exp overflows past ~88 in float32 (~709 in float64): those lanes take the scalar path.
template <class D>
HWY_INLINE double exp_limit(D) {
  return sizeof(hn::TFromD<D>) == 4 ? 80.0 : 700.0;
}

#define EMBER_VEC(F, domain_expr, expr)       \
  template <>                                 \
  struct Vec<math::F> {                       \
    static constexpr bool ok = true;          \
    template <class D, class V>               \
    static HWY_INLINE auto domain(D d, V x) { \
      (void)d;                                \
      (void)x;                                \
      return domain_expr;                     \
    }                                         \
    template <class D, class V>               \
    static HWY_INLINE V apply(D d, V x) {     \
      (void)d;                                \
      return expr;                            \
    }                                         \
  };

#define EMBER_FINITE finite_below(d, x, 1e30)
#define EMBER_EXP_RANGE finite_below(d, x, exp_limit(d))
#define EMBER_POSITIVE hn::And(EMBER_FINITE, hn::Gt(x, hn::Zero(d)))
#define EMBER_UNIT finite_below(d, x, 1.0)
#define EMBER_ANY hn::Not(hn::IsNaN(hn::Zero(d)))
EMBER_VEC(Exp, EMBER_EXP_RANGE, hn::Exp(d, x))
EMBER_VEC(Expm1, EMBER_EXP_RANGE, hn::Expm1(d, x))
EMBER_VEC(Log, EMBER_POSITIVE, hn::Log(d, x))
EMBER_VEC(Log2, EMBER_POSITIVE, hn::Log2(d, x))
EMBER_VEC(Log10, EMBER_POSITIVE, hn::Log10(d, x))
EMBER_VEC(Log1p, hn::And(EMBER_FINITE, hn::Gt(x, hn::Set(d, -1))), hn::Log1p(d, x))
EMBER_VEC(Tanh, EMBER_EXP_RANGE, hn::Tanh(d, x))
EMBER_VEC(Sinh, EMBER_EXP_RANGE, hn::Sinh(d, x))
EMBER_VEC(Sin, finite_below(d, x, 1e4), hn::Sin(d, x))
EMBER_VEC(Cos, finite_below(d, x, 1e4), hn::Cos(d, x))
EMBER_VEC(Atan, EMBER_FINITE, hn::Atan(d, x))
EMBER_VEC(Asin, EMBER_UNIT, hn::Asin(d, x))
EMBER_VEC(Acos, EMBER_UNIT, hn::Acos(d, x))
EMBER_VEC(Atanh, EMBER_UNIT, hn::Atanh(d, x))
EMBER_VEC(Asinh, finite_below(d, x, 1e15), hn::Asinh(d, x))
EMBER_VEC(Sigmoid,
          EMBER_EXP_RANGE,
          hn::Div(hn::Set(d, 1), hn::Add(hn::Set(d, 1), hn::Exp(d, hn::Neg(x)))))
EMBER_VEC(Silu, EMBER_EXP_RANGE, hn::Div(x, hn::Add(hn::Set(d, 1), hn::Exp(d, hn::Neg(x)))))
EMBER_VEC(Neg, EMBER_ANY, hn::Neg(x))
EMBER_VEC(Abs, EMBER_ANY, hn::Abs(x))
EMBER_VEC(Square, EMBER_ANY, hn::Mul(x, x))
EMBER_VEC(Sqrt, EMBER_ANY, hn::Sqrt(x))
EMBER_VEC(Reciprocal, EMBER_ANY, hn::Div(hn::Set(d, 1), x))
EMBER_VEC(Relu, EMBER_ANY, hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Zero(d), x))  // NaN stays
#undef EMBER_ANY
#undef EMBER_UNIT
#undef EMBER_POSITIVE
#undef EMBER_EXP_RANGE
#undef EMBER_FINITE
#undef EMBER_VEC

// Vector forms of binary functors (the others run the scalar functor in a plain loop).
template <class F>
struct VecBin {
  static constexpr bool ok = false;
};
#define EMBER_VEC_BIN(F, expr)            \
  template <>                             \
  struct VecBin<math::F> {                \
    static constexpr bool ok = true;      \
    template <class V>                    \
    static HWY_INLINE V apply(V a, V b) { \
      return expr;                        \
    }                                     \
  };
EMBER_VEC_BIN(Add, hn::Add(a, b))
EMBER_VEC_BIN(Sub, hn::Sub(a, b))
EMBER_VEC_BIN(Mul, hn::Mul(a, b))
EMBER_VEC_BIN(Div, hn::Div(a, b))
// NaN wins, as in the scalar functor (hn::Max leaves NaN to the target's instruction).
EMBER_VEC_BIN(Maximum,
              hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, hn::Max(a, b))))
EMBER_VEC_BIN(Minimum,
              hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, hn::Min(a, b))))
#undef EMBER_VEC_BIN

// erf for float32 (the rational approximation of Eigen's generic_fast_erf_float, from XLA):
// within a few ulp of std::erf on [-4, 4], and +-1 beyond.
template <class D, class V>
HWY_INLINE V erf_f32(D d, V x) {
  const V z = hn::Min(hn::Max(x, hn::Set(d, -4.0f)), hn::Set(d, 4.0f));
  const V z2 = hn::Mul(z, z);
  V p = hn::Set(d, -2.72614225801306e-10f);
  p = hn::MulAdd(p, z2, hn::Set(d, 2.77068142495902e-08f));
  p = hn::MulAdd(p, z2, hn::Set(d, -2.10102402082508e-06f));
  p = hn::MulAdd(p, z2, hn::Set(d, -5.69250639462346e-05f));
  p = hn::MulAdd(p, z2, hn::Set(d, -7.34990630326855e-04f));
  p = hn::MulAdd(p, z2, hn::Set(d, -2.95459980854025e-03f));
  p = hn::MulAdd(p, z2, hn::Set(d, -1.60960333262415e-02f));
  p = hn::Mul(p, z);
  V q = hn::Set(d, -1.45660718464996e-05f);
  q = hn::MulAdd(q, z2, hn::Set(d, -2.13374055278905e-04f));
  q = hn::MulAdd(q, z2, hn::Set(d, -1.68282697438203e-03f));
  q = hn::MulAdd(q, z2, hn::Set(d, -7.37332916720468e-03f));
  q = hn::MulAdd(q, z2, hn::Set(d, -1.42647390514189e-02f));
  return hn::Div(p, q);
}

// ---- loops --------------------------------------------------------------------------------------

// The scalar functor on elements [i, i + count) (the tail, or a vector outside the domain).
template <class F, class T>
HWY_INLINE void scalar_unary(const F& f, const T* in, T* out, size_t i, size_t count) {
  for (size_t k = i; k < i + count; ++k) out[k] = T(f(in[k]));
}

template <class F, class T>
void unary_loop(const void* in_v, void* out_v, int64_t n) {
  const T* in = static_cast<const T*>(in_v);
  T* out = static_cast<T*>(out_v);
  const F f;
  size_t i = 0;
  if constexpr (Vec<F>::ok) {
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d);
    for (; i + N <= size_t(n); i += N) {
      const auto x = hn::LoadU(d, in + i);
      if (hn::AllTrue(d, Vec<F>::domain(d, x))) {
        hn::StoreU(Vec<F>::apply(d, x), d, out + i);
      } else {
        scalar_unary(f, in, out, i, N);
      }
    }
  }
  scalar_unary(f, in, out, i, size_t(n) - i);
}

// gelu, the op with parameters that pays for a vector form (the exact one needs erf).
template <class T>
void gelu_loop(const void* in_v, void* out_v, int64_t n, const Scalar* p) {
  const T* in = static_cast<const T*>(in_v);
  T* out = static_cast<T*>(out_v);
  const math::Gelu<T> f(p);
  size_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    const hn::ScalableTag<T> d;
    const size_t N = hn::Lanes(d);
    const auto half = hn::Set(d, 0.5f), one = hn::Set(d, 1.0f);
    for (; i + N <= size_t(n); i += N) {
      const auto x = hn::LoadU(d, in + i);
      if (!hn::AllTrue(d, finite_below(d, x, 80.0))) {
        scalar_unary(f, in, out, i, N);
        continue;
      }
      const auto inner =
          f.tanh_approx
              ? hn::Tanh(d,
                         hn::Mul(hn::Set(d, 0.7978845608028654f),
                                 hn::MulAdd(hn::Mul(hn::Set(d, 0.044715f), hn::Mul(x, x)), x, x)))
              : erf_f32(d, hn::Mul(x, hn::Set(d, 0.7071067811865476f)));
      hn::StoreU(hn::Mul(hn::Mul(half, x), hn::Add(one, inner)), d, out + i);
    }
  }
  scalar_unary(f, in, out, i, size_t(n) - i);
}

template <template <class> class F, class T>
void param_loop(const void* in_v, void* out_v, int64_t n, const Scalar* p) {
  const T* in = static_cast<const T*>(in_v);
  T* out = static_cast<T*>(out_v);
  const F<T> f(p);
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}

template <class F, class T>
void binary_loop(
    const void* a_v, const void* b_v, void* out_v, int64_t n, bool a_scalar, bool b_scalar) {
  const T* a = static_cast<const T*>(a_v);
  const T* b = static_cast<const T*>(b_v);
  T* out = static_cast<T*>(out_v);
  const F f;
  int64_t i = 0;
  if constexpr (VecBin<F>::ok) {
    const hn::ScalableTag<T> d;
    const int64_t N = int64_t(hn::Lanes(d));
    const auto va = hn::Set(d, *a), vb = hn::Set(d, *b);  // used where that side is a scalar
    for (; i + N <= n; i += N) {
      const auto x = a_scalar ? va : hn::LoadU(d, a + i);
      const auto y = b_scalar ? vb : hn::LoadU(d, b + i);
      hn::StoreU(VecBin<F>::apply(x, y), d, out + i);
    }
  }
  // The tail, or every element for functors without a vector form.
  if (b_scalar) {
    const T bv = *b;
    for (; i < n; ++i) out[i] = T(f(a[i], bv));
  } else if (a_scalar) {
    const T av = *a;
    for (; i < n; ++i) out[i] = T(f(av, b[i]));
  } else {
    for (; i < n; ++i) out[i] = T(f(a[i], b[i]));
  }
}

// Pairwise above kBlock; within a block, eight vector accumulators (enough to keep both load
// ports busy) summed in a fixed order.
template <class T>
T sum_block(const T* p, size_t n) {
  constexpr size_t kBlock = 4096;
  if (n > kBlock) {
    const size_t half = (n / 2 + 127) & ~size_t(127);
    return sum_block(p, half) + sum_block(p + half, n - half);
  }
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  auto s4 = hn::Zero(d), s5 = hn::Zero(d), s6 = hn::Zero(d), s7 = hn::Zero(d);
  size_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, p + i));
    s1 = hn::Add(s1, hn::LoadU(d, p + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, p + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, p + i + 3 * N));
    s4 = hn::Add(s4, hn::LoadU(d, p + i + 4 * N));
    s5 = hn::Add(s5, hn::LoadU(d, p + i + 5 * N));
    s6 = hn::Add(s6, hn::LoadU(d, p + i + 6 * N));
    s7 = hn::Add(s7, hn::LoadU(d, p + i + 7 * N));
  }
  for (; i + N <= n; i += N) s0 = hn::Add(s0, hn::LoadU(d, p + i));
  const auto sum =
      hn::Add(hn::Add(hn::Add(s0, s1), hn::Add(s2, s3)), hn::Add(hn::Add(s4, s5), hn::Add(s6, s7)));
  T r = hn::GetLane(hn::SumOfLanes(d, sum));
  for (; i < n; ++i) r += p[i];
  return r;
}

// The first elements up to a 64-byte boundary are added apart, so that the vector loads are
// aligned (a misaligned AVX-512 load spans two cache lines). The split depends only on the
// address, so a tensor's sum stays the same on any thread count.
template <class T>
double sum_loop(const void* in, int64_t n) {
  const T* p = static_cast<const T*>(in);
  size_t head = (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64 / sizeof(T);
  if (reinterpret_cast<uintptr_t>(p) % sizeof(T) != 0 || head > size_t(n)) head = 0;
  T h = 0;
  for (size_t i = 0; i < head; ++i) h += p[i];
  return double(h + sum_block(p + head, size_t(n) - head));
}

// One line: the max, the sum of exp(x - max), then the outputs (as backend/cpu/softmax.cpp).
template <class T>
void softmax_loop(const void* in_v, void* out_v, int64_t n, bool log) {
  const T* in = static_cast<const T*>(in_v);
  T* out = static_cast<T*>(out_v);
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  // The max, and whether every value is finite (NaN or inf: the scalar form below).
  T m = -std::numeric_limits<T>::infinity();
  bool special = false;
  {
    auto vmax = hn::Set(d, m);
    auto finite = hn::Zero(d);  // stays 0 while every x - x is 0; inf and NaN make it NaN
    size_t k = 0;
    for (; k + N <= size_t(n); k += N) {
      const auto x = hn::LoadU(d, in + k);
      vmax = hn::Max(vmax, x);
      finite = hn::Add(finite, hn::Sub(x, x));
    }
    special = !hn::AllFalse(d, hn::IsNaN(finite));
    m = hn::GetLane(hn::MaxOfLanes(d, vmax));
    for (; k < size_t(n); ++k) {
      special |= !std::isfinite(in[k]);
      m = in[k] > m ? in[k] : m;
    }
  }
  if (special || n == 0) {
    // The same algorithm in scalar form, with NaN and inf as the portable kernel has them.
    T mm = -std::numeric_limits<T>::infinity();
    for (int64_t i = 0; i < n; ++i) mm = (in[i] > mm || std::isnan(in[i])) ? in[i] : mm;
    if (std::isinf(mm) && mm < 0) mm = 0;
    T s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::exp(in[i] - mm);
    const T ls = std::log(s), inv = T(1) / s;
    for (int64_t i = 0; i < n; ++i) out[i] = log ? in[i] - mm - ls : std::exp(in[i] - mm) * inv;
    return;
  }
  // exp(x - m) with x - m <= 0: no overflow (Highway's Exp is valid for any argument below ~88).
  const auto vm = hn::Set(d, m);
  auto acc = hn::Zero(d);
  size_t i = 0;
  for (; i + N <= size_t(n); i += N) {
    const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, in + i), vm));
    if (!log) hn::StoreU(e, d, out + i);
    acc = hn::Add(acc, e);
  }
  T s = hn::GetLane(hn::SumOfLanes(d, acc));
  for (size_t k = i; k < size_t(n); ++k) {
    const T e = std::exp(in[k] - m);
    if (!log) out[k] = e;
    s += e;
  }
  if (log) {
    const T shift = m + std::log(s);
    const auto vs = hn::Set(d, shift);
    size_t k = 0;
    for (; k + N <= size_t(n); k += N) hn::StoreU(hn::Sub(hn::LoadU(d, in + k), vs), d, out + k);
    for (; k < size_t(n); ++k) out[k] = in[k] - shift;
  } else {
    const T inv_s = T(1) / s;
    const auto inv = hn::Set(d, inv_s);
    size_t k = 0;
    for (; k + N <= size_t(n); k += N) hn::StoreU(hn::Mul(hn::LoadU(d, out + k), inv), d, out + k);
    for (; k < size_t(n); ++k) out[k] = out[k] * inv_s;
  }
}

void minmax_i64(const int64_t* p, int64_t n, int64_t* lo, int64_t* hi) {
  const hn::ScalableTag<int64_t> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto vlo = hn::Set(d, p[0]), vhi = vlo;
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x = hn::LoadU(d, p + i);
    vlo = hn::Min(vlo, x);
    vhi = hn::Max(vhi, x);
  }
  int64_t l = hn::GetLane(hn::MinOfLanes(d, vlo)), h = hn::GetLane(hn::MaxOfLanes(d, vhi));
  for (; i < n; ++i) {
    l = p[i] < l ? p[i] : l;
    h = p[i] > h ? p[i] : h;
  }
  *lo = l;
  *hi = h;
}

template <class T>
void fill_table(Table& t, int row) {
#define EMBER_UNARY(name, F, dtypes, ...)                       \
  if constexpr (DTypeSet(dtypes).contains(dtype_of<T>)) {       \
    t.unary[row][int(UnaryOp::name)] = &unary_loop<math::F, T>; \
  }
  EMBER_UNARY_OPS(EMBER_UNARY)
#undef EMBER_UNARY
#define EMBER_PARAM(name, F, dtypes, ...)                                  \
  if constexpr (DTypeSet(dtypes).contains(dtype_of<T>)) {                  \
    t.param_unary[row][int(ParamUnaryOp::name)] = &param_loop<math::F, T>; \
  }
  EMBER_PARAM_UNARY_OPS(EMBER_PARAM)
#undef EMBER_PARAM
  t.param_unary[row][int(ParamUnaryOp::gelu)] = &gelu_loop<T>;
#define EMBER_BINARY(name, F, dtypes, ...)                         \
  if constexpr (DTypeSet(dtypes).contains(dtype_of<T>)) {          \
    t.binary[row][int(BinaryOp::name)] = &binary_loop<math::F, T>; \
  }
  EMBER_BINARY_OPS(EMBER_BINARY)
#undef EMBER_BINARY
  t.sum[row] = &sum_loop<T>;
  t.softmax[row] = &softmax_loop<T>;
}

const Table* MakeTable() {
  static const Table table = [] {
    Table t;
    t.target = hwy::TargetName(HWY_TARGET);
    fill_table<float>(t, 0);
    fill_table<double>(t, 1);
    t.minmax_i64 = &minmax_i64;
    return t;
  }();
  return &table;
}

}  // namespace ember::cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::cpu::simd {
HWY_EXPORT(MakeTable);

const Table& table() {
  static const Table* const t = HWY_DYNAMIC_DISPATCH(MakeTable)();
  return *t;
}
}  // namespace ember::cpu::simd
#endif
