// CPU kernels of scaled_dot_product_attention: blocked ("flash") attention with an online
// softmax, so only one block of kQBlock x kKBlock scores exists at a time per thread.
//
// Forward, for each (batch, head, block of queries), in parallel: for each block of keys,
// s = scale * q k^T (masked), the running row maximum m and sum l are updated, and
// out = out * exp(m_old - m_new) + exp(s - m_new) v; at the end out /= l and the log-sum-exp
// m + log(l) is saved. Backward, for each (batch, head) in parallel (each owns its dk and dv):
// the scores of each block are recomputed and p = exp(s - lse); then dv += p^T dout,
// dp = dout v^T, ds = p * (dp - rowsum(dout * out)), dq += scale ds k, dk += scale ds^T q.
// Causal blocks entirely above the diagonal are skipped. Every block's work is done by one
// thread in a fixed order, so results do not depend on the thread count.
#include <cmath>
#include <limits>
#include <vector>

#include "ember/backend/cpu/block_gemm.h"
#include "ember/backend/cpu/nn_rnn_simd.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_nn_attention.h"
#include "ember/core/parallel.h"

namespace ember::cpu {
namespace {

constexpr int64_t kQBlock = 64, kKBlock = 256;
// Tasks per parallel chunk: at least about this many multiply-adds each, so that tiny problems run
// on the calling thread (waking threads costs more than they compute).
constexpr int64_t kMinChunkWork = int64_t(1) << 16;

int64_t grain_for(int64_t work_per_task) {
  return std::max<int64_t>(1, kMinChunkWork / std::max<int64_t>(work_per_task, 1));
}

// The mask, read at (b, h, i, j): undefined, bool or the compute dtype, any strides.
struct MaskRef {
  const char* data = nullptr;
  bool is_bool = false;
  int64_t sb = 0, sh = 0, sl = 0, ss = 0;  // element strides

  explicit MaskRef(const Tensor& m) {
    if (!m.defined()) return;
    data = static_cast<const char*>(m.data_ptr());
    is_bool = m.dtype() == kBool;
    sb = m.strides()[0], sh = m.strides()[1], sl = m.strides()[2], ss = m.strides()[3];
  }
};

// Strided view of one (b, h) slice of a [B, H, n, d] tensor: its first row and row stride.
template <class T>
struct Rows {
  const T* p;
  int64_t rs;
};

template <class T>
Rows<T> head(const Tensor& t, int64_t b, int64_t h) {
  const auto s = t.strides();
  return {static_cast<const T*>(t.data_ptr()) + b * s[0] + h * s[1], s[2]};
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// Masks a block of scores s[rows, cols] (row stride ld) for queries i0.. and keys j0..: a false
// bool entry or a causal position (j > i) becomes -inf, a float mask is added.
template <class T>
void apply_mask(T* s,
                int64_t ld,
                int64_t rows,
                int64_t cols,
                int64_t i0,
                int64_t j0,
                const MaskRef& mask,
                int64_t b,
                int64_t h,
                bool causal) {
  if (mask.data) {
    for (int64_t r = 0; r < rows; ++r) {
      T* sr = s + r * ld;
      const int64_t base = b * mask.sb + h * mask.sh + (i0 + r) * mask.sl + j0 * mask.ss;
      if (mask.is_bool) {
        const bool* mr = reinterpret_cast<const bool*>(mask.data) + base;
        for (int64_t c = 0; c < cols; ++c) {
          if (!mr[c * mask.ss]) sr[c] = -T(kInf);
        }
      } else if (mask.ss == 1) {
        rnn_simd::fns<T>().add(sr, reinterpret_cast<const T*>(mask.data) + base, cols);
      } else {
        const T* mr = reinterpret_cast<const T*>(mask.data) + base;
        for (int64_t c = 0; c < cols; ++c) sr[c] += mr[c * mask.ss];
      }
    }
  }
  if (causal) {
    for (int64_t r = 0; r < rows; ++r) {
      // Keys j > i are masked: columns c > i0 + r - j0.
      const int64_t first = std::max<int64_t>(0, i0 + r - j0 + 1);
      for (int64_t c = first; c < cols; ++c) s[r * ld + c] = -T(kInf);
    }
  }
}

// Keys that queries [i0, i0 + rows) may see: all S, or for causal attention j <= i.
int64_t key_end(bool causal, int64_t i0, int64_t rows, int64_t S) {
  return causal ? std::min(S, i0 + rows) : S;
}

template <class T>
void forward_typed(const Tensor& out,
                   const Tensor& lse,
                   const Tensor& q,
                   const Tensor& k,
                   const Tensor& v,
                   const Tensor& mask,
                   bool causal,
                   double scale) {
  const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], E = q.sizes()[3];
  const int64_t S = k.sizes()[2], Ev = v.sizes()[3];
  const int64_t nq = (L + kQBlock - 1) / kQBlock;
  const MaskRef mref(mask);
  T* po = static_cast<T*>(out.data_ptr());
  T* pl = static_cast<T*>(lse.data_ptr());
  const rnn_simd::Fns<T>& f = rnn_simd::fns<T>();
  const int64_t grain = grain_for(std::min(kQBlock, L) * S * (E + Ev));
  parallel_for(0, B * H * nq, grain, [&](int64_t t0, int64_t t1) {
    SingleThreadLibraries single;
    std::vector<T> s(kQBlock * kKBlock), m(kQBlock), l(kQBlock);
    for (int64_t task = t0; task < t1; ++task) {
      const int64_t bh = task / nq, i0 = (task % nq) * kQBlock, b = bh / H, h = bh % H;
      const int64_t rows = std::min(kQBlock, L - i0);
      const Rows<T> qr = head<T>(q, b, h), kr = head<T>(k, b, h), vr = head<T>(v, b, h);
      T* o = po + (bh * L + i0) * Ev;
      std::fill(o, o + rows * Ev, T(0));
      std::fill(m.begin(), m.end(), -T(kInf));
      std::fill(l.begin(), l.end(), T(0));
      const int64_t kend = key_end(causal, i0, rows, S);
      for (int64_t j0 = 0; j0 < kend; j0 += kKBlock) {
        const int64_t cols = std::min(kKBlock, kend - j0), ld = cols;
        block_gemm<T>(rows, cols, E, MatRef<T>{qr.p + i0 * qr.rs, qr.rs, 1},
                      MatRef<T>{kr.p + j0 * kr.rs, 1, kr.rs}, T(0), s.data(), ld, T(scale));
        apply_mask(s.data(), ld, rows, cols, i0, j0, mref, b, h, causal && j0 + cols > i0 + 1);
        for (int64_t r = 0; r < rows; ++r) {
          T* sr = s.data() + r * ld;
          const T mx = f.row_max(sr, cols);
          const T m_new = std::isnan(mx) ? mx : std::max(m[r], mx);
          if (m_new == -T(kInf)) {  // nothing to attend to yet: this block adds nothing
            std::fill(sr, sr + cols, T(0));
            continue;
          }
          const T sum = f.exp_shift_sum(sr, cols, m_new);
          if (m[r] != m_new) {
            const T alpha = std::exp(m[r] - m_new);
            f.scale(o + r * Ev, Ev, alpha);
            l[r] *= alpha;
          }
          l[r] += sum;
          m[r] = m_new;
        }
        block_gemm<T>(rows, Ev, cols, MatRef<T>{s.data(), ld, 1},
                      MatRef<T>{vr.p + j0 * vr.rs, vr.rs, 1}, T(1), o, Ev);
      }
      for (int64_t r = 0; r < rows; ++r) {
        T* orow = o + r * Ev;
        if (l[r] == T(0)) {  // a row without keys: output 0, as PyTorch's
          std::fill(orow, orow + Ev, T(0));
          pl[bh * L + i0 + r] = T(kInf);
          continue;
        }
        f.scale(orow, Ev, T(1) / l[r]);
        pl[bh * L + i0 + r] = m[r] + std::log(l[r]);
      }
    }
  });
}

template <class T>
void backward_typed(const Tensor& dq,
                    const Tensor& dk,
                    const Tensor& dv,
                    const Tensor& dout,
                    const Tensor& q,
                    const Tensor& k,
                    const Tensor& v,
                    const Tensor& out,
                    const Tensor& lse,
                    const Tensor& mask,
                    bool causal,
                    double scale) {
  const int64_t B = q.sizes()[0], H = q.sizes()[1], L = q.sizes()[2], E = q.sizes()[3];
  const int64_t S = k.sizes()[2], Ev = v.sizes()[3];
  const MaskRef mref(mask);
  T* pdq = static_cast<T*>(dq.data_ptr());
  T* pdk = static_cast<T*>(dk.data_ptr());
  T* pdv = static_cast<T*>(dv.data_ptr());
  const T* po = static_cast<const T*>(out.data_ptr());
  const T* pl = static_cast<const T*>(lse.data_ptr());
  const rnn_simd::Fns<T>& f = rnn_simd::fns<T>();
  const T sc = T(scale);
  parallel_for(0, B * H, grain_for(L * S * (2 * E + 2 * Ev)), [&](int64_t t0, int64_t t1) {
    SingleThreadLibraries single;
    std::vector<T> p(kQBlock * kKBlock), dp(kQBlock * kKBlock), drow(L);
    for (int64_t bh = t0; bh < t1; ++bh) {
      const int64_t b = bh / H, h = bh % H;
      const Rows<T> qr = head<T>(q, b, h), kr = head<T>(k, b, h), vr = head<T>(v, b, h);
      const Rows<T> gr = head<T>(dout, b, h);
      T* gq = pdq + bh * L * E;
      T* gk = pdk + bh * S * E;
      T* gv = pdv + bh * S * Ev;
      std::fill(gq, gq + L * E, T(0));
      std::fill(gk, gk + S * E, T(0));
      std::fill(gv, gv + S * Ev, T(0));
      const T* o = po + bh * L * Ev;
      const T* ls = pl + bh * L;
      // D_i = sum_e dout[i, e] * out[i, e]: the softmax backward's row term.
      for (int64_t i = 0; i < L; ++i) drow[i] = f.dot(gr.p + i * gr.rs, o + i * Ev, Ev);
      for (int64_t i0 = 0; i0 < L; i0 += kQBlock) {
        const int64_t rows = std::min(kQBlock, L - i0);
        const int64_t kend = key_end(causal, i0, rows, S);
        for (int64_t j0 = 0; j0 < kend; j0 += kKBlock) {
          const int64_t cols = std::min(kKBlock, kend - j0), ld = cols;
          block_gemm<T>(rows, cols, E, MatRef<T>{qr.p + i0 * qr.rs, qr.rs, 1},
                        MatRef<T>{kr.p + j0 * kr.rs, 1, kr.rs}, T(0), p.data(), ld, sc);
          apply_mask(p.data(), ld, rows, cols, i0, j0, mref, b, h, causal && j0 + cols > i0 + 1);
          for (int64_t r = 0; r < rows; ++r) {
            // lse is +inf for a row without keys: p = 0.
            f.exp_shift_sum(p.data() + r * ld, cols, ls[i0 + r]);
          }
          // dv[j] += p^T dout
          block_gemm<T>(cols, Ev, rows, MatRef<T>{p.data(), 1, ld},
                        MatRef<T>{gr.p + i0 * gr.rs, gr.rs, 1}, T(1), gv + j0 * Ev, Ev);
          // dp = dout v^T, then ds = p * (dp - D)
          block_gemm<T>(rows, cols, Ev, MatRef<T>{gr.p + i0 * gr.rs, gr.rs, 1},
                        MatRef<T>{vr.p + j0 * vr.rs, 1, vr.rs}, T(0), dp.data(), ld);
          for (int64_t r = 0; r < rows; ++r) {
            f.dsoftmax(dp.data() + r * ld, p.data() + r * ld, cols, drow[i0 + r]);
          }
          // dq += scale ds k; dk += scale ds^T q
          block_gemm<T>(rows, E, cols, MatRef<T>{dp.data(), ld, 1},
                        MatRef<T>{kr.p + j0 * kr.rs, kr.rs, 1}, T(1), gq + i0 * E, E, sc);
          block_gemm<T>(cols, E, rows, MatRef<T>{dp.data(), 1, ld},
                        MatRef<T>{qr.p + i0 * qr.rs, qr.rs, 1}, T(1), gk + j0 * E, E, sc);
        }
      }
    }
  });
}

void attention_forward_kernel(const Tensor& out,
                              const Tensor& lse,
                              const Tensor& q,
                              const Tensor& k,
                              const Tensor& v,
                              const Tensor& mask,
                              bool causal,
                              double scale) {
  if (out.numel() == 0) return;
  sync_library_threads();
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(
      out.dtype(), "scaled_dot_product_attention",
      [&]<class T>() { forward_typed<T>(out, lse, q, k, v, mask, causal, scale); });
}

void attention_backward_kernel(const Tensor& dq,
                               const Tensor& dk,
                               const Tensor& dv,
                               const Tensor& dout,
                               const Tensor& q,
                               const Tensor& k,
                               const Tensor& v,
                               const Tensor& out,
                               const Tensor& lse,
                               const Tensor& mask,
                               bool causal,
                               double scale) {
  sync_library_threads();
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(
      dq.dtype(), "scaled_dot_product_attention", [&]<class T>() {
        backward_typed<T>(dq, dk, dv, dout, q, k, v, out, lse, mask, causal, scale);
      });
}

const AttentionKernels kAttentionKernels{&attention_forward_kernel, &attention_backward_kernel};

}  // namespace

void register_nn_attention(KernelTable& t) { t.nn_attention = &kAttentionKernels; }

}  // namespace ember::cpu
