// The vectorised row loops of nn_rnn_simd.h. Highway compiles this file once per SIMD target
// (foreach_target.h re-includes it) and HWY_DYNAMIC_DISPATCH picks the best one at run time, as
// for simd.cpp. Each loop runs whole vectors, then the remaining elements in scalar code with the
// same formulas (std::exp, std::tanh).
//
// float32 tanh and sigmoid use a rational approximation (tanh_f32, within 4e-7); float64 uses
// Highway's exp and tanh, with the argument clamped where the result is saturated (tanh(+-20)
// rounds to +-1; sigmoid at +-700). A NaN input stays NaN.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ember/backend/cpu/nn_rnn_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cmath>
#include <limits>

#include "ember/backend/cpu/nn_rnn_simd.h"

HWY_BEFORE_NAMESPACE();
namespace ember::cpu::rnn_simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- element functions, vector and scalar
// --------------------------------------------------------

template <class T>
constexpr T kSigmoidLimit = sizeof(T) == 4 ? T(80) : T(700);
// Below this, exp underflows (float32 ~ -87.3, float64 ~ -708.4): the result is taken as 0.
template <class T>
constexpr T kExpLow = sizeof(T) == 4 ? T(-87) : T(-708);

// 1 / y: for float32 the hardware's approximation refined by one Newton step (about 1 ulp;
// a division costs several times more), for float64 a division.
template <class D, class V>
HWY_INLINE V reciprocal(D d, V y) {
  using T = hn::TFromD<D>;
  if constexpr (sizeof(T) == 4) {
    const V r = hn::ApproximateReciprocal(y);
    return hn::Mul(r, hn::NegMulAdd(y, r, hn::Set(d, T(2))));
  } else {
    return hn::Div(hn::Set(d, T(1)), y);
  }
}

// float32 tanh as Eigen's rational approximation (generic_fast_tanh_float, also XLA's): within
// 4e-7 of tanh everywhere, and about three times cheaper than Highway's exp-based Tanh. An LSTM
// step evaluates five of these per unit (sigmoid(x) = (1 + tanh(x / 2)) / 2).
template <class D, class V>
HWY_INLINE V tanh_f32(D d, V x) {
  const V c =
      hn::Min(hn::Max(x, hn::Set(d, -7.99881172180175781f)), hn::Set(d, 7.99881172180175781f));
  const V x2 = hn::Mul(c, c);
  V p = hn::MulAdd(x2, hn::Set(d, -2.76076847742355e-16f), hn::Set(d, 2.00018790482477e-13f));
  p = hn::MulAdd(x2, p, hn::Set(d, -8.60467152213735e-11f));
  p = hn::MulAdd(x2, p, hn::Set(d, 5.12229709037114e-08f));
  p = hn::MulAdd(x2, p, hn::Set(d, 1.48572235717979e-05f));
  p = hn::MulAdd(x2, p, hn::Set(d, 6.37261928875436e-04f));
  p = hn::MulAdd(x2, p, hn::Set(d, 4.89352455891786e-03f));
  p = hn::Mul(c, p);
  V q = hn::MulAdd(x2, hn::Set(d, 1.19825839466702e-06f), hn::Set(d, 1.18534705686654e-04f));
  q = hn::MulAdd(x2, q, hn::Set(d, 2.26843463243900e-03f));
  q = hn::MulAdd(x2, q, hn::Set(d, 4.89352518554385e-03f));
  const V r =
      hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, 0.0004f)), x, hn::Mul(p, reciprocal(d, q)));
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

template <class D, class V>
HWY_INLINE V vtanh(D d, V x) {
  using T = hn::TFromD<D>;
  if constexpr (sizeof(T) == 4) {
    return tanh_f32(d, x);
  } else {
    const V c = hn::Min(hn::Max(x, hn::Set(d, T(-20))), hn::Set(d, T(20)));
    return hn::IfThenElse(hn::IsNaN(x), x, hn::Tanh(d, c));
  }
}

template <class D, class V>
HWY_INLINE V vsigmoid(D d, V x) {
  using T = hn::TFromD<D>;
  if constexpr (sizeof(T) == 4) {
    const V half = hn::Set(d, 0.5f);
    return hn::MulAdd(half, tanh_f32(d, hn::Mul(half, x)), half);
  } else {
    const V c = hn::Min(hn::Max(x, hn::Set(d, -kSigmoidLimit<T>)), hn::Set(d, kSigmoidLimit<T>));
    const V r = reciprocal(d, hn::Add(hn::Set(d, T(1)), hn::Exp(d, hn::Neg(c))));
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
}

// exp(y) with 0 below the exp range (y = -inf for masked scores); NaN stays.
template <class D, class V>
HWY_INLINE V vexp0(D d, V y) {
  using T = hn::TFromD<D>;
  const V lo = hn::Set(d, kExpLow<T>);
  const V r = hn::IfThenZeroElse(hn::Lt(y, lo), hn::Exp(d, hn::Max(y, lo)));
  return hn::IfThenElse(hn::IsNaN(y), y, r);
}

template <class T>
HWY_INLINE T ssigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

template <class T>
HWY_INLINE T sexp0(T y) {
  return y < kExpLow<T> ? T(0) : std::exp(y);
}

// p[j] or 0 for a null p.
template <class D, class T>
HWY_INLINE hn::VFromD<D> load0(D d, const T* p, size_t j) {
  return p ? hn::LoadU(d, p + j) : hn::Zero(d);
}

template <class T>
HWY_INLINE T at0(const T* p, size_t j) {
  return p ? p[j] : T(0);
}

// ---- attention rows
// ------------------------------------------------------------------------------

template <class T>
T row_max(const T* x, int64_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  auto vm = hn::Set(d, -std::numeric_limits<T>::infinity());
  auto nan = hn::Zero(d);  // all bits set in lanes that saw a NaN (hn::Max drops NaN)
  size_t i = 0;
  for (; i + N <= size_t(n); i += N) {
    const auto v = hn::LoadU(d, x + i);
    vm = hn::Max(vm, v);
    nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
  }
  T m = hn::GetLane(hn::MaxOfLanes(d, vm));
  bool any_nan = !hn::AllFalse(d, hn::MaskFromVec(nan));
  for (; i < size_t(n); ++i) {
    any_nan |= std::isnan(x[i]);
    m = x[i] > m ? x[i] : m;
  }
  return any_nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <class T>
T exp_shift_sum(T* x, int64_t n, T m) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto vm = hn::Set(d, m);
  auto acc = hn::Zero(d);
  size_t i = 0;
  for (; i + N <= size_t(n); i += N) {
    const auto e = vexp0(d, hn::Sub(hn::LoadU(d, x + i), vm));
    hn::StoreU(e, d, x + i);
    acc = hn::Add(acc, e);
  }
  T s = hn::GetLane(hn::SumOfLanes(d, acc));
  for (; i < size_t(n); ++i) {
    x[i] = sexp0(x[i] - m);
    s += x[i];
  }
  return s;
}

template <class T>
void scale(T* x, int64_t n, T a) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto va = hn::Set(d, a);
  size_t i = 0;
  for (; i + N <= size_t(n); i += N) hn::StoreU(hn::Mul(hn::LoadU(d, x + i), va), d, x + i);
  for (; i < size_t(n); ++i) x[i] *= a;
}

template <class T>
void add(T* x, const T* y, int64_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= size_t(n); i += N) {
    hn::StoreU(hn::Add(hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, x + i);
  }
  for (; i < size_t(n); ++i) x[i] += y[i];
}

template <class T>
void dsoftmax(T* dp, const T* p, int64_t n, T dd) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto vd = hn::Set(d, dd);
  size_t i = 0;
  for (; i + N <= size_t(n); i += N) {
    hn::StoreU(hn::Mul(hn::LoadU(d, p + i), hn::Sub(hn::LoadU(d, dp + i), vd)), d, dp + i);
  }
  for (; i < size_t(n); ++i) dp[i] = p[i] * (dp[i] - dd);
}

template <class T>
T dot(const T* a, const T* b, int64_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  auto acc = hn::Zero(d);
  size_t i = 0;
  for (; i + N <= size_t(n); i += N)
    acc = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), acc);
  T s = hn::GetLane(hn::SumOfLanes(d, acc));
  for (; i < size_t(n); ++i) s += a[i] * b[i];
  return s;
}

// ---- cell steps
// ----------------------------------------------------------------------------------

// The pre-activation of gate block g at j: xg + ib + hg + hb.
template <class D, class T>
HWY_INLINE hn::VFromD<D> pre(D d, const CellRow<T>& r, size_t off) {
  return hn::Add(hn::Add(hn::LoadU(d, r.xg + off), load0(d, r.ib, off)),
                 hn::Add(load0(d, r.hg, off), load0(d, r.hb, off)));
}

template <class T>
HWY_INLINE T spre(const CellRow<T>& r, size_t off) {
  return (r.xg[off] + at0(r.ib, off)) + (at0(r.hg, off) + at0(r.hb, off));
}

template <class T, bool kRelu>
void rnn_forward(const CellRow<T>& r) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), H = size_t(r.H);
  size_t j = 0;
  for (; j + N <= H; j += N) {
    const auto x = pre(d, r, j);
    const auto y = kRelu ? hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Zero(d), x) : vtanh(d, x);
    hn::StoreU(y, d, r.hy + j);
  }
  for (; j < H; ++j) {
    const T x = spre(r, j);
    r.hy[j] = kRelu ? (x < T(0) ? T(0) : x) : std::tanh(x);
  }
}

template <class T>
void lstm_forward(const CellRow<T>& r) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), H = size_t(r.H);
  size_t j = 0;
  for (; j + N <= H; j += N) {
    const auto i = vsigmoid(d, pre(d, r, j));
    const auto f = vsigmoid(d, pre(d, r, H + j));
    const auto g = vtanh(d, pre(d, r, 2 * H + j));
    const auto o = vsigmoid(d, pre(d, r, 3 * H + j));
    const auto c = hn::MulAdd(f, hn::LoadU(d, r.cx + j), hn::Mul(i, g));
    if (r.ws) {  // kept for backward
      hn::StoreU(i, d, r.ws + j);
      hn::StoreU(f, d, r.ws + H + j);
      hn::StoreU(g, d, r.ws + 2 * H + j);
      hn::StoreU(o, d, r.ws + 3 * H + j);
    }
    hn::StoreU(c, d, r.cy + j);
    hn::StoreU(hn::Mul(o, vtanh(d, c)), d, r.hy + j);
  }
  for (; j < H; ++j) {
    const T i = ssigmoid(spre(r, j)), f = ssigmoid(spre(r, H + j));
    const T g = std::tanh(spre(r, 2 * H + j)), o = ssigmoid(spre(r, 3 * H + j));
    const T c = f * r.cx[j] + i * g;
    if (r.ws) r.ws[j] = i, r.ws[H + j] = f, r.ws[2 * H + j] = g, r.ws[3 * H + j] = o;
    r.cy[j] = c;
    r.hy[j] = o * std::tanh(c);
  }
}

template <class T>
void gru_forward(const CellRow<T>& r) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), H = size_t(r.H);
  size_t j = 0;
  for (; j + N <= H; j += N) {
    const auto rg = vsigmoid(d, pre(d, r, j));
    const auto z = vsigmoid(d, pre(d, r, H + j));
    const auto hn_ = hn::Add(hn::LoadU(d, r.hg + 2 * H + j), load0(d, r.hb, 2 * H + j));
    const auto xn = hn::Add(hn::LoadU(d, r.xg + 2 * H + j), load0(d, r.ib, 2 * H + j));
    const auto n = vtanh(d, hn::MulAdd(rg, hn_, xn));
    const auto hx = hn::LoadU(d, r.hx + j);
    if (r.ws) {
      hn::StoreU(rg, d, r.ws + j);
      hn::StoreU(z, d, r.ws + H + j);
      hn::StoreU(n, d, r.ws + 2 * H + j);
      hn::StoreU(hn_, d, r.ws + 3 * H + j);
    }
    hn::StoreU(hn::MulAdd(z, hn::Sub(hx, n), n), d, r.hy + j);
  }
  for (; j < H; ++j) {
    const T rg = ssigmoid(spre(r, j)), z = ssigmoid(spre(r, H + j));
    const T hn_ = r.hg[2 * H + j] + at0(r.hb, 2 * H + j);
    const T xn = r.xg[2 * H + j] + at0(r.ib, 2 * H + j);
    const T n = std::tanh(rg * hn_ + xn);
    if (r.ws) r.ws[j] = rg, r.ws[H + j] = z, r.ws[2 * H + j] = n, r.ws[3 * H + j] = hn_;
    r.hy[j] = z * (r.hx[j] - n) + n;
  }
}

// dh = g0 + g1 + g2 at j.
template <class D, class T>
HWY_INLINE hn::VFromD<D> grad_h(D d, const CellRow<T>& r, size_t j) {
  return hn::Add(hn::Add(load0(d, r.g0, j), load0(d, r.g1, j)), load0(d, r.g2, j));
}

template <class T>
HWY_INLINE T sgrad_h(const CellRow<T>& r, size_t j) {
  return (at0(r.g0, j) + at0(r.g1, j)) + at0(r.g2, j);
}

template <class T, bool kRelu>
void rnn_backward(const CellRow<T>& r) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), H = size_t(r.H);
  const auto one = hn::Set(d, T(1));
  size_t j = 0;
  for (; j + N <= H; j += N) {
    const auto dh = grad_h(d, r, j);
    const auto y = hn::LoadU(d, r.hy + j);
    const auto g = kRelu ? hn::IfThenElseZero(hn::Gt(y, hn::Zero(d)), dh)
                         : hn::Mul(dh, hn::NegMulAdd(y, y, one));
    hn::StoreU(g, d, r.dgi + j);
  }
  for (; j < H; ++j) {
    const T dh = sgrad_h(r, j), y = r.hy[j];
    r.dgi[j] = kRelu ? (y > T(0) ? dh : T(0)) : dh * (T(1) - y * y);
  }
}

template <class T>
void lstm_backward(const CellRow<T>& r) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), H = size_t(r.H);
  const auto one = hn::Set(d, T(1));
  size_t j = 0;
  for (; j + N <= H; j += N) {
    const auto dh = grad_h(d, r, j);
    const auto i = hn::LoadU(d, r.ws + j), f = hn::LoadU(d, r.ws + H + j);
    const auto g = hn::LoadU(d, r.ws + 2 * H + j), o = hn::LoadU(d, r.ws + 3 * H + j);
    const auto cx = hn::LoadU(d, r.cx + j);
    const auto tc = vtanh(d, hn::LoadU(d, r.cy + j));
    const auto dc = hn::MulAdd(hn::Mul(dh, o), hn::NegMulAdd(tc, tc, one), load0(d, r.dcy, j));
    hn::StoreU(hn::Mul(hn::Mul(dc, g), hn::Mul(i, hn::Sub(one, i))), d, r.dgi + j);
    hn::StoreU(hn::Mul(hn::Mul(dc, cx), hn::Mul(f, hn::Sub(one, f))), d, r.dgi + H + j);
    hn::StoreU(hn::Mul(hn::Mul(dc, i), hn::NegMulAdd(g, g, one)), d, r.dgi + 2 * H + j);
    hn::StoreU(hn::Mul(hn::Mul(dh, tc), hn::Mul(o, hn::Sub(one, o))), d, r.dgi + 3 * H + j);
    hn::StoreU(hn::Mul(dc, f), d, r.dcx + j);
  }
  for (; j < H; ++j) {
    const T dh = sgrad_h(r, j);
    const T i = r.ws[j], f = r.ws[H + j], g = r.ws[2 * H + j], o = r.ws[3 * H + j];
    const T cx = r.cx[j], tc = std::tanh(r.cy[j]);
    const T dc = dh * o * (T(1) - tc * tc) + at0(r.dcy, j);
    r.dgi[j] = dc * g * (i * (T(1) - i));
    r.dgi[H + j] = dc * cx * (f * (T(1) - f));
    r.dgi[2 * H + j] = dc * i * (T(1) - g * g);
    r.dgi[3 * H + j] = dh * tc * (o * (T(1) - o));
    r.dcx[j] = dc * f;
  }
}

template <class T>
void gru_backward(const CellRow<T>& r) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), H = size_t(r.H);
  const auto one = hn::Set(d, T(1));
  size_t j = 0;
  for (; j + N <= H; j += N) {
    const auto dh = grad_h(d, r, j);
    const auto rg = hn::LoadU(d, r.ws + j), z = hn::LoadU(d, r.ws + H + j);
    const auto n = hn::LoadU(d, r.ws + 2 * H + j), hn_ = hn::LoadU(d, r.ws + 3 * H + j);
    const auto hx = hn::LoadU(d, r.hx + j);
    const auto dn = hn::Mul(hn::Mul(dh, hn::Sub(one, z)), hn::NegMulAdd(n, n, one));
    const auto dr = hn::Mul(hn::Mul(dn, hn_), hn::Mul(rg, hn::Sub(one, rg)));
    const auto dz = hn::Mul(hn::Mul(dh, hn::Sub(hx, n)), hn::Mul(z, hn::Sub(one, z)));
    hn::StoreU(dr, d, r.dgi + j);
    hn::StoreU(dz, d, r.dgi + H + j);
    hn::StoreU(dn, d, r.dgi + 2 * H + j);
    hn::StoreU(dr, d, r.dgh + j);
    hn::StoreU(dz, d, r.dgh + H + j);
    hn::StoreU(hn::Mul(dn, rg), d, r.dgh + 2 * H + j);
    hn::StoreU(hn::Mul(dh, z), d, r.dhx + j);
  }
  for (; j < H; ++j) {
    const T dh = sgrad_h(r, j);
    const T rg = r.ws[j], z = r.ws[H + j], n = r.ws[2 * H + j], hn_ = r.ws[3 * H + j];
    const T dn = dh * (T(1) - z) * (T(1) - n * n);
    const T dr = dn * hn_ * (rg * (T(1) - rg));
    const T dz = dh * (r.hx[j] - n) * (z * (T(1) - z));
    r.dgi[j] = dr, r.dgi[H + j] = dz, r.dgi[2 * H + j] = dn;
    r.dgh[j] = dr, r.dgh[H + j] = dz, r.dgh[2 * H + j] = dn * rg;
    r.dhx[j] = dh * z;
  }
}

template <class T>
void fill(Fns<T>& f) {
  f.row_max = &row_max<T>;
  f.exp_shift_sum = &exp_shift_sum<T>;
  f.scale = &scale<T>;
  f.add = &add<T>;
  f.dsoftmax = &dsoftmax<T>;
  f.dot = &dot<T>;
  f.cell_forward[int(RnnMode::Tanh)] = &rnn_forward<T, false>;
  f.cell_forward[int(RnnMode::Relu)] = &rnn_forward<T, true>;
  f.cell_forward[int(RnnMode::Lstm)] = &lstm_forward<T>;
  f.cell_forward[int(RnnMode::Gru)] = &gru_forward<T>;
  f.cell_backward[int(RnnMode::Tanh)] = &rnn_backward<T, false>;
  f.cell_backward[int(RnnMode::Relu)] = &rnn_backward<T, true>;
  f.cell_backward[int(RnnMode::Lstm)] = &lstm_backward<T>;
  f.cell_backward[int(RnnMode::Gru)] = &gru_backward<T>;
}

const Table* MakeTable() {
  static const Table table = [] {
    Table t;
    t.target = hwy::TargetName(HWY_TARGET);
    fill(t.f32);
    fill(t.f64);
    return t;
  }();
  return &table;
}

}  // namespace ember::cpu::rnn_simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::cpu::rnn_simd {
HWY_EXPORT(MakeTable);

const Table& table() {
  static const Table* const t = HWY_DYNAMIC_DISPATCH(MakeTable)();
  return *t;
}
}  // namespace ember::cpu::rnn_simd
#endif
