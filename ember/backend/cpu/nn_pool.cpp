// CPU kernels of max pooling (plain and adaptive) and its backward, and the registration of
// every pooling and resampling kernel (the others are in nn_pool_avg.cpp and nn_resample.cpp).
//
// Every pool is a 3-d pool over (d, h, w) (1-d and 2-d pools have leading sizes 1), in one of
// two dense layouts:
// - NCHW: each (n, c) plane is contiguous. A pool works one output row (n, c, od, oh) at a time,
//   in two separable stages: the rows of the window are combined column by column (a loop along
//   w that vectorises), then the outputs combine their windows' columns (vectorised over the
//   outputs, see Phases). The max keeps the row of each column's max, so indices come out
//   exactly as PyTorch's row-major scan gives them.
// - NHWC (channels last): the channels of one position are contiguous, and every loop runs
//   along the channels, one output position at a time. For float32 and float64 the row
//   function is compiled for AVX-512 and AVX2 as well as the baseline (target_clones), chosen
//   at load time for the CPU at hand.
// Indices are computed in 32 bits where the plane allows (so that values and indices fill
// vectors alike) and stored as the indices tensor's dtype: int64 for users, int32 when they are
// only kept for the backward. Each output is computed by one thread in a fixed order, and the
// backward gives each (n, c) plane (NHWC: each (n, channel block)) to one thread, so results do
// not depend on the thread count.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/nn_pool_common.h"
#include "ember/backend/cpu/register.h"

namespace ember::cpu {
namespace {

using pool::DimWindows;
using pool::grain_for;
using pool::is_nan;
using pool::lowest;
using pool::takes;
using pool::Windows;

// ---- NCHW max pool ------------------------------------------------------------------------------

// The second stage of an NCHW row reads, for kernel column k, input column
// iw = ow * stride + k * dilation - pad. Split the columns into `stride` phases (phase p holds
// columns p, p + stride, ...): column k of output ow is then element ow + offset[k] of phase
// phase[k], so a loop over the outputs reads each phase contiguously and vectorises. Outputs
// [lo, hi) read only columns inside the input; the others go through the windows one by one.
struct Phases {
  int64_t stride = 1, lo = 0, hi = 0;
  std::vector<int64_t> phase, offset;
  std::vector<int64_t> start;  // where each phase begins in the phase buffer (size stride + 1)
};

Phases phases_of(const PoolShape& s) {
  Phases ph;
  const int64_t st = s.stride[2], K = s.kernel[2], W = s.in[2], OW = s.out[2];
  if (s.adaptive || st > W) return ph;  // every output by its window
  ph.stride = st;
  ph.start.assign(size_t(st) + 1, 0);
  for (int64_t p = 0; p < st; ++p)
    ph.start[size_t(p) + 1] = ph.start[size_t(p)] + (W - p + st - 1) / st;
  int64_t lo = 0, hi = OW;
  for (int64_t k = 0; k < K; ++k) {
    const int64_t q = k * s.dilation[2] - s.pad[2];
    const int64_t p = ((q % st) + st) % st, off = (q - p) / st;
    ph.phase.push_back(p);
    ph.offset.push_back(off);
    lo = std::max(lo, -off);
    hi = std::min(hi, ph.start[size_t(p) + 1] - ph.start[size_t(p)] - off);
  }
  // Padding wider than the input can put every output at the edge: lo may pass OW.
  ph.lo = std::min(lo, OW);
  ph.hi = std::clamp(hi, ph.lo, OW);
  return ph;
}

// Scratch of one thread: the first stage's columns (values, and rows of the max) and the
// second stage's phases and running maxima.
template <class A, class I>
struct MaxScratch {
  std::vector<A> colv, pv, mv;
  std::vector<I> colr, pr, mr, mw;
  MaxScratch(int64_t W, int64_t OW, bool idx)
      : colv(size_t(W)),
        pv(size_t(W)),
        mv(size_t(OW)),
        colr(idx ? size_t(W) : 0),
        pr(idx ? size_t(W) : 0),
        mr(idx ? size_t(OW) : 0),
        mw(idx ? size_t(OW) : 0) {}
};

// Between two columns' maxima (v from row r) and the running one (m from row mr): a larger
// value, an equal one from an earlier row, or a NaN from a later or equal row (or replacing a
// number) wins; with columns taken in increasing order this is the row-major scan's answer.
// Written with & and | so that loops over outputs vectorise.
template <class A, class I>
inline bool col_takes(A v, I r, A m, I mr) {
  return (v > m) | ((v == m) & (r < mr)) | (is_nan(v) & (!is_nan(m) | (r >= mr)));
}

// The inner loops, with restrict pointers: GCC if-converts and vectorises the selects only
// when it knows the arrays do not overlap.

// Stage 1: row r joins the running column maxima.
template <class T, class A, class I, bool Idx>
void rows_update(A* __restrict colv, I* __restrict colr, const T* __restrict row, int64_t n, I r) {
  for (int64_t w = 0; w < n; ++w) {
    const A v = A(row[w]), m = colv[w];
    const bool u = takes(v, m);
    colv[w] = u ? v : m;
    if constexpr (Idx) colr[w] = u ? r : colr[w];
  }
}

// Stage 2: kernel column k (values v from rows r) joins the outputs' running maxima (m, from
// row mr, kernel column mk).
template <class A, class I>
void cols_update(A* __restrict m,
                 I* __restrict mr,
                 I* __restrict mk,
                 const A* __restrict v,
                 const I* __restrict r,
                 I k,
                 int64_t lo,
                 int64_t hi) {
  for (int64_t ow = lo; ow < hi; ++ow) {
    const A a = v[ow], b = m[ow];
    const I ra = r[ow], rb = mr[ow], kb = mk[ow];
    const bool u = col_takes(a, ra, b, rb);
    m[ow] = u ? a : b;
    mr[ow] = u ? ra : rb;
    mk[ow] = u ? k : kb;
  }
}

// The phases of n columns for the given stride: phase p (from start[p]) holds columns p,
// p + stride, ... Stride 2, the common case, is spelled out so the compiler vectorises it.
template <class V>
void deinterleave(
    V* __restrict dst, const V* __restrict src, int64_t n, int64_t stride, const int64_t* start) {
  if (stride == 2) {
    V* __restrict even = dst;
    V* __restrict odd = dst + start[1];
    for (int64_t j = 0; j < n / 2; ++j) {
      even[j] = src[2 * j];
      odd[j] = src[2 * j + 1];
    }
    if (n % 2) even[n / 2] = src[n - 1];
    return;
  }
  for (int64_t p = 0; p < stride; ++p)
    for (int64_t j = 0; j < start[p + 1] - start[p]; ++j) dst[start[p] + j] = src[j * stride + p];
}

template <class A>
void cols_max(A* __restrict m, const A* __restrict v, int64_t lo, int64_t hi) {
  for (int64_t ow = lo; ow < hi; ++ow) {
    const A a = v[ow], b = m[ow];
    m[ow] = takes(a, b) ? a : b;
  }
}

// One output row (plane, od, oh) in two stages: the window's rows are combined column by
// column (colv, and colr: the row id * H + ih each column's max came from, by PyTorch's rule),
// then each output combines its window's columns (col_takes).
template <class T, class I, class IO, bool Idx>
void max_row_nchw(const T* plane,
                  T* out,
                  IO* idx,
                  const PoolShape& s,
                  const Windows& win,
                  const Phases& ph,
                  int64_t od,
                  int64_t oh,
                  MaxScratch<opmath_t<T>, I>& sc) {
  using A = opmath_t<T>;
  const int64_t H = s.in[1], W = s.in[2], OW = s.out[2];
  const DimWindows &wd = win.d[0], &wh = win.d[1], &ww = win.d[2];
  const int64_t nd = wd.count[size_t(od)], nh = wh.count[size_t(oh)];
  // A window with no input element (dilation stepping over a small input) gives -inf and, as
  // PyTorch, the position of its first element past the padding: outside the plane or not in
  // the window at all. The backward adds to it only inside the plane, as PyTorch's NCHW one.
  const int64_t empty_row = (wd.first[size_t(od)] * H + wh.first[size_t(oh)]) * W;
  if (nd == 0 || nh == 0) {
    for (int64_t ow = 0; ow < OW; ++ow) {
      out[ow] = T(lowest<A>());
      if constexpr (Idx) idx[ow] = IO(empty_row + ww.first[size_t(ow)]);
    }
    return;
  }
  A* colv = sc.colv.data();
  I* colr = Idx ? sc.colr.data() : nullptr;
  bool started = false;
  for (int64_t a = 0; a < nd; ++a) {
    const int64_t id = wd.first[size_t(od)] + a * wd.step;
    for (int64_t b = 0; b < nh; ++b) {
      const int64_t r = id * H + wh.first[size_t(oh)] + b * wh.step;
      const T* row = plane + r * W;
      if (!started) {
        for (int64_t w = 0; w < W; ++w) colv[w] = A(row[w]);
        if constexpr (Idx) std::fill(colr, colr + W, I(r));
        started = true;
        continue;
      }
      rows_update<T, A, I, Idx>(colv, colr, row, W, I(r));
    }
  }
  // Outputs outside [lo, hi): one window at a time.
  auto one = [&](int64_t ow) {
    const int64_t n = ww.count[size_t(ow)], f = ww.first[size_t(ow)], st = ww.step;
    if (n == 0) {
      out[ow] = T(lowest<A>());
      if constexpr (Idx) idx[ow] = IO(empty_row + f);
      return;
    }
    A m = colv[f];
    if constexpr (Idx) {
      I mr = colr[f];
      int64_t mw = f;
      for (int64_t k = 1; k < n; ++k) {
        const int64_t w = f + k * st;
        if (col_takes(colv[w], colr[w], m, mr)) m = colv[w], mr = colr[w], mw = w;
      }
      idx[ow] = IO(int64_t(mr) * W + mw);
    } else {
      for (int64_t k = 1; k < n; ++k) m = takes(colv[f + k * st], m) ? colv[f + k * st] : m;
    }
    out[ow] = T(m);
  };
  for (int64_t ow = 0; ow < ph.lo; ++ow) one(ow);
  for (int64_t ow = ph.hi; ow < OW; ++ow) one(ow);
  if (ph.hi == ph.lo) return;
  // Outputs [lo, hi): kernel column by kernel column, vectorised over the outputs.
  const int64_t st = ph.stride, lo = ph.lo, hi = ph.hi;
  const A* pv = colv;
  const I* pr = colr;
  if (st > 1) {
    deinterleave<A>(sc.pv.data(), colv, W, st, ph.start.data());
    if constexpr (Idx) deinterleave<I>(sc.pr.data(), colr, W, st, ph.start.data());
    pv = sc.pv.data();
    pr = sc.pr.data();
  }
  A* m = sc.mv.data();
  I* mr = Idx ? sc.mr.data() : nullptr;
  I* mk = Idx ? sc.mw.data() : nullptr;
  for (size_t k = 0; k < ph.phase.size(); ++k) {
    const int64_t p = ph.phase[k], off = ph.offset[k], base = ph.start[size_t(p)] + off;
    const A* v = pv + base;
    if constexpr (Idx) {
      const I* r = pr + base;
      if (k == 0) {
        for (int64_t ow = lo; ow < hi; ++ow) {
          m[ow] = v[ow];
          mr[ow] = r[ow];
          mk[ow] = 0;
        }
        continue;
      }
      cols_update<A, I>(m, mr, mk, v, r, I(k), lo, hi);
    } else {
      if (k == 0) {
        for (int64_t ow = lo; ow < hi; ++ow) m[ow] = v[ow];
        continue;
      }
      cols_max<A>(m, v, lo, hi);
    }
  }
  for (int64_t ow = lo; ow < hi; ++ow) out[ow] = T(m[ow]);
  if constexpr (Idx) {
    // Kernel column k of output ow is input column ow * stride + k * dilation - pad.
    const int64_t dil = s.dilation[2], pad = s.pad[2];
    for (int64_t ow = lo; ow < hi; ++ow) {
      idx[ow] = IO(int64_t(mr[ow]) * W + ow * st + int64_t(mk[ow]) * dil - pad);
    }
  }
}

template <class T, class I, class IO>
void max_pool_nchw(const Tensor& out, const Tensor& indices, const Tensor& in, const PoolShape& s) {
  using A = opmath_t<T>;
  const Windows win(s);
  const Phases ph = phases_of(s);
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  IO* ind = indices.defined() ? static_cast<IO*>(indices.data_ptr()) : nullptr;
  const int64_t OD = s.out[0], OH = s.out[1], OW = s.out[2], W = s.in[2];
  const int64_t rows = s.batch * s.channels * OD * OH;
  const int64_t per_row = W * s.kernel[0] * s.kernel[1] + OW * s.kernel[2];
  parallel_for(0, rows, grain_for(per_row), [&](int64_t b, int64_t e) {
    MaxScratch<A, I> sc(W, OW, ind != nullptr);
    for (int64_t row = b; row < e; ++row) {
      const int64_t oh = row % OH, od = row / OH % OD, p = row / (OH * OD);
      const T* plane = src + p * s.in_plane();
      const int64_t o = row * OW;
      if (ind) {
        max_row_nchw<T, I, IO, true>(plane, dst + o, ind + o, s, win, ph, od, oh, sc);
      } else {
        max_row_nchw<T, I, IO, false>(plane, dst + o, nullptr, s, win, ph, od, oh, sc);
      }
    }
  });
}

// ---- NHWC max pool ------------------------------------------------------------------------------

// The C channels of one window position (at plane position pos) join the running maxima.
template <class T, class A, class I, bool Idx>
[[gnu::always_inline]] inline void chan_update(
    A* __restrict m, I* __restrict mi, const T* __restrict x, int64_t C, I pos) {
  for (int64_t c = 0; c < C; ++c) {
    const A v = A(x[c]), b = m[c];
    const bool u = takes(v, b);
    m[c] = u ? v : b;
    if constexpr (Idx) mi[c] = u ? pos : mi[c];
  }
}

// One output row (n, od, oh): for each output position, the max over its window's positions
// (row-major), along the C channels. The running maxima live in the output itself for float
// and double (in mv otherwise), their positions in the indices when those have type I (in mi
// otherwise). x: the batch element's input.
template <class T, class I, class IO, bool Idx>
[[gnu::always_inline]] inline void max_row_nhwc(const T* x,
                                                T* out,
                                                IO* idx,
                                                const PoolShape& s,
                                                const Windows& win,
                                                int64_t od,
                                                int64_t oh,
                                                opmath_t<T>* mv,
                                                I* mi) {
  using A = opmath_t<T>;
  constexpr bool direct = std::is_same_v<T, A>;
  constexpr bool direct_idx = std::is_same_v<I, IO>;
  const int64_t C = s.channels, H = s.in[1], W = s.in[2], OW = s.out[2];
  const DimWindows &wd = win.d[0], &wh = win.d[1], &ww = win.d[2];
  const int64_t nd = wd.count[size_t(od)], nh = wh.count[size_t(oh)];
  for (int64_t ow = 0; ow < OW; ++ow) {
    T* o = out + ow * C;
    IO* oi = Idx ? idx + ow * C : nullptr;
    const int64_t nw = ww.count[size_t(ow)];
    if (nd == 0 || nh == 0 || nw == 0) {  // an empty window, as in the NCHW rows
      for (int64_t c = 0; c < C; ++c) o[c] = T(lowest<A>());
      const int64_t pos =
          (wd.first[size_t(od)] * H + wh.first[size_t(oh)]) * W + ww.first[size_t(ow)];
      if constexpr (Idx) std::fill(oi, oi + C, IO(pos));
      continue;
    }
    A* m = direct ? reinterpret_cast<A*>(o) : mv;
    I* mp = nullptr;
    if constexpr (Idx) mp = direct_idx ? reinterpret_cast<I*>(oi) : mi;
    bool started = false;
    for (int64_t a = 0; a < nd; ++a) {
      const int64_t id = wd.first[size_t(od)] + a * wd.step;
      for (int64_t b = 0; b < nh; ++b) {
        const int64_t r = (id * H + wh.first[size_t(oh)] + b * wh.step) * W;
        for (int64_t k = 0; k < nw; ++k) {
          const int64_t pos = r + ww.first[size_t(ow)] + k * ww.step;
          const T* v = x + pos * C;
          if (!started) {
            for (int64_t c = 0; c < C; ++c) m[c] = A(v[c]);
            if constexpr (Idx) std::fill(mp, mp + C, I(pos));
            started = true;
            continue;
          }
          chan_update<T, A, I, Idx>(m, mp, v, C, I(pos));
        }
      }
    }
    if constexpr (!direct) {
      for (int64_t c = 0; c < C; ++c) o[c] = T(m[c]);
    }
    if constexpr (Idx && !direct_idx) {
      for (int64_t c = 0; c < C; ++c) oi[c] = IO(mp[c]);
    }
  }
}

// Which indices an NHWC row writes: none, int32 or int64 (positions computed in 32 bits).
enum class IdxOut { None, I32, I64 };

// The multi-versioned rows for float and double with 32-bit positions.
template <class T>
[[gnu::always_inline]] inline void max_row_nhwc_any(const T* x,
                                                    T* out,
                                                    void* idx,
                                                    IdxOut kind,
                                                    const PoolShape& s,
                                                    const Windows& win,
                                                    int64_t od,
                                                    int64_t oh,
                                                    T* mv,
                                                    int32_t* mi) {
  switch (kind) {
    case IdxOut::None:
      max_row_nhwc<T, int32_t, int32_t, false>(x, out, nullptr, s, win, od, oh, mv, mi);
      break;
    case IdxOut::I32:
      max_row_nhwc<T, int32_t, int32_t, true>(x, out, static_cast<int32_t*>(idx), s, win, od, oh,
                                              mv, mi);
      break;
    case IdxOut::I64:
      max_row_nhwc<T, int32_t, int64_t, true>(x, out, static_cast<int64_t*>(idx), s, win, od, oh,
                                              mv, mi);
      break;
  }
}

EMBER_POOL_CLONES void max_row_nhwc_f32(const float* x,
                                        float* out,
                                        void* idx,
                                        IdxOut kind,
                                        const PoolShape& s,
                                        const Windows& win,
                                        int64_t od,
                                        int64_t oh,
                                        float* mv,
                                        int32_t* mi) {
  max_row_nhwc_any<float>(x, out, idx, kind, s, win, od, oh, mv, mi);
}

EMBER_POOL_CLONES void max_row_nhwc_f64(const double* x,
                                        double* out,
                                        void* idx,
                                        IdxOut kind,
                                        const PoolShape& s,
                                        const Windows& win,
                                        int64_t od,
                                        int64_t oh,
                                        double* mv,
                                        int32_t* mi) {
  max_row_nhwc_any<double>(x, out, idx, kind, s, win, od, oh, mv, mi);
}

template <class T, class I, class IO>
void max_pool_nhwc(const Tensor& out, const Tensor& indices, const Tensor& in, const PoolShape& s) {
  using A = opmath_t<T>;
  const Windows win(s);
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  IO* ind = indices.defined() ? static_cast<IO*>(indices.data_ptr()) : nullptr;
  const int64_t C = s.channels, OD = s.out[0], OH = s.out[1], OW = s.out[2];
  const int64_t rows = s.batch * OD * OH;
  const int64_t per_row = OW * C * s.kernel[0] * s.kernel[1] * s.kernel[2];
  const IdxOut kind =
      !ind ? IdxOut::None : (std::is_same_v<IO, int32_t> ? IdxOut::I32 : IdxOut::I64);
  parallel_for(0, rows, grain_for(per_row), [&](int64_t b, int64_t e) {
    std::vector<A> mv(static_cast<size_t>(C));
    std::vector<I> mi(static_cast<size_t>(C));
    for (int64_t row = b; row < e; ++row) {
      const int64_t oh = row % OH, od = row / OH % OD, n = row / (OH * OD);
      const T* x = src + n * s.in_plane() * C;
      T* o = dst + row * OW * C;
      IO* oi = ind ? ind + row * OW * C : nullptr;
      if constexpr (std::is_same_v<I, int32_t> && std::is_same_v<T, float>) {
        max_row_nhwc_f32(x, o, oi, kind, s, win, od, oh, mv.data(), mi.data());
      } else if constexpr (std::is_same_v<I, int32_t> && std::is_same_v<T, double>) {
        max_row_nhwc_f64(x, o, oi, kind, s, win, od, oh, mv.data(), mi.data());
      } else if (ind) {
        max_row_nhwc<T, I, IO, true>(x, o, oi, s, win, od, oh, mv.data(), mi.data());
      } else {
        max_row_nhwc<T, I, IO, false>(x, o, nullptr, s, win, od, oh, mv.data(), mi.data());
      }
    }
  });
}

void max_pool_kernel(const Tensor& out,
                     const Tensor& indices,
                     const Tensor& in,
                     const PoolShape& s) {
  if (out.numel() == 0) return;
  // Positions in 32 bits where the plane allows (the common case; it vectorises). The op asks
  // for int32 indices only then.
  const bool narrow = s.in_plane() < (int64_t(1) << 31);
  const bool i32 = indices.defined() && indices.dtype() == kInt32;
  EMBER_ASSERT(narrow || !i32, "int32 pooling indices for a plane of ", s.in_plane());
  dispatch_dtype<kNumericTypes>(in.dtype(), "max_pool", [&]<class T>() {
    if (s.channels_last) {
      if (!narrow) return max_pool_nhwc<T, int64_t, int64_t>(out, indices, in, s);
      if (i32) return max_pool_nhwc<T, int32_t, int32_t>(out, indices, in, s);
      max_pool_nhwc<T, int32_t, int64_t>(out, indices, in, s);
    } else {
      if (!narrow) return max_pool_nchw<T, int64_t, int64_t>(out, indices, in, s);
      if (i32) return max_pool_nchw<T, int32_t, int32_t>(out, indices, in, s);
      max_pool_nchw<T, int32_t, int64_t>(out, indices, in, s);
    }
  });
}

// ---- max pool backward -------------------------------------------------------------------------

// grad_in = 0, then grad_out scattered to the indices. NCHW: a plane at a time (it stays in
// cache between the zeroing and the scatter). NHWC: output row by output row, zeroing the input
// just ahead of the rows the scatter reaches (Windows::row_end), so each part of grad_in is
// written while in cache, not zeroed in one pass and read back in another.
template <class T, class IO>
void max_pool_backward_impl(const Tensor& grad_in,
                            const Tensor& grad_out,
                            const Tensor& indices,
                            const PoolShape& s) {
  using A = opmath_t<T>;
  T* gi = static_cast<T*>(grad_in.data_ptr());
  const T* go = static_cast<const T*>(grad_out.data_ptr());
  const IO* ind = static_cast<const IO*>(indices.data_ptr());
  const int64_t ip = s.in_plane(), op = s.out_plane(), C = s.channels;
  if (!s.channels_last) {
    parallel_for(0, s.batch * C, grain_for(ip + op), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* g = gi + p * ip;
        std::fill(g, g + ip, T(0));
        const T* src = go + p * op;
        const IO* i = ind + p * op;
        for (int64_t o = 0; o < op; ++o) {
          const int64_t k = int64_t(i[o]);
          if (uint64_t(k) < uint64_t(ip)) g[k] = T(A(g[k]) + A(src[o]));
        }
      }
    });
    return;
  }
  const Windows win(s);
  const int64_t OD = s.out[0], OH = s.out[1], OW = s.out[2];
  const int64_t cb = pool::channel_block(s), blocks = (C + cb - 1) / cb;
  parallel_for(0, s.batch * blocks, grain_for((ip + op) * cb), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / blocks, c0 = item % blocks * cb, c1 = std::min(C, c0 + cb);
      T* g = gi + n * ip * C;
      auto zero = [&](int64_t from, int64_t to) {  // positions [from, to), channels [c0, c1)
        if (c0 == 0 && c1 == C) {
          std::fill(g + from * C, g + to * C, T(0));
        } else {
          for (int64_t pos = from; pos < to; ++pos)
            std::fill(g + pos * C + c0, g + pos * C + c1, T(0));
        }
      };
      int64_t zeroed = 0;
      for (int64_t od = 0; od < OD; ++od)
        for (int64_t oh = 0; oh < OH; ++oh) {
          const int64_t end = std::min(ip, win.row_end(s, od, oh));
          if (end > zeroed) zero(zeroed, end), zeroed = end;
          const int64_t o0 = ((n * OD + od) * OH + oh) * OW;
          for (int64_t ow = 0; ow < OW; ++ow) {
            const T* src = go + (o0 + ow) * C;
            const IO* i = ind + (o0 + ow) * C;
            for (int64_t c = c0; c < c1; ++c) {
              const int64_t k = int64_t(i[c]);
              if (uint64_t(k) >= uint64_t(ip)) continue;
              // An empty window's position can lie past the rows its output row reads.
              if (k >= zeroed) zero(zeroed, k + 1), zeroed = k + 1;
              g[k * C + c] = T(A(g[k * C + c]) + A(src[c]));
            }
          }
        }
      zero(zeroed, ip);
    }
  });
}

void max_pool_backward_kernel(const Tensor& grad_in,
                              const Tensor& grad_out,
                              const Tensor& indices,
                              const PoolShape& s) {
  if (grad_in.numel() == 0) return;
  dispatch_dtype<kFloatingTypes>(grad_in.dtype(), "max_pool_backward", [&]<class T>() {
    if (indices.dtype() == kInt32) {
      max_pool_backward_impl<T, int32_t>(grad_in, grad_out, indices, s);
    } else {
      max_pool_backward_impl<T, int64_t>(grad_in, grad_out, indices, s);
    }
  });
}

const PoolKernels kPoolKernels{
    .max_pool = &max_pool_kernel,
    .max_pool_backward = &max_pool_backward_kernel,
    .avg_pool = &avg_pool_kernel,
    .avg_pool_backward = &avg_pool_backward_kernel,
};

}  // namespace

void register_nn_pool(KernelTable& t) { t.nn_pool = &kPoolKernels; }

}  // namespace ember::cpu
