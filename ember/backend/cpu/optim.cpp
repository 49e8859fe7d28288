// CPU kernels of the fused optimizer updates (kernels_optim.h) over lists of tensors. One parallel
// loop covers the concatenated element range of all tensors, so 161 small tensors and one large one
// both keep every thread busy; each element is read and written once (PyTorch's per-op updates pass
// over memory 6 to 10 times). The inner loops are plain loops on restrict pointers with the options
// as template parameters, so GCC vectorises them at -O3; no element depends on another, so any
// split of the range gives the same bits. On x86-64 each loop is also compiled for AVX2 and picked
// at load time (ifunc): on data in cache the SSE2 baseline is bound by sqrt and division, 4 floats
// at a time (an Adam step over 200K floats: ~230 us against ~70 us with AVX2); on large models both
// are memory-bound. AVX2 brings no FMA, so both versions round identically.
#include "ember/backend/kernels_optim.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ember/backend/cpu/register.h"
#include "ember/core/error.h"
#include "ember/core/half.h"
#include "ember/core/parallel.h"

namespace ember::cpu {
namespace {

// About 28 bytes move per element: chunks of 16K elements are ~0.5 MB, far above the cost of
// waking a thread.
constexpr int64_t kGrain = 1 << 14;

// Calls body(i, b, e) for the elements [b, e) of tensor i, over the concatenated range of all
// tensors split across threads.
template <class Body>
void over_elements(const TensorVec& params, const Body& body) {
  std::vector<int64_t> off(params.size() + 1, 0);
  for (size_t i = 0; i < params.size(); ++i) off[i + 1] = off[i] + params[i].numel();
  parallel_for(0, off.back(), kGrain, [&](int64_t b, int64_t e) {
    size_t i = size_t(std::upper_bound(off.begin(), off.end(), b) - off.begin()) - 1;
    while (b < e) {
      const int64_t end = std::min(e, off[i + 1]);
      if (end > b) body(i, b - off[i], end - off[i]);
      b = end;
      ++i;
    }
  });
}

// Runs f(std::bool_constant<b>{}) so that a runtime option becomes a template parameter.
template <class F>
void with_bool(bool b, const F& f) {
  if (b)
    f(std::true_type{});
  else
    f(std::false_type{});
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EMBER_OPTIM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EMBER_OPTIM_CLONES
#endif

template <class T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Each loop stores S (float, double, or a 16-bit float) and computes in T = opmath_t<S>: float
// for the 16-bit types, so their values are rounded once per stored result (as PyTorch's fused
// CPU kernels do); for float and double the conversions are no-ops.

// ---- Adam / AdamW ------------------------------------------------------------------------------
// The arithmetic follows torch.optim.Adam's single-tensor update step by step (same operations in
// the same order, in T), so results agree to rounding with PyTorch's.
template <class S, bool Amsgrad, bool L2, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void adam_loop(S* __restrict p,
                                  const S* __restrict g,
                                  S* __restrict m,
                                  S* __restrict v,
                                  S* __restrict vmax,
                                  int64_t n,
                                  T gsign,
                                  T wd,
                                  T decay,
                                  T w1,
                                  T beta2,
                                  T w2,
                                  T bc2_sqrt,
                                  T eps,
                                  T step_size) {
  for (int64_t j = 0; j < n; ++j) {
    const T pj = T(p[j]);
    T gj = T(g[j]) * gsign;
    if constexpr (L2) gj = gj + wd * pj;
    const T m0 = T(m[j]);
    const T mj = m0 + w1 * (gj - m0);  // exp_avg.lerp_(grad, 1 - beta1)
    const T vj = T(v[j]) * beta2 + w2 * (gj * gj);
    m[j] = S(mj);
    v[j] = S(vj);
    T vv = vj;
    if constexpr (Amsgrad) {
      vv = std::max(T(vmax[j]), vj);
      vmax[j] = S(vv);
    }
    const T denom = std::sqrt(vv) / bc2_sqrt + eps;
    p[j] = S(pj * decay - step_size * (mj / denom));
  }
}

// ---- SGD ---------------------------------------------------------------------------------------
template <class S, bool L2, bool Momentum, bool Nesterov, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void sgd_loop(S* __restrict p,
                                 const S* __restrict g,
                                 S* __restrict buf,
                                 int64_t n,
                                 bool first,
                                 T gsign,
                                 T wd,
                                 T momentum,
                                 T damp1,
                                 T lr) {
  for (int64_t j = 0; j < n; ++j) {
    const T pj = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (L2) d = d + wd * pj;
    if constexpr (Momentum) {
      // A new buffer starts at the gradient itself, without dampening (as PyTorch).
      const T b = first ? d : T(buf[j]) * momentum + damp1 * d;
      buf[j] = S(b);
      d = Nesterov ? d + momentum * b : b;
    }
    p[j] = S(pj - lr * d);
  }
}

// ---- RMSprop -----------------------------------------------------------------------------------
template <class S, bool L2, bool Centered, bool Momentum, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void rmsprop_loop(S* __restrict p,
                                     const S* __restrict g,
                                     S* __restrict sq,
                                     S* __restrict ga,
                                     S* __restrict buf,
                                     int64_t n,
                                     T gsign,
                                     T wd,
                                     T alpha,
                                     T w,
                                     T eps,
                                     T momentum,
                                     T lr) {
  for (int64_t j = 0; j < n; ++j) {
    const T pj = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (L2) d = d + wd * pj;
    const T s = T(sq[j]) * alpha + w * (d * d);
    sq[j] = S(s);
    T avg;
    if constexpr (Centered) {
      const T a0 = T(ga[j]);
      const T a = a0 + w * (d - a0);  // grad_avg.lerp_(grad, 1 - alpha)
      ga[j] = S(a);
      avg = std::sqrt(s - a * a) + eps;
    } else {
      avg = std::sqrt(s) + eps;
    }
    if constexpr (Momentum) {
      const T b = T(buf[j]) * momentum + d / avg;
      buf[j] = S(b);
      p[j] = S(pj - lr * b);
    } else {
      p[j] = S(pj - lr * (d / avg));
    }
  }
}

// ---- Adagrad -----------------------------------------------------------------------------------
template <class S, bool L2, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void adagrad_loop(S* __restrict p,
                                     const S* __restrict g,
                                     S* __restrict sum,
                                     int64_t n,
                                     T gsign,
                                     T wd,
                                     T eps,
                                     T clr) {
  for (int64_t j = 0; j < n; ++j) {
    const T pj = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (L2) d = d + wd * pj;
    const T s = T(sum[j]) + d * d;
    sum[j] = S(s);
    p[j] = S(pj - clr * (d / (std::sqrt(s) + eps)));
  }
}

// ---- Adadelta ----------------------------------------------------------------------------------
template <class S, bool L2, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void adadelta_loop(S* __restrict p,
                                      const S* __restrict g,
                                      S* __restrict sq,
                                      S* __restrict acc,
                                      int64_t n,
                                      T gsign,
                                      T wd,
                                      T rho,
                                      T w,
                                      T eps,
                                      T lr) {
  for (int64_t j = 0; j < n; ++j) {
    const T pj = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (L2) d = d + wd * pj;
    const T s = T(sq[j]) * rho + w * (d * d);
    sq[j] = S(s);
    const T std = std::sqrt(s + eps);
    const T delta = std::sqrt(T(acc[j]) + eps) / std * d;
    acc[j] = S(T(acc[j]) * rho + w * (delta * delta));
    p[j] = S(pj - lr * delta);
  }
}

// ---- Adamax ------------------------------------------------------------------------------------
template <class S, bool L2, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void adamax_loop(S* __restrict p,
                                    const S* __restrict g,
                                    S* __restrict m,
                                    S* __restrict u,
                                    int64_t n,
                                    T gsign,
                                    T wd,
                                    T w1,
                                    T beta2,
                                    T eps,
                                    T clr) {
  for (int64_t j = 0; j < n; ++j) {
    const T pj = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (L2) d = d + wd * pj;
    const T m0 = T(m[j]);
    const T mj = m0 + w1 * (d - m0);
    const T uj = std::max(T(u[j]) * beta2, std::abs(d) + eps);
    m[j] = S(mj);
    u[j] = S(uj);
    p[j] = S(pj - clr * (mj / uj));
  }
}

// ---- NAdam and RAdam: Adam's moments, then their own steps -------------------------------------
// Decay: 0 none, 1 L2 (added to the gradient), 2 decoupled (the parameter shrunk first).
template <class S, int Decay, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void nadam_loop(S* __restrict p,
                                   const S* __restrict g,
                                   S* __restrict m,
                                   S* __restrict v,
                                   int64_t n,
                                   T gsign,
                                   T wd,
                                   T shrink,
                                   T w1,
                                   T beta2,
                                   T w2,
                                   T bc2,
                                   T eps,
                                   T c1,
                                   T c2) {
  for (int64_t j = 0; j < n; ++j) {
    T pj = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (Decay == 1) d = d + wd * pj;
    if constexpr (Decay == 2) pj = pj * shrink;
    const T m0 = T(m[j]);
    const T mj = m0 + w1 * (d - m0);
    const T vj = T(v[j]) * beta2 + w2 * (d * d);
    m[j] = S(mj);
    v[j] = S(vj);
    const T denom = std::sqrt(vj / bc2) + eps;
    pj = pj - c1 * (d / denom);
    p[j] = S(pj - c2 * (mj / denom));
  }
}

template <class S, int Decay, bool Rectified, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void radam_loop(S* __restrict p,
                                   const S* __restrict g,
                                   S* __restrict m,
                                   S* __restrict v,
                                   int64_t n,
                                   T gsign,
                                   T wd,
                                   T shrink,
                                   T w1,
                                   T beta2,
                                   T w2,
                                   T bc1,
                                   T bc2_sqrt,
                                   T eps,
                                   T lr,
                                   T rect) {
  for (int64_t j = 0; j < n; ++j) {
    T pj = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (Decay == 1) d = d + wd * pj;
    if constexpr (Decay == 2) pj = pj * shrink;
    const T m0 = T(m[j]);
    const T mj = m0 + w1 * (d - m0);
    const T vj = T(v[j]) * beta2 + w2 * (d * d);
    m[j] = S(mj);
    v[j] = S(vj);
    const T corrected = mj / bc1;
    if constexpr (Rectified) {
      const T adaptive = bc2_sqrt / (std::sqrt(vj) + eps);
      p[j] = S(pj - corrected * lr * adaptive * rect);
    } else {
      p[j] = S(pj - corrected * lr);
    }
  }
}

// ---- ASGD --------------------------------------------------------------------------------------
template <class S, bool L2, bool Average, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void asgd_loop(S* __restrict p,
                                  const S* __restrict g,
                                  S* __restrict ax,
                                  int64_t n,
                                  T gsign,
                                  T wd,
                                  T shrink,
                                  T eta,
                                  T mu) {
  for (int64_t j = 0; j < n; ++j) {
    const T p0 = T(p[j]);
    T d = T(g[j]) * gsign;
    if constexpr (L2) d = d + wd * p0;
    const T pj = T(S(p0 * shrink)) - eta * d;  // mul_ then add_: rounded in between
    p[j] = S(pj);
    if constexpr (Average) {
      const T a = T(ax[j]);
      ax[j] = S(a + (T(S(pj)) - a) * mu);
    } else {
      ax[j] = S(pj);
    }
  }
}

// ---- Rprop -------------------------------------------------------------------------------------
template <class S, class T = opmath_t<S>>
EMBER_OPTIM_CLONES void rprop_loop(S* __restrict p,
                                   const S* __restrict g,
                                   S* __restrict prev,
                                   S* __restrict size,
                                   int64_t n,
                                   T gsign,
                                   T etaminus,
                                   T etaplus,
                                   T lo,
                                   T hi) {
  for (int64_t j = 0; j < n; ++j) {
    // One select per ternary (not nested, no branches), which GCC if-converts and vectorises.
    T d = T(g[j]) * gsign;
    const T s = d * T(prev[j]);
    T factor = s > T(0) ? etaplus : T(1);
    factor = s < T(0) ? etaminus : factor;
    const T st = std::min(std::max(T(size[j]) * factor, lo), hi);
    size[j] = S(st);
    d = s < T(0) ? T(0) : d;  // a sign flip: no step now, and no memory of this gradient
    T sg = d > T(0) ? T(1) : T(0);
    sg = d < T(0) ? T(-1) : sg;
    p[j] = S(T(p[j]) - sg * st);
    prev[j] = S(d);
  }
}

void adam_kernel(const TensorVec& params,
                 const TensorVec& grads,
                 const TensorVec& exp_avgs,
                 const TensorVec& exp_avg_sqs,
                 const TensorVec& max_exp_avg_sqs,
                 const std::vector<double>& step_size,
                 const std::vector<double>& bc2_sqrt,
                 const AdamKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "adam_", [&]<class S>() {
    using T = opmath_t<S>;
    const bool l2 = !a.decoupled && a.weight_decay != 0;
    const T decay = T(a.decoupled ? 1 - a.lr * a.weight_decay : 1);
    with_bool(a.amsgrad, [&](auto ams) {
      with_bool(l2, [&](auto l2c) {
        over_elements(params, [&](size_t i, int64_t b, int64_t e) {
          adam_loop<S, ams(), l2c()>(
              ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b, ptr<S>(exp_avgs[i]) + b,
              ptr<S>(exp_avg_sqs[i]) + b, ams() ? ptr<S>(max_exp_avg_sqs[i]) + b : nullptr, e - b,
              T(a.maximize ? -1 : 1), T(a.weight_decay), decay, T(1 - a.beta1), T(a.beta2),
              T(1 - a.beta2), T(bc2_sqrt[i]), T(a.eps), T(step_size[i]));
        });
      });
    });
  });
}

void sgd_kernel(const TensorVec& params,
                const TensorVec& grads,
                const TensorVec& bufs,
                const std::vector<uint8_t>& first,
                const SgdKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "sgd_", [&]<class S>() {
    using T = opmath_t<S>;
    with_bool(a.weight_decay != 0, [&](auto l2) {
      with_bool(a.momentum != 0, [&](auto mom) {
        with_bool(a.nesterov, [&](auto nest) {
          over_elements(params, [&](size_t i, int64_t b, int64_t e) {
            sgd_loop<S, l2(), mom(), nest()>(
                ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b, mom() ? ptr<S>(bufs[i]) + b : nullptr,
                e - b, mom() && first[i], T(a.maximize ? -1 : 1), T(a.weight_decay), T(a.momentum),
                T(1 - a.dampening), T(a.lr));
          });
        });
      });
    });
  });
}

void rmsprop_kernel(const TensorVec& params,
                    const TensorVec& grads,
                    const TensorVec& square_avgs,
                    const TensorVec& grad_avgs,
                    const TensorVec& bufs,
                    const RmspropKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "rmsprop_", [&]<class S>() {
    using T = opmath_t<S>;
    with_bool(a.weight_decay != 0, [&](auto l2) {
      with_bool(a.centered, [&](auto cen) {
        with_bool(a.momentum > 0, [&](auto mom) {
          over_elements(params, [&](size_t i, int64_t b, int64_t e) {
            rmsprop_loop<S, l2(), cen(), mom()>(
                ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b, ptr<S>(square_avgs[i]) + b,
                cen() ? ptr<S>(grad_avgs[i]) + b : nullptr, mom() ? ptr<S>(bufs[i]) + b : nullptr,
                e - b, T(a.maximize ? -1 : 1), T(a.weight_decay), T(a.alpha), T(1 - a.alpha),
                T(a.eps), T(a.momentum), T(a.lr));
          });
        });
      });
    });
  });
}

void adagrad_kernel(const TensorVec& params,
                    const TensorVec& grads,
                    const TensorVec& state_sums,
                    const std::vector<double>& clr,
                    const AdagradKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "adagrad_", [&]<class S>() {
    using T = opmath_t<S>;
    with_bool(a.weight_decay != 0, [&](auto l2) {
      over_elements(params, [&](size_t i, int64_t b, int64_t e) {
        adagrad_loop<S, l2()>(ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b,
                              ptr<S>(state_sums[i]) + b, e - b, T(a.maximize ? -1 : 1),
                              T(a.weight_decay), T(a.eps), T(clr[i]));
      });
    });
  });
}

void adadelta_kernel(const TensorVec& params,
                     const TensorVec& grads,
                     const TensorVec& square_avgs,
                     const TensorVec& acc_deltas,
                     const AdadeltaKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "adadelta_", [&]<class S>() {
    using T = opmath_t<S>;
    with_bool(a.weight_decay != 0, [&](auto l2) {
      over_elements(params, [&](size_t i, int64_t b, int64_t e) {
        adadelta_loop<S, l2()>(ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b,
                               ptr<S>(square_avgs[i]) + b, ptr<S>(acc_deltas[i]) + b, e - b,
                               T(a.maximize ? -1 : 1), T(a.weight_decay), T(a.rho), T(1 - a.rho),
                               T(a.eps), T(a.lr));
      });
    });
  });
}

void adamax_kernel(const TensorVec& params,
                   const TensorVec& grads,
                   const TensorVec& exp_avgs,
                   const TensorVec& exp_infs,
                   const std::vector<double>& clr,
                   const AdamaxKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "adamax_", [&]<class S>() {
    using T = opmath_t<S>;
    with_bool(a.weight_decay != 0, [&](auto l2) {
      over_elements(params, [&](size_t i, int64_t b, int64_t e) {
        adamax_loop<S, l2()>(ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b, ptr<S>(exp_avgs[i]) + b,
                             ptr<S>(exp_infs[i]) + b, e - b, T(a.maximize ? -1 : 1),
                             T(a.weight_decay), T(1 - a.beta1), T(a.beta2), T(a.eps), T(clr[i]));
      });
    });
  });
}

// Runs f(std::integral_constant<int, d>{}) for the weight decay mode d of NAdam and RAdam.
template <class F>
void with_decay(double weight_decay, bool decoupled, const F& f) {
  if (weight_decay == 0)
    f(std::integral_constant<int, 0>{});
  else if (!decoupled)
    f(std::integral_constant<int, 1>{});
  else
    f(std::integral_constant<int, 2>{});
}

void nadam_kernel(const TensorVec& params,
                  const TensorVec& grads,
                  const TensorVec& exp_avgs,
                  const TensorVec& exp_avg_sqs,
                  const std::vector<double>& bc2,
                  const std::vector<double>& c1,
                  const std::vector<double>& c2,
                  const NadamKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "nadam_", [&]<class S>() {
    using T = opmath_t<S>;
    with_decay(a.weight_decay, a.decoupled, [&](auto decay) {
      over_elements(params, [&](size_t i, int64_t b, int64_t e) {
        nadam_loop<S, decay()>(ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b, ptr<S>(exp_avgs[i]) + b,
                               ptr<S>(exp_avg_sqs[i]) + b, e - b, T(a.maximize ? -1 : 1),
                               T(a.weight_decay), T(1 - a.lr * a.weight_decay), T(1 - a.beta1),
                               T(a.beta2), T(1 - a.beta2), T(bc2[i]), T(a.eps), T(c1[i]), T(c2[i]));
      });
    });
  });
}

void radam_kernel(const TensorVec& params,
                  const TensorVec& grads,
                  const TensorVec& exp_avgs,
                  const TensorVec& exp_avg_sqs,
                  const std::vector<double>& bc1,
                  const std::vector<double>& bc2_sqrt,
                  const std::vector<double>& rect,
                  const RadamKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "radam_", [&]<class S>() {
    using T = opmath_t<S>;
    with_decay(a.weight_decay, a.decoupled, [&](auto decay) {
      over_elements(params, [&](size_t i, int64_t b, int64_t e) {
        with_bool(rect[i] != 0, [&](auto rectified) {
          radam_loop<S, decay(), rectified()>(
              ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b, ptr<S>(exp_avgs[i]) + b,
              ptr<S>(exp_avg_sqs[i]) + b, e - b, T(a.maximize ? -1 : 1), T(a.weight_decay),
              T(1 - a.lr * a.weight_decay), T(1 - a.beta1), T(a.beta2), T(1 - a.beta2), T(bc1[i]),
              T(bc2_sqrt[i]), T(a.eps), T(a.lr), T(rect[i]));
        });
      });
    });
  });
}

void asgd_kernel(const TensorVec& params,
                 const TensorVec& grads,
                 const TensorVec& axs,
                 const std::vector<double>& eta,
                 const std::vector<double>& mu,
                 const AsgdKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "asgd_", [&]<class S>() {
    using T = opmath_t<S>;
    with_bool(a.weight_decay != 0, [&](auto l2) {
      over_elements(params, [&](size_t i, int64_t b, int64_t e) {
        with_bool(mu[i] != 1, [&](auto average) {
          asgd_loop<S, l2(), average()>(ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b,
                                        ptr<S>(axs[i]) + b, e - b, T(a.maximize ? -1 : 1),
                                        T(a.weight_decay), T(1 - a.lambd * eta[i]), T(eta[i]),
                                        T(mu[i]));
        });
      });
    });
  });
}

void rprop_kernel(const TensorVec& params,
                  const TensorVec& grads,
                  const TensorVec& prevs,
                  const TensorVec& step_sizes,
                  const RpropKernelArgs& a) {
  if (params.empty()) return;
  dispatch_dtype<kFloatingTypes>(params[0].dtype(), "rprop_", [&]<class S>() {
    using T = opmath_t<S>;
    over_elements(params, [&](size_t i, int64_t b, int64_t e) {
      rprop_loop<S>(ptr<S>(params[i]) + b, ptr<S>(grads[i]) + b, ptr<S>(prevs[i]) + b,
                    ptr<S>(step_sizes[i]) + b, e - b, T(a.maximize ? -1 : 1), T(a.etaminus),
                    T(a.etaplus), T(a.step_min), T(a.step_max));
    });
  });
}

const OptimKernels kOptimKernels{&adam_kernel,     &sgd_kernel,    &rmsprop_kernel, &adagrad_kernel,
                                 &adadelta_kernel, &adamax_kernel, &nadam_kernel,   &radam_kernel,
                                 &asgd_kernel,     &rprop_kernel};

}  // namespace

void register_optim(KernelTable& t) { t.optim = &kOptimKernels; }

}  // namespace ember::cpu
