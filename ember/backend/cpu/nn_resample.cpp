// CPU kernels of the resampling ops: interpolate (separable taps, see InterpPlan) and
// im2col/col2im (unfold/fold). Layouts as in nn_pool.cpp: NCHW work goes one output row (or
// plane) at a time, NHWC work runs along the channels. Backward kernels give each (n, c) plane
// (or (n, channel block)) to one thread, so sums do not depend on the thread count.
#include <algorithm>
#include <vector>

#include "ember/backend/cpu/nn_pool_common.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_nn_resample.h"

namespace ember::cpu {
namespace {

using pool::channel_block;
using pool::grain_for;

// The plan's taps of one dim, as the op-math type.
template <class A>
struct Taps {
  int64_t n = 1;
  const int64_t* index = nullptr;
  std::vector<A> weight;
  Taps(const InterpPlan& p, int d) : n(p.taps[d]), index(p.index[d].data()) {
    weight.assign(p.weight[d].begin(), p.weight[d].end());
  }
};

bool nearest_plan(const InterpPlan& p) {
  return p.taps[0] == 1 && p.taps[1] == 1 && p.taps[2] == 1;
}

template <class T>
void interpolate_impl(const Tensor& out, const Tensor& in, const InterpPlan& p) {
  using A = opmath_t<T>;
  const PoolShape& s = p.shape;
  const Taps<A> td(p, 0), th(p, 1), tw(p, 2);
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int64_t H = s.in[1], W = s.in[2], OD = s.out[0], OH = s.out[1], OW = s.out[2];
  const int64_t C = s.channels, ip = s.in_plane();
  const int64_t taps = td.n * th.n * tw.n;
  const bool nearest = nearest_plan(p);
  if (!s.channels_last) {
    const int64_t rows = s.batch * C * OD * OH;
    parallel_for(0, rows, grain_for(OW * taps), [&](int64_t b, int64_t e) {
      std::vector<A> acc(static_cast<size_t>(OW));
      for (int64_t row = b; row < e; ++row) {
        const int64_t oh = row % OH, od = row / OH % OD, pl = row / (OH * OD);
        const T* plane = src + pl * ip;
        T* o = dst + row * OW;
        if (nearest) {
          // One tap of weight 1: a copy (keeps -0.0 and infinities as they are).
          const T* r = plane + (td.index[od] * H + th.index[oh]) * W;
          for (int64_t ow = 0; ow < OW; ++ow) o[ow] = r[tw.index[ow]];
          continue;
        }
        std::fill(acc.begin(), acc.end(), A(0));
        for (int64_t a = 0; a < td.n; ++a)
          for (int64_t c = 0; c < th.n; ++c) {
            const A wdh = td.weight[size_t(od * td.n + a)] * th.weight[size_t(oh * th.n + c)];
            const T* r = plane + (td.index[od * td.n + a] * H + th.index[oh * th.n + c]) * W;
            for (int64_t ow = 0; ow < OW; ++ow) {
              A sum = 0;
              for (int64_t t = 0; t < tw.n; ++t)
                sum += tw.weight[size_t(ow * tw.n + t)] * A(r[tw.index[ow * tw.n + t]]);
              acc[size_t(ow)] += wdh * sum;
            }
          }
        for (int64_t ow = 0; ow < OW; ++ow) o[ow] = T(acc[size_t(ow)]);
      }
    });
    return;
  }
  const int64_t rows = s.batch * OD * OH;
  parallel_for(0, rows, grain_for(OW * C * taps), [&](int64_t b, int64_t e) {
    std::vector<A> acc(static_cast<size_t>(C));
    for (int64_t row = b; row < e; ++row) {
      const int64_t oh = row % OH, od = row / OH % OD, n = row / (OH * OD);
      const T* x = src + n * ip * C;
      for (int64_t ow = 0; ow < OW; ++ow) {
        T* o = dst + (row * OW + ow) * C;
        if (nearest) {
          const T* v = x + ((td.index[od] * H + th.index[oh]) * W + tw.index[ow]) * C;
          std::copy(v, v + C, o);
          continue;
        }
        std::fill(acc.begin(), acc.end(), A(0));
        for (int64_t a = 0; a < td.n; ++a)
          for (int64_t c2 = 0; c2 < th.n; ++c2)
            for (int64_t t = 0; t < tw.n; ++t) {
              const A w = td.weight[size_t(od * td.n + a)] * th.weight[size_t(oh * th.n + c2)] *
                          tw.weight[size_t(ow * tw.n + t)];
              const T* v = x + ((td.index[od * td.n + a] * H + th.index[oh * th.n + c2]) * W +
                                tw.index[ow * tw.n + t]) *
                                   C;
              for (int64_t c = 0; c < C; ++c) acc[size_t(c)] += w * A(v[c]);
            }
        for (int64_t c = 0; c < C; ++c) o[c] = T(acc[size_t(c)]);
      }
    }
  });
}

template <class T>
void interpolate_backward_impl(const Tensor& grad_in, const Tensor& grad_out, const InterpPlan& p) {
  using A = opmath_t<T>;
  const PoolShape& s = p.shape;
  const Taps<A> td(p, 0), th(p, 1), tw(p, 2);
  T* gi = static_cast<T*>(grad_in.data_ptr());
  const T* go = static_cast<const T*>(grad_out.data_ptr());
  const int64_t H = s.in[1], W = s.in[2], OD = s.out[0], OH = s.out[1], OW = s.out[2];
  const int64_t C = s.channels, ip = s.in_plane(), op = s.out_plane();
  const int64_t taps = td.n * th.n * tw.n;
  // Calls f(o, weight, position) for every tap of every output, in order.
  auto each = [&](auto&& f) {
    for (int64_t od = 0; od < OD; ++od)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t o = (od * OH + oh) * OW + ow;
          for (int64_t a = 0; a < td.n; ++a)
            for (int64_t c = 0; c < th.n; ++c) {
              const A wdh = td.weight[size_t(od * td.n + a)] * th.weight[size_t(oh * th.n + c)];
              const int64_t r = (td.index[od * td.n + a] * H + th.index[oh * th.n + c]) * W;
              for (int64_t t = 0; t < tw.n; ++t)
                f(o, wdh * tw.weight[size_t(ow * tw.n + t)], r + tw.index[ow * tw.n + t]);
            }
        }
  };
  if (!s.channels_last) {
    parallel_for(0, s.batch * C, grain_for(ip + op * taps), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        T* g = gi + pl * ip;
        const T* src = go + pl * op;
        std::fill(g, g + ip, T(0));
        each([&](int64_t o, A w, int64_t pos) { g[pos] = T(A(g[pos]) + w * A(src[o])); });
      }
    });
    return;
  }
  const int64_t cb = channel_block(s), blocks = (C + cb - 1) / cb;
  parallel_for(0, s.batch * blocks, grain_for((ip + op * taps) * cb), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / blocks, c0 = item % blocks * cb, c1 = std::min(C, c0 + cb);
      T* g = gi + n * ip * C;
      const T* src = go + n * op * C;
      for (int64_t pos = 0; pos < ip; ++pos) std::fill(g + pos * C + c0, g + pos * C + c1, T(0));
      each([&](int64_t o, A w, int64_t pos) {
        T* gp = g + pos * C;
        const T* sp = src + o * C;
        for (int64_t c = c0; c < c1; ++c) gp[c] = T(A(gp[c]) + w * A(sp[c]));
      });
    }
  });
}

// ---- im2col / col2im ---------------------------------------------------------------------------

template <class T>
void im2col_impl(const Tensor& out, const Tensor& in, const PoolShape& s) {
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int64_t H = s.in[1], W = s.in[2], OH = s.out[1], OW = s.out[2];
  const int64_t KH = s.kernel[1], KW = s.kernel[2];
  const int64_t rows = s.batch * s.channels * KH * KW;
  parallel_for(0, rows, grain_for(OH * OW), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t j = row % KW, i = row / KW % KH, plane = row / (KW * KH);
      const T* x = src + plane * H * W;
      T* o = dst + row * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh, o += OW) {
        const int64_t ih = oh * s.stride[1] - s.pad[1] + i * s.dilation[1];
        if (ih < 0 || ih >= H) {
          std::fill(o, o + OW, T(0));
          continue;
        }
        const T* r = x + ih * W;
        const int64_t w0 = j * s.dilation[2] - s.pad[2], sw = s.stride[2];
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t iw = ow * sw + w0;
          o[ow] = (iw >= 0 && iw < W) ? r[iw] : T(0);
        }
      }
    }
  });
}

template <class T>
void col2im_impl(const Tensor& out, const Tensor& cols, const PoolShape& s) {
  using A = opmath_t<T>;
  const T* src = static_cast<const T*>(cols.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  const int64_t H = s.in[1], W = s.in[2], OH = s.out[1], OW = s.out[2];
  const int64_t KH = s.kernel[1], KW = s.kernel[2];
  const int64_t planes = s.batch * s.channels;
  parallel_for(0, planes, grain_for(KH * KW * OH * OW), [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      T* x = dst + plane * H * W;
      std::fill(x, x + H * W, T(0));
      for (int64_t i = 0; i < KH; ++i)
        for (int64_t j = 0; j < KW; ++j) {
          const T* c = src + ((plane * KH + i) * KW + j) * OH * OW;
          for (int64_t oh = 0; oh < OH; ++oh, c += OW) {
            const int64_t ih = oh * s.stride[1] - s.pad[1] + i * s.dilation[1];
            if (ih < 0 || ih >= H) continue;
            T* r = x + ih * W;
            const int64_t w0 = j * s.dilation[2] - s.pad[2], sw = s.stride[2];
            for (int64_t ow = 0; ow < OW; ++ow) {
              const int64_t iw = ow * sw + w0;
              if (iw >= 0 && iw < W) r[iw] = T(A(r[iw]) + A(c[ow]));
            }
          }
        }
    }
  });
}

void interpolate_kernel(const Tensor& out, const Tensor& in, const InterpPlan& plan) {
  if (out.numel() == 0) return;
  dispatch_dtype<kFloatingTypes>(in.dtype(), "interpolate",
                                 [&]<class T>() { interpolate_impl<T>(out, in, plan); });
}

void interpolate_backward_kernel(const Tensor& grad_in,
                                 const Tensor& grad_out,
                                 const InterpPlan& plan) {
  if (grad_in.numel() == 0) return;
  dispatch_dtype<kFloatingTypes>(grad_in.dtype(), "interpolate_backward", [&]<class T>() {
    interpolate_backward_impl<T>(grad_in, grad_out, plan);
  });
}

void im2col_kernel(const Tensor& out, const Tensor& in, const PoolShape& shape) {
  if (out.numel() == 0) return;
  dispatch_dtype<kFloatingTypes>(in.dtype(), "unfold",
                                 [&]<class T>() { im2col_impl<T>(out, in, shape); });
}

void col2im_kernel(const Tensor& out, const Tensor& cols, const PoolShape& shape) {
  if (out.numel() == 0) return;
  dispatch_dtype<kFloatingTypes>(cols.dtype(), "fold",
                                 [&]<class T>() { col2im_impl<T>(out, cols, shape); });
}

const ResampleKernels kResampleKernels{
    .interpolate = &interpolate_kernel,
    .interpolate_backward = &interpolate_backward_kernel,
    .im2col = &im2col_kernel,
    .col2im = &col2im_kernel,
};

}  // namespace

void register_nn_resample(KernelTable& t) { t.nn_resample = &kResampleKernels; }

}  // namespace ember::cpu
