// CPU kernels of the normalisation ops: batch, layer and group norm (forward and backward). The
// inner loops are the vectorised ones of nn_norm_simd.h; this file splits tensors
// into contiguous runs, runs them on the thread pool and merges the per-run sums.
//
// Note [Deterministic norm statistics]
// Per-channel (per-row, per-group) sums are computed per piece: a run of at most kChunk
// elements of one plane, or a block of rows of at most kBlock elements (channels-last data). The
// pieces depend on the shape only; each piece's mean and squared deviations are computed in
// cache by two passes, and the pieces are merged in piece order in double: the mean is the
// count-weighted mean of the pieces' means, and m2 = sum(m2_b + n_b * (mean_b - mean)^2) (the
// pieces' own deviations plus their means' spread; runs of one row or group merge one at a time
// with Chan's update, Moments below).
// Threads only decide who computes which piece, so the results are the same on any thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/nn_norm_simd.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_nn_norm.h"
#include "ember/core/allocator.h"

namespace ember::cpu {
namespace {

constexpr int64_t kChunk = 16384;  // elements of one planar run (64 KiB of float32)
// Elements of one block of rows (256 KiB of float32: fits L2). Each block leaves C partial
// sums to merge, so wide rows (C = 256) want blocks of many rows.
constexpr int64_t kBlock = 65536;
constexpr int64_t kGrain = 32768;  // elements of work per task

// Moments (count, mean, sum of squared deviations) of consecutive pieces, merged in order
// (Chan, Golub and LeVeque).
struct Moments {
  double n = 0, mean = 0, m2 = 0;
  void add(double nb, double mb, double qb) {
    if (nb == 0) return;
    const double nn = n + nb, delta = mb - mean;
    mean += delta * nb / nn;
    m2 += qb + delta * delta * n * nb / nn;
    n = nn;
  }
};

// Scratch memory for per-piece sums, from the caching allocator: a large std::vector would come
// from fresh pages (mmap) on every call and pay their page faults.
template <class T>
class Scratch {
 public:
  explicit Scratch(size_t n, T fill = T(0))
      : n_(n), p_(static_cast<T*>(cpu_allocator().allocate(std::max<size_t>(n, 1) * sizeof(T)))) {
    std::fill(p_, p_ + n_, fill);
  }
  ~Scratch() { cpu_allocator().deallocate(p_, std::max<size_t>(n_, 1) * sizeof(T)); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T* data() { return p_; }
  T& operator[](size_t i) { return p_[i]; }

 private:
  size_t n_;
  T* p_;
};

template <class T>
T* ptr(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

// The moments of n contiguous values, in runs of kChunk; `next` (or null) is prefetched at the end.
template <class T>
Moments chunked_moments(const T* x, int64_t n, const T* next) {
  const auto& L = norm_simd::loops<T>();
  Moments m;
  for (int64_t s = 0; s < n; s += kChunk) {
    const int64_t len = std::min(kChunk, n - s);
    double mu, q;
    L.moments(x + s, len, &mu, &q, s + kChunk < n ? x + s + kChunk : next);
    m.add(double(len), mu, q);
  }
  return m;
}

// sum(g) and sum(g * (x - mean)) of n contiguous values, in runs of kChunk.
template <class T>
void chunked_dot_sums(const T* g, const T* x, int64_t n, T mean, double* sg, double* sgx) {
  const auto& L = norm_simd::loops<T>();
  double a = 0, b = 0;
  for (int64_t s = 0; s < n; s += kChunk) {
    double pa, pb;
    L.dot_sums(g + s, x + s, std::min(kChunk, n - s), mean, &pa, &pb);
    a += pa;
    b += pb;
  }
  *sg = a;
  *sgx = b;
}

// ---- batch norm ---------------------------------------------------------------------------------

// x as (N, C, S): planar (each (n, c) plane of S contiguous values) or rows (M = N * S rows of C
// contiguous values: channels-last data, and any input with S = 1).
struct Geometry {
  int64_t N = 0, C = 0, S = 1, M = 0;
  bool rows = false;
  int64_t chunks = 1;  // planar: runs per plane
  int64_t block = 1;   // rows: rows per block
  int64_t blocks = 0;  // rows: number of blocks
};

Geometry geometry(const Tensor& x) {
  Geometry g;
  g.N = x.sizes()[0];
  g.C = x.sizes()[1];
  for (int64_t d = 2; d < x.dim(); ++d) g.S *= x.sizes()[d];
  g.M = g.N * g.S;
  g.rows = g.S == 1 || !x.is_contiguous();
  g.chunks = std::max<int64_t>(1, (g.S + kChunk - 1) / kChunk);
  g.block = std::max<int64_t>(1, kBlock / std::max<int64_t>(1, g.C));
  g.blocks = (g.M + g.block - 1) / g.block;
  return g;
}

// Per-channel mean and biased variance (Note [Deterministic norm statistics]).
template <class T>
void bn_stats(const Geometry& g, const T* x, std::vector<double>& mean, std::vector<double>& var) {
  const auto& L = norm_simd::loops<T>();
  const int64_t C = g.C;
  const size_t Cs = static_cast<size_t>(C);
  if (g.rows) {
    Scratch<double> pm(static_cast<size_t>(g.blocks * C)), pq(static_cast<size_t>(g.blocks * C));
    parallel_for(0, g.blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t r0 = b * g.block, rows = std::min(g.block, g.M - r0);
        const T* nxt = b + 1 < b1 && rows == g.block ? x + (r0 + rows) * C : nullptr;
        L.rows_moments(x + r0 * C, rows, C, pm.data() + b * C, pq.data() + b * C, nxt);
      }
    });
    // The blocks merged per channel: mean = sum(n_b * mean_b) / M, then
    // m2 = sum(m2_b + n_b * (mean_b - mean)^2); blocks in order, channels innermost.
    std::fill(mean.begin(), mean.end(), 0.0);
    std::fill(var.begin(), var.end(), 0.0);
    for (int64_t b = 0; b < g.blocks; ++b) {
      const double nb = double(std::min(g.block, g.M - b * g.block));
      const double* m = pm.data() + b * C;
      for (size_t c = 0; c < Cs; ++c) mean[c] += nb * m[c];
    }
    for (size_t c = 0; c < Cs; ++c) mean[c] /= double(g.M);
    for (int64_t b = 0; b < g.blocks; ++b) {
      const double nb = double(std::min(g.block, g.M - b * g.block));
      const double* m = pm.data() + b * C;
      const double* q = pq.data() + b * C;
      for (size_t c = 0; c < Cs; ++c) var[c] += q[c] + nb * (m[c] - mean[c]) * (m[c] - mean[c]);
    }
  } else {
    // Unit u = (c * N + n) * chunks + k: run k of plane (n, c); a channel's units are adjacent.
    const int64_t per_c = g.N * g.chunks, units = C * per_c;
    Scratch<double> pm(static_cast<size_t>(units)), pq(static_cast<size_t>(units));
    const int64_t run = std::min(g.S, kChunk);
    auto len = [&](int64_t u) { return std::min(kChunk, g.S - (u % g.chunks) * kChunk); };
    auto data = [&](int64_t u) {
      const int64_t c = u / per_c, n = (u % per_c) / g.chunks;
      return x + (n * C + c) * g.S + (u % g.chunks) * kChunk;
    };
    parallel_for(0, units, std::max<int64_t>(1, kGrain / run), [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        // The next unit's run is prefetched while this one is in cache.
        L.moments(data(u), len(u), &pm[size_t(u)], &pq[size_t(u)],
                  u + 1 < u1 ? data(u + 1) : nullptr);
      }
    });
    for (size_t c = 0; c < Cs; ++c) {
      const double* m = pm.data() + c * size_t(per_c);
      const double* q = pq.data() + c * size_t(per_c);
      double mu = 0, m2 = 0;
      for (int64_t j = 0; j < per_c; ++j) mu += double(len(j)) * m[j];
      mu /= double(g.M);
      for (int64_t j = 0; j < per_c; ++j) m2 += q[j] + double(len(j)) * (m[j] - mu) * (m[j] - mu);
      mean[c] = mu;
      var[c] = m2;
    }
  }
  for (size_t c = 0; c < Cs; ++c) var[c] /= double(g.M);
}

// out = x * scale[c] + shift[c].
template <class T>
void bn_apply(
    const Geometry& g, const T* x, T* y, const std::vector<T>& scale, const std::vector<T>& shift) {
  const auto& L = norm_simd::loops<T>();
  if (g.rows) {
    parallel_for(0, g.M, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, g.C)),
                 [&](int64_t r0, int64_t r1) {
                   L.rows_affine(x + r0 * g.C, y + r0 * g.C, r1 - r0, g.C, scale.data(),
                                 shift.data());
                 });
    return;
  }
  parallel_for(0, g.N * g.C, std::max<int64_t>(1, kGrain / g.S), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t c = p % g.C;
      L.affine(x + p * g.S, y + p * g.S, g.S, scale[size_t(c)], shift[size_t(c)]);
    }
  });
}

template <class T>
void bn_scale_shift(int64_t C,
                    const std::vector<double>& mean,
                    const std::vector<double>& invstd,
                    const T* w,
                    const T* b,
                    std::vector<T>& scale,
                    std::vector<T>& shift) {
  for (int64_t c = 0; c < C; ++c) {
    const double s = invstd[size_t(c)] * (w ? double(w[c]) : 1.0);
    scale[size_t(c)] = T(s);
    shift[size_t(c)] = T((b ? double(b[c]) : 0.0) - mean[size_t(c)] * s);
  }
}

void batch_norm_train_kernel(const Tensor& out,
                             const Tensor& save_mean,
                             const Tensor& save_invstd,
                             const Tensor& x,
                             const Tensor& weight,
                             const Tensor& bias,
                             const Tensor& running_mean,
                             const Tensor& running_var,
                             double momentum,
                             double eps) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "batch_norm", [&]<class T>() {
    const Geometry g = geometry(x);
    const size_t C = size_t(g.C);
    std::vector<double> mean(C, 0.0), var(C, 0.0), invstd(C, 0.0);
    T* sm = ptr<T>(save_mean);
    T* si = ptr<T>(save_invstd);
    if (g.M == 0) {  // nothing to normalise: no statistics, running stats unchanged
      for (size_t c = 0; c < C; ++c) sm[c] = si[c] = T(0);
      return;
    }
    bn_stats<T>(g, ptr<T>(x), mean, var);
    T* rm = ptr<T>(running_mean);
    T* rv = ptr<T>(running_var);
    // The running variance is unbiased: var * M / (M - 1) (NaN for M = 1, as PyTorch).
    const double unbias = double(g.M) / double(g.M - 1);
    for (size_t c = 0; c < C; ++c) {
      invstd[c] = 1.0 / std::sqrt(var[c] + eps);
      sm[c] = T(mean[c]);
      si[c] = T(invstd[c]);
      if (rm) rm[c] = T((1 - momentum) * double(rm[c]) + momentum * mean[c]);
      if (rv) rv[c] = T((1 - momentum) * double(rv[c]) + momentum * var[c] * unbias);
    }
    std::vector<T> scale(C), shift(C);
    bn_scale_shift<T>(g.C, mean, invstd, ptr<T>(weight), ptr<T>(bias), scale, shift);
    bn_apply<T>(g, ptr<T>(x), ptr<T>(out), scale, shift);
  });
}

void batch_norm_eval_kernel(const Tensor& out,
                            const Tensor& x,
                            const Tensor& mean,
                            const Tensor& var,
                            const Tensor& weight,
                            const Tensor& bias,
                            double eps) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "batch_norm", [&]<class T>() {
    const Geometry g = geometry(x);
    const size_t C = size_t(g.C);
    std::vector<double> m(C), invstd(C);
    const T* pm = ptr<T>(mean);
    const T* pv = ptr<T>(var);
    for (size_t c = 0; c < C; ++c) {
      m[c] = double(pm[c]);
      invstd[c] = 1.0 / std::sqrt(double(pv[c]) + eps);
    }
    std::vector<T> scale(C), shift(C);
    bn_scale_shift<T>(g.C, m, invstd, ptr<T>(weight), ptr<T>(bias), scale, shift);
    if (g.M > 0) bn_apply<T>(g, ptr<T>(x), ptr<T>(out), scale, shift);
  });
}

// Per-channel sum(g) and sum(g * (x - mean)), in the pieces of Note [Deterministic norm
// statistics].
template <class T>
void bn_grad_sums(const Geometry& g,
                  const T* gp,
                  const T* x,
                  const std::vector<T>& mean,
                  std::vector<double>& sg,
                  std::vector<double>& sgx) {
  const auto& L = norm_simd::loops<T>();
  const int64_t C = g.C;
  if (g.rows) {
    Scratch<double> pa(static_cast<size_t>(g.blocks * C)), pb(static_cast<size_t>(g.blocks * C));
    parallel_for(0, g.blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t r0 = b * g.block, rows = std::min(g.block, g.M - r0);
        L.rows_dot_sums(gp + r0 * C, x + r0 * C, rows, C, mean.data(), pa.data() + b * C,
                        pb.data() + b * C);
      }
    });
    for (int64_t b = 0; b < g.blocks; ++b) {
      for (int64_t c = 0; c < C; ++c) {
        sg[size_t(c)] += pa[size_t(b * C + c)];
        sgx[size_t(c)] += pb[size_t(b * C + c)];
      }
    }
    return;
  }
  const int64_t per_c = g.N * g.chunks, units = C * per_c;
  Scratch<double> pa(static_cast<size_t>(units)), pb(static_cast<size_t>(units));
  const int64_t run = std::min(g.S, kChunk);
  parallel_for(0, units, std::max<int64_t>(1, kGrain / run), [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t c = u / per_c, n = (u % per_c) / g.chunks, k = u % g.chunks;
      const int64_t off = (n * C + c) * g.S + k * kChunk;
      L.dot_sums(gp + off, x + off, std::min(kChunk, g.S - k * kChunk), mean[size_t(c)],
                 &pa[size_t(u)], &pb[size_t(u)]);
    }
  });
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t j = 0; j < per_c; ++j) {
      sg[size_t(c)] += pa[size_t(c * per_c + j)];
      sgx[size_t(c)] += pb[size_t(c * per_c + j)];
    }
  }
}

void batch_norm_backward_kernel(const Tensor& grad_input,
                                const Tensor& grad_weight,
                                const Tensor& grad_bias,
                                const Tensor& gout,
                                const Tensor& x,
                                const Tensor& mean,
                                const Tensor& invstd,
                                const Tensor& weight,
                                bool train) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "batch_norm", [&]<class T>() {
    const auto& L = norm_simd::loops<T>();
    const Geometry g = geometry(x);
    const size_t C = size_t(g.C);
    const T* pm = ptr<T>(mean);
    const T* pi = ptr<T>(invstd);
    const T* w = ptr<T>(weight);
    std::vector<T> meanT(pm, pm + C);
    std::vector<double> sg(C, 0.0), sgx(C, 0.0);
    const bool sums =
        grad_weight.defined() || grad_bias.defined() || (grad_input.defined() && train);
    if (sums && g.M > 0) bn_grad_sums<T>(g, ptr<T>(gout), ptr<T>(x), meanT, sg, sgx);
    if (T* dw = ptr<T>(grad_weight))
      for (size_t c = 0; c < C; ++c) dw[c] = T(sgx[c] * double(pi[c]));
    if (T* db = ptr<T>(grad_bias))
      for (size_t c = 0; c < C; ++c) db[c] = T(sg[c]);
    if (!grad_input.defined() || g.M == 0) return;
    // dx = a * g + b * x + c per channel. Training: dx = invstd * w * (g - mean(g) - (x - mean) *
    // invstd^2 * mean(g * (x - mean))); evaluation: the statistics are constants, dx = invstd * w *
    // g.
    std::vector<T> a(C), b(C), cc(C);
    for (size_t c = 0; c < C; ++c) {
      const double is = double(pi[c]), ac = is * (w ? double(w[c]) : 1.0);
      double bc = 0, c0 = 0;
      if (train) {
        bc = -ac * is * is * sgx[c] / double(g.M);
        c0 = -ac * sg[c] / double(g.M) - bc * double(pm[c]);
      }
      a[c] = T(ac);
      b[c] = T(bc);
      cc[c] = T(c0);
    }
    const T* gp = ptr<T>(gout);
    const T* xp = ptr<T>(x);
    T* dx = ptr<T>(grad_input);
    if (g.rows) {
      parallel_for(0, g.M, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, g.C)),
                   [&](int64_t r0, int64_t r1) {
                     L.rows_axpby(gp + r0 * g.C, xp + r0 * g.C, dx + r0 * g.C, r1 - r0, g.C,
                                  a.data(), b.data(), cc.data());
                   });
      return;
    }
    parallel_for(0, g.N * g.C, std::max<int64_t>(1, kGrain / g.S), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const size_t c = size_t(p % g.C);
        L.axpby(gp + p * g.S, xp + p * g.S, dx + p * g.S, g.S, a[c], b[c], cc[c]);
      }
    });
  });
}

// ---- layer norm ---------------------------------------------------------------------------------

void layer_norm_kernel(const Tensor& out,
                       const Tensor& mean,
                       const Tensor& rstd,
                       const Tensor& x,
                       const Tensor& weight,
                       const Tensor& bias,
                       int64_t n,
                       double eps) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "layer_norm", [&]<class T>() {
    const auto& L = norm_simd::loops<T>();
    const int64_t M = n > 0 ? x.numel() / n : 0;
    if (M == 0 || n == 0) {
      T* pm = ptr<T>(mean);
      T* pr = ptr<T>(rstd);
      for (int64_t r = 0; r < M; ++r) pm[r] = T(0), pr[r] = T(1.0 / std::sqrt(eps));
      return;
    }
    const T* xp = ptr<T>(x);
    T* yp = ptr<T>(out);
    T* pm = ptr<T>(mean);
    T* pr = ptr<T>(rstd);
    const T* w = ptr<T>(weight);
    const T* b = ptr<T>(bias);
    parallel_for(0, M, std::max<int64_t>(1, kGrain / n), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const Moments m = chunked_moments(xp + r * n, n, r + 1 < r1 ? xp + (r + 1) * n : nullptr);
        const T mu = T(m.mean), rs = T(1.0 / std::sqrt(m.m2 / double(n) + eps));
        pm[r] = mu;
        pr[r] = rs;
        L.ln_apply(xp + r * n, yp + r * n, n, mu, rs, w, b);
      }
    });
  });
}

void layer_norm_backward_kernel(const Tensor& grad_input,
                                const Tensor& grad_weight,
                                const Tensor& grad_bias,
                                const Tensor& gout,
                                const Tensor& x,
                                const Tensor& mean,
                                const Tensor& rstd,
                                const Tensor& weight,
                                int64_t n) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "layer_norm", [&]<class T>() {
    const auto& L = norm_simd::loops<T>();
    const int64_t M = n > 0 ? x.numel() / n : 0;
    T* dw = ptr<T>(grad_weight);
    T* db = ptr<T>(grad_bias);
    if (M == 0 || n == 0) {
      for (int64_t j = 0; j < n; ++j) {
        if (dw) dw[j] = T(0);
        if (db) db[j] = T(0);
      }
      return;
    }
    const T* gp = ptr<T>(gout);
    const T* xp = ptr<T>(x);
    const T* pm = ptr<T>(mean);
    const T* pr = ptr<T>(rstd);
    const T* w = ptr<T>(weight);
    T* dx = ptr<T>(grad_input);
    // Blocks of rows: each accumulates its own partial dw and db (in T), then the blocks are
    // added in order in double (Note [Deterministic norm statistics]).
    const int64_t block = std::max<int64_t>(1, kBlock / n), blocks = (M + block - 1) / block;
    const bool params = dw || db;
    Scratch<T> pw(params ? static_cast<size_t>(blocks * n) : 0);
    Scratch<T> pb(params ? static_cast<size_t>(blocks * n) : 0);
    parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t blk = b0; blk < b1; ++blk) {
        T* bw = params ? pw.data() + blk * n : nullptr;
        T* bb = params ? pb.data() + blk * n : nullptr;
        for (int64_t r = blk * block; r < std::min(M, (blk + 1) * block); ++r) {
          const T* gr = gp + r * n;
          const T* xr = xp + r * n;
          // dx = rstd * (g*w - mean(g*w) - xhat * mean(g*w*xhat)), xhat = (x - mean) * rstd:
          // dx = rstd * g*w + bc * x + c0.
          double bc = 0, c0 = 0;
          const double rs = double(pr[r]);
          if (dx) {
            double sgw, sgwx;
            L.ln_sums(gr, xr, w, n, pm[r], &sgw, &sgwx);
            bc = -rs * rs * rs * sgwx / double(n);
            c0 = -rs * sgw / double(n) - bc * double(pm[r]);
          }
          const bool more = r + 1 < std::min(M, b1 * block);
          L.ln_backward_row(gr, xr, w, dx ? dx + r * n : nullptr, n, pm[r], pr[r], T(rs), T(bc),
                            T(c0), bw, bb, more ? gr + n : nullptr, more ? xr + n : nullptr);
        }
      }
    });
    if (!params) return;
    // Column sums over the blocks, each task a run of columns read row by row.
    parallel_for(0, n, std::max<int64_t>(1, kGrain / blocks), [&](int64_t j0, int64_t j1) {
      std::vector<double> sw(static_cast<size_t>(j1 - j0), 0.0), sb(sw);
      for (int64_t blk = 0; blk < blocks; ++blk) {
        const T* rw = pw.data() + blk * n;
        const T* rb = pb.data() + blk * n;
        for (int64_t j = j0; j < j1; ++j) {
          sw[size_t(j - j0)] += double(rw[j]);
          sb[size_t(j - j0)] += double(rb[j]);
        }
      }
      for (int64_t j = j0; j < j1; ++j) {
        if (dw) dw[j] = T(sw[size_t(j - j0)]);
        if (db) db[j] = T(sb[size_t(j - j0)]);
      }
    });
  });
}

// ---- group norm ---------------------------------------------------------------------------------

void group_norm_kernel(const Tensor& out,
                       const Tensor& mean,
                       const Tensor& rstd,
                       const Tensor& x,
                       const Tensor& weight,
                       const Tensor& bias,
                       int64_t groups,
                       double eps) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "group_norm", [&]<class T>() {
    const auto& L = norm_simd::loops<T>();
    const int64_t N = x.sizes()[0], C = x.sizes()[1];
    const int64_t S = C > 0 && N > 0 ? x.numel() / (N * C) : 0;
    const int64_t Cg = C / groups, K = Cg * S;
    const T* xp = ptr<T>(x);
    T* yp = ptr<T>(out);
    T* pm = ptr<T>(mean);
    T* pr = ptr<T>(rstd);
    const T* w = ptr<T>(weight);
    const T* b = ptr<T>(bias);
    parallel_for(0, N * groups, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, K)),
                 [&](int64_t u0, int64_t u1) {
                   for (int64_t u = u0; u < u1; ++u) {
                     const Moments m =
                         chunked_moments(xp + u * K, K, u + 1 < u1 ? xp + (u + 1) * K : nullptr);
                     const double mu = K > 0 ? m.mean : 0.0;
                     const double rs = 1.0 / std::sqrt((K > 0 ? m.m2 / double(K) : 0.0) + eps);
                     pm[u] = T(mu);
                     pr[u] = T(rs);
                     for (int64_t k = 0; k < Cg; ++k) {
                       const int64_t c = (u % groups) * Cg + k;
                       const double s = rs * (w ? double(w[c]) : 1.0);
                       const double sh = (b ? double(b[c]) : 0.0) - mu * s;
                       L.affine(xp + (u * Cg + k) * S, yp + (u * Cg + k) * S, S, T(s), T(sh));
                     }
                   }
                 });
  });
}

void group_norm_backward_kernel(const Tensor& grad_input,
                                const Tensor& grad_weight,
                                const Tensor& grad_bias,
                                const Tensor& gout,
                                const Tensor& x,
                                const Tensor& mean,
                                const Tensor& rstd,
                                const Tensor& weight,
                                int64_t groups) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "group_norm", [&]<class T>() {
    const auto& L = norm_simd::loops<T>();
    const int64_t N = x.sizes()[0], C = x.sizes()[1];
    const int64_t S = C > 0 && N > 0 ? x.numel() / (N * C) : 0;
    const int64_t Cg = C / groups, K = Cg * S;
    const T* gp = ptr<T>(gout);
    const T* xp = ptr<T>(x);
    const T* pm = ptr<T>(mean);
    const T* pr = ptr<T>(rstd);
    const T* w = ptr<T>(weight);
    T* dx = ptr<T>(grad_input);
    // Per (n, c): sum(g) and sum(g * (x - mean)); per (n, group) they give dx:
    // dx = rstd * w * g + b * x + c0 with b = -rstd^3 * ds / K, c0 = -rstd * db / K - b * mean,
    // where ds = sum_c w * sum(g * (x - mean)) and db = sum_c w * sum(g) over the group.
    Scratch<double> sg(static_cast<size_t>(N * C)), sgx(static_cast<size_t>(N * C));
    parallel_for(0, N * groups, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, K)),
                 [&](int64_t u0, int64_t u1) {
                   for (int64_t u = u0; u < u1; ++u) {
                     double ds = 0, dbs = 0;
                     for (int64_t k = 0; k < Cg; ++k) {
                       const int64_t p = u * Cg + k, c = (u % groups) * Cg + k;
                       chunked_dot_sums(gp + p * S, xp + p * S, S, pm[u], &sg[size_t(p)],
                                        &sgx[size_t(p)]);
                       const double wc = w ? double(w[c]) : 1.0;
                       ds += wc * sgx[size_t(p)];
                       dbs += wc * sg[size_t(p)];
                     }
                     if (!dx || K == 0) continue;
                     const double rs = double(pr[u]);
                     const double bc = -rs * rs * rs * ds / double(K);
                     const double c0 = -rs * dbs / double(K) - bc * double(pm[u]);
                     for (int64_t k = 0; k < Cg; ++k) {
                       const int64_t p = u * Cg + k, c = (u % groups) * Cg + k;
                       const double ac = rs * (w ? double(w[c]) : 1.0);
                       L.axpby(gp + p * S, xp + p * S, dx + p * S, S, T(ac), T(bc), T(c0));
                     }
                   }
                 });
    T* dw = ptr<T>(grad_weight);
    T* db = ptr<T>(grad_bias);
    for (int64_t c = 0; c < C; ++c) {
      double sw = 0, sb = 0;
      for (int64_t n = 0; n < N; ++n) {
        sw += double(pr[n * groups + c / Cg]) * sgx[size_t(n * C + c)];
        sb += sg[size_t(n * C + c)];
      }
      if (dw) dw[c] = T(sw);
      if (db) db[c] = T(sb);
    }
  });
}

const NormKernels kNormKernels{
    &batch_norm_train_kernel,    &batch_norm_eval_kernel,     &batch_norm_backward_kernel,
    &layer_norm_kernel,          &layer_norm_backward_kernel, &group_norm_kernel,
    &group_norm_backward_kernel,
};

}  // namespace

void register_nn_norm(KernelTable& t) { t.nn_norm = &kNormKernels; }

}  // namespace ember::cpu
