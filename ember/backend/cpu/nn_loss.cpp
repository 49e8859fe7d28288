// CPU kernels of the losses: the fused cross entropy.
//
// Cross entropy: one thread per line (the C logits of one sample), two passes over the line (max,
// then sum of exp with the target's and smoothing terms) and nothing stored but the per-line
// logsumexp; the backward recomputes exp(x - lse) in the same pass that writes the gradient, so
// no log-probabilities or one-hot rows are ever materialised.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/nn_loss_simd.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/cpu/simd.h"
#include "ember/backend/kernels_nn_loss.h"

namespace ember::cpu {
namespace {

// ---- targets
// -------------------------------------------------------------------------------------

bool check_targets_kernel(const Tensor& target,
                          int64_t classes,
                          int64_t ignore_index,
                          int64_t* bad) {
  const int64_t* t = static_cast<const int64_t*>(target.data_ptr());
  for (int64_t i = 0, n = target.numel(); i < n; ++i) {
    if (t[i] != ignore_index && (t[i] < 0 || t[i] >= classes)) {
      *bad = t[i];
      return false;
    }
  }
  return true;
}

// ---- cross entropy
// -------------------------------------------------------------------------------

// Strides of the [N, C, S] logits and the [N, S] per-line tensors, in elements.
struct Lines {
  int64_t n, c, s;     // sizes
  int64_t xn, xc, xs;  // x's strides
  explicit Lines(const Tensor& x)
      : n(x.sizes()[0]),
        c(x.sizes()[1]),
        s(x.sizes()[2]),
        xn(x.strides()[0]),
        xc(x.strides()[1]),
        xs(x.strides()[2]) {}
  int64_t count() const { return n * s; }
  int64_t x_offset(int64_t line) const { return (line / s) * xn + (line % s) * xs; }
};

// One line's logsumexp, sum(w * x) (when `smooth`) in double, through the vector loops for
// finite lines and a scalar loop with PyTorch's NaN and inf results otherwise.
template <class T>
void line_stats(const loss_simd::Table& tab,
                const T* p,
                int64_t c,
                const T* w,
                bool smooth,
                double* lse,
                double* wsum) {
  bool special = false;
  const double m = c ? tab.max(p, c, &special) : -std::numeric_limits<double>::infinity();
  if (!special && c > 0) {
    *lse = m + std::log(tab.sum_exp(p, c, m));
    *wsum = smooth ? tab.sum(p, w, c) : 0.0;
    return;
  }
  // NaN anywhere gives NaN; an all -inf line gives -inf - -inf = NaN, as log_softmax does.
  double mm = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < c; ++i) {
    const double v = double(p[i]);
    mm = (v > mm || std::isnan(v)) ? v : mm;
  }
  double s = 0, sx = 0;
  for (int64_t i = 0; i < c; ++i) {
    s += std::exp(double(p[i]) - mm);
    if (smooth) sx += (w ? double(w[i]) : 1.0) * double(p[i]);
  }
  *lse = mm + std::log(s);
  *wsum = sx;
}

template <class T>
void cross_entropy_forward_impl(const Tensor& loss,
                                const Tensor& lse,
                                const Tensor& wt,
                                const Tensor& x,
                                const Tensor& target,
                                const Tensor& weight,
                                int64_t ignore_index,
                                double eps) {
  const Lines L(x);
  const loss_simd::Table& tab = loss_simd::tables()[std::is_same_v<T, float> ? 0 : 1];
  const T* xp = static_cast<const T*>(x.data_ptr());
  const int64_t* tp = static_cast<const int64_t*>(target.data_ptr());
  const T* w = weight.defined() ? static_cast<const T*>(weight.data_ptr()) : nullptr;
  T* lossp = static_cast<T*>(loss.data_ptr());
  T* lsep = static_cast<T*>(lse.data_ptr());
  T* wtp = static_cast<T*>(wt.data_ptr());
  double wtotal = double(L.c);
  if (w) {
    wtotal = 0;
    for (int64_t i = 0; i < L.c; ++i) wtotal += double(w[i]);
  }
  const bool smooth = eps > 0;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, L.c));
  parallel_for(0, L.count(), grain, [&](int64_t b, int64_t e) {
    std::vector<T> buf(L.xc == 1 ? 0 : size_t(L.c));
    for (int64_t l = b; l < e; ++l) {
      const int64_t t = tp[l];
      if (t == ignore_index) {
        lossp[l] = lsep[l] = wtp[l] = T(0);
        continue;
      }
      const T* p = xp + L.x_offset(l);
      if (L.xc != 1) {  // a strided line: gathered once, then the contiguous loops
        for (int64_t i = 0; i < L.c; ++i) buf[size_t(i)] = p[i * L.xc];
        p = buf.data();
      }
      double ls = 0, sx = 0;
      line_stats<T>(tab, p, L.c, w, smooth, &ls, &sx);
      const double wt_t = w ? double(w[t]) : 1.0;
      double v = wt_t * (ls - double(p[t]));
      if (smooth) v = (1 - eps) * v + eps / double(L.c) * (wtotal * ls - sx);
      lossp[l] = T(v);
      lsep[l] = T(ls);
      wtp[l] = T(wt_t);
    }
  });
}

template <class T>
void cross_entropy_backward_impl(const Tensor& grad_x,
                                 const Tensor& g,
                                 const Tensor& x,
                                 const Tensor& target,
                                 const Tensor& weight,
                                 const Tensor& lse,
                                 int64_t ignore_index,
                                 double eps) {
  const Lines L(x), G(grad_x);
  const loss_simd::Table& tab = loss_simd::tables()[std::is_same_v<T, float> ? 0 : 1];
  const T* xp = static_cast<const T*>(x.data_ptr());
  T* gxp = static_cast<T*>(grad_x.data_ptr());
  const T* gp = static_cast<const T*>(g.data_ptr());
  const int64_t gn = g.strides()[0], gs = g.strides()[1];
  const int64_t* tp = static_cast<const int64_t*>(target.data_ptr());
  const T* w = weight.defined() ? static_cast<const T*>(weight.data_ptr()) : nullptr;
  const T* lsep = static_cast<const T*>(lse.data_ptr());
  double wtotal = double(L.c);
  if (w) {
    wtotal = 0;
    for (int64_t i = 0; i < L.c; ++i) wtotal += double(w[i]);
  }
  const bool contiguous = L.xc == 1 && G.xc == 1;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, L.c));
  parallel_for(0, L.count(), grain, [&](int64_t b, int64_t e) {
    std::vector<T> xbuf(contiguous ? 0 : size_t(L.c)), gbuf(contiguous ? 0 : size_t(L.c));
    for (int64_t l = b; l < e; ++l) {
      const int64_t t = tp[l];
      T* out = gxp + G.x_offset(l);
      if (t == ignore_index) {
        for (int64_t i = 0; i < L.c; ++i) out[i * G.xc] = T(0);
        continue;
      }
      const double gl = double(gp[(l / L.s) * gn + (l % L.s) * gs]);
      const double wt_t = w ? double(w[t]) : 1.0;
      const double a = gl * ((1 - eps) * wt_t + eps * wtotal / double(L.c));
      const double bt = gl * (1 - eps) * wt_t, c = gl * eps / double(L.c);
      const T* p = xp + L.x_offset(l);
      T* o = out;
      if (!contiguous) {
        for (int64_t i = 0; i < L.c; ++i) xbuf[size_t(i)] = p[i * L.xc];
        p = xbuf.data();
        o = gbuf.data();
      }
      tab.grad(p, L.c, double(lsep[l]), a, c, w, o);
      o[t] = T(double(o[t]) - bt);
      if (!contiguous)
        for (int64_t i = 0; i < L.c; ++i) out[i * G.xc] = o[i];
    }
  });
}

void cross_entropy_forward_kernel(const Tensor& loss,
                                  const Tensor& lse,
                                  const Tensor& wt,
                                  const Tensor& x,
                                  const Tensor& target,
                                  const Tensor& weight,
                                  int64_t ignore_index,
                                  double eps) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "cross_entropy", [&]<class T>() {
    cross_entropy_forward_impl<T>(loss, lse, wt, x, target, weight, ignore_index, eps);
  });
}

void cross_entropy_backward_kernel(const Tensor& grad_x,
                                   const Tensor& g,
                                   const Tensor& x,
                                   const Tensor& target,
                                   const Tensor& weight,
                                   const Tensor& lse,
                                   int64_t ignore_index,
                                   double eps) {
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(x.dtype(), "cross_entropy", [&]<class T>() {
    cross_entropy_backward_impl<T>(grad_x, g, x, target, weight, lse, ignore_index, eps);
  });
}

const LossKernels kLossKernels{
    .check_targets = &check_targets_kernel,
    .cross_entropy_forward = &cross_entropy_forward_kernel,
    .cross_entropy_backward = &cross_entropy_backward_kernel,
};

}  // namespace

void register_nn_loss(KernelTable& t) { t.nn_loss = &kLossKernels; }

}  // namespace ember::cpu
