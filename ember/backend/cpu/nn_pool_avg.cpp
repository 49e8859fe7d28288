// CPU kernels of average pooling (plain and adaptive) and its backward. Layouts as in
// nn_pool.cpp: NCHW rows in two separable stages (column sums of the window's rows, then each
// output's sum of columns), NHWC one position at a time along the channels. Each output is
// summed by one thread in a fixed order, and the backward gives each (n, c) plane (or NHWC
// (n, channel block)) to one thread: results do not depend on the thread count.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/nn_pool_common.h"

namespace ember::cpu {
namespace {

using pool::channel_block;
using pool::DimWindows;
using pool::grain_for;
using pool::Windows;

// ---- average pool ------------------------------------------------------------------------------

// The sum of n contiguous values in a fixed order, in eight interleaved partial sums (a loop the
// compiler vectorises without reassociating anything).
template <class A, class T>
A sum_run(const T* x, int64_t n) {
  A acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += A(x[i + k]);
  A s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) s += A(x[i]);
  return s;
}

template <class T>
void avg_pool_nchw(const Tensor& out, const Tensor& in, const PoolShape& s, AvgDivisor avg) {
  using A = opmath_t<T>;
  const Windows win(s, avg);
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int64_t H = s.in[1], W = s.in[2], OD = s.out[0], OH = s.out[1], OW = s.out[2];
  const int64_t ip = s.in_plane(), planes = s.batch * s.channels;
  if (s.out_plane() == 1 && s.adaptive) {
    // Global average pooling (a network's head): one sum per plane.
    parallel_for(0, planes, grain_for(ip), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) dst[p] = T(sum_run<A>(src + p * ip, ip) / A(ip));
    });
    return;
  }
  const DimWindows &wd = win.d[0], &wh = win.d[1], &ww = win.d[2];
  const int64_t rows = planes * OD * OH;
  const int64_t kd = s.adaptive ? (s.in[0] + OD - 1) / OD + 1 : s.kernel[0];
  const int64_t kh = s.adaptive ? (H + OH - 1) / OH + 1 : s.kernel[1];
  parallel_for(0, rows, grain_for(W * kd * kh + OW), [&](int64_t b, int64_t e) {
    std::vector<A> col(static_cast<size_t>(W));
    for (int64_t row = b; row < e; ++row) {
      const int64_t oh = row % OH, od = row / OH % OD, p = row / (OH * OD);
      const T* plane = src + p * ip;
      T* o = dst + row * OW;
      const int64_t nd = wd.count[size_t(od)], nh = wh.count[size_t(oh)];
      std::fill(col.begin(), col.end(), A(0));
      for (int64_t a = 0; a < nd; ++a) {
        const int64_t id = wd.first[size_t(od)] + a * wd.step;
        for (int64_t c = 0; c < nh; ++c) {
          const T* r = plane + (id * H + wh.first[size_t(oh)] + c * wh.step) * W;
          for (int64_t w = 0; w < W; ++w) col[size_t(w)] += A(r[w]);
        }
      }
      const int64_t dh = wd.div[size_t(od)] * wh.div[size_t(oh)];
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t n = ww.count[size_t(ow)];
        if (nd == 0 || nh == 0 || n == 0) {
          o[ow] = T(0);
          continue;
        }
        A sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += col[size_t(ww.first[size_t(ow)] + k * ww.step)];
        const int64_t div = avg.divisor != 0 ? avg.divisor : dh * ww.div[size_t(ow)];
        o[ow] = T(sum / A(div));
      }
    }
  });
}

// One output row (n, od, oh) of an NHWC average pool: each position's window summed along the
// C channels (in the output itself for float and double, in acc otherwise), then divided.
template <class T>
[[gnu::always_inline]] inline void avg_row_nhwc(const T* x,
                                                T* out,
                                                const PoolShape& s,
                                                const Windows& win,
                                                AvgDivisor avg,
                                                int64_t od,
                                                int64_t oh,
                                                opmath_t<T>* acc) {
  using A = opmath_t<T>;
  constexpr bool direct = std::is_same_v<T, A>;
  const int64_t C = s.channels, H = s.in[1], W = s.in[2], OW = s.out[2];
  const DimWindows &wd = win.d[0], &wh = win.d[1], &ww = win.d[2];
  const int64_t nd = wd.count[size_t(od)], nh = wh.count[size_t(oh)];
  for (int64_t ow = 0; ow < OW; ++ow) {
    T* o = out + ow * C;
    const int64_t nw = ww.count[size_t(ow)];
    A* __restrict m = direct ? reinterpret_cast<A*>(o) : acc;
    std::fill(m, m + C, A(0));
    for (int64_t a = 0; a < nd; ++a) {
      const int64_t id = wd.first[size_t(od)] + a * wd.step;
      for (int64_t b = 0; b < nh; ++b) {
        const int64_t r = (id * H + wh.first[size_t(oh)] + b * wh.step) * W;
        for (int64_t k = 0; k < nw; ++k) {
          const T* __restrict v = x + (r + ww.first[size_t(ow)] + k * ww.step) * C;
          for (int64_t c = 0; c < C; ++c) m[c] += A(v[c]);
        }
      }
    }
    if (nd == 0 || nh == 0 || nw == 0) {
      std::fill(o, o + C, T(0));
      continue;
    }
    const int64_t div = avg.divisor != 0
                            ? avg.divisor
                            : wd.div[size_t(od)] * wh.div[size_t(oh)] * ww.div[size_t(ow)];
    const A d = A(div);
    for (int64_t c = 0; c < C; ++c) o[c] = T(m[c] / d);
  }
}

EMBER_POOL_CLONES void avg_row_nhwc_f32(const float* x,
                                        float* out,
                                        const PoolShape& s,
                                        const Windows& win,
                                        AvgDivisor avg,
                                        int64_t od,
                                        int64_t oh,
                                        float* acc) {
  avg_row_nhwc<float>(x, out, s, win, avg, od, oh, acc);
}

EMBER_POOL_CLONES void avg_row_nhwc_f64(const double* x,
                                        double* out,
                                        const PoolShape& s,
                                        const Windows& win,
                                        AvgDivisor avg,
                                        int64_t od,
                                        int64_t oh,
                                        double* acc) {
  avg_row_nhwc<double>(x, out, s, win, avg, od, oh, acc);
}

template <class T>
void avg_pool_nhwc(const Tensor& out, const Tensor& in, const PoolShape& s, AvgDivisor avg) {
  using A = opmath_t<T>;
  const Windows win(s, avg);
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int64_t C = s.channels, OD = s.out[0], OH = s.out[1], OW = s.out[2];
  const int64_t rows = s.batch * OD * OH;
  const int64_t window =
      s.adaptive ? s.in_plane() / s.out_plane() + 1 : s.kernel[0] * s.kernel[1] * s.kernel[2];
  parallel_for(0, rows, grain_for(OW * C * window), [&](int64_t b, int64_t e) {
    std::vector<A> acc(static_cast<size_t>(C));
    for (int64_t row = b; row < e; ++row) {
      const int64_t oh = row % OH, od = row / OH % OD, n = row / (OH * OD);
      const T* x = src + n * s.in_plane() * C;
      T* o = dst + row * OW * C;
      if constexpr (std::is_same_v<T, float>) {
        avg_row_nhwc_f32(x, o, s, win, avg, od, oh, acc.data());
      } else if constexpr (std::is_same_v<T, double>) {
        avg_row_nhwc_f64(x, o, s, win, avg, od, oh, acc.data());
      } else {
        avg_row_nhwc<T>(x, o, s, win, avg, od, oh, acc.data());
      }
    }
  });
}

// ---- average pool backward
// ------------------------------------------------------------------------

template <class T>
void avg_pool_backward_impl(const Tensor& grad_in,
                            const Tensor& grad_out,
                            const PoolShape& s,
                            AvgDivisor avg) {
  using A = opmath_t<T>;
  const Windows win(s, avg);
  T* gi = static_cast<T*>(grad_in.data_ptr());
  const T* go = static_cast<const T*>(grad_out.data_ptr());
  const int64_t C = s.channels, H = s.in[1], W = s.in[2];
  const int64_t OD = s.out[0], OH = s.out[1], OW = s.out[2];
  const int64_t ip = s.in_plane(), op = s.out_plane();
  const DimWindows &wd = win.d[0], &wh = win.d[1], &ww = win.d[2];
  // Calls f(o, div, position) for every input position of every output's window, in order.
  auto each = [&](auto&& f) {
    for (int64_t od = 0; od < OD; ++od)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t o = (od * OH + oh) * OW + ow;
          const int64_t div = avg.divisor != 0
                                  ? avg.divisor
                                  : wd.div[size_t(od)] * wh.div[size_t(oh)] * ww.div[size_t(ow)];
          for (int64_t a = 0; a < wd.count[size_t(od)]; ++a)
            for (int64_t b = 0; b < wh.count[size_t(oh)]; ++b)
              for (int64_t k = 0; k < ww.count[size_t(ow)]; ++k) {
                const int64_t id = wd.first[size_t(od)] + a * wd.step;
                const int64_t ih = wh.first[size_t(oh)] + b * wh.step;
                f(o, div, (id * H + ih) * W + ww.first[size_t(ow)] + k * ww.step);
              }
        }
  };
  const int64_t window = s.adaptive ? ip / op + 1 : s.kernel[0] * s.kernel[1] * s.kernel[2];
  if (!s.channels_last) {
    parallel_for(0, s.batch * C, grain_for(ip + op * window), [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        T* g = gi + p * ip;
        const T* src = go + p * op;
        std::fill(g, g + ip, T(0));
        each([&](int64_t o, int64_t div, int64_t pos) {
          g[pos] = T(A(g[pos]) + A(src[o]) / A(div));
        });
      }
    });
    return;
  }
  const int64_t cb = channel_block(s), blocks = (C + cb - 1) / cb;
  parallel_for(0, s.batch * blocks, grain_for((ip + op * window) * cb), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / blocks, c0 = item % blocks * cb, c1 = std::min(C, c0 + cb);
      T* g = gi + n * ip * C;
      const T* src = go + n * op * C;
      for (int64_t pos = 0; pos < ip; ++pos) std::fill(g + pos * C + c0, g + pos * C + c1, T(0));
      each([&](int64_t o, int64_t div, int64_t pos) {
        const A inv = A(div);
        T* gp = g + pos * C;
        const T* sp = src + o * C;
        for (int64_t c = c0; c < c1; ++c) gp[c] = T(A(gp[c]) + A(sp[c]) / inv);
      });
    }
  });
}

}  // namespace

void avg_pool_kernel(const Tensor& out, const Tensor& in, const PoolShape& s, AvgDivisor avg) {
  if (out.numel() == 0) return;
  dispatch_dtype<kFloatingTypes>(in.dtype(), "avg_pool", [&]<class T>() {
    if (s.channels_last) {
      avg_pool_nhwc<T>(out, in, s, avg);
    } else {
      avg_pool_nchw<T>(out, in, s, avg);
    }
  });
}

void avg_pool_backward_kernel(const Tensor& grad_in,
                              const Tensor& grad_out,
                              const PoolShape& s,
                              AvgDivisor avg) {
  if (grad_in.numel() == 0) return;
  dispatch_dtype<kFloatingTypes>(grad_in.dtype(), "avg_pool_backward", [&]<class T>() {
    avg_pool_backward_impl<T>(grad_in, grad_out, s, avg);
  });
}

}  // namespace ember::cpu
