// CPU kernels of the embedding ops: lookups, bags, their gradients and max-norm renormalisation.
//
// Embedding gradients are written through an index: the rows of grad_weight are split between
// threads, and each thread scans all indices in order, applying those that land in its rows. Each
// row's sum is then taken in index order whatever the thread count (no atomics, same bits). The
// vectorised row loops are the losses' (nn_loss_simd.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/nn_loss_simd.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/cpu/simd.h"
#include "ember/backend/kernels_nn_embedding.h"

namespace ember::cpu {
namespace {

// One vectorised min/max pass over the indices; only if it finds one out of [0, rows) are they
// scanned for the first bad position. Returns false (with *bad) in that case.
bool indices_in_range(const int64_t* idx, int64_t n, int64_t rows, int64_t* bad) {
  if (n == 0) return true;
  int64_t lo = 0, hi = 0;
  simd::table().minmax_i64(idx, n, &lo, &hi);
  if (lo >= 0 && hi < rows) return true;
  for (int64_t k = 0; k < n; ++k) {
    if (idx[k] < 0 || idx[k] >= rows) {
      *bad = k;
      return false;
    }
  }
  return true;
}

// Rows ahead of the one being read are prefetched: the lookups of a large table miss the caches,
// and the next rows' addresses are known.
constexpr int64_t kPrefetchAhead = 8;
inline void prefetch_row(const char* row, size_t bytes) { loss_simd::prefetch_bytes(row, bytes); }

bool embedding_forward_kernel(const Tensor& out,
                              const Tensor& weight,
                              const Tensor& indices,
                              int64_t* bad) {
  const int64_t n = indices.numel(), rows = weight.sizes()[0], dim = weight.sizes()[1];
  const int64_t* idx = static_cast<const int64_t*>(indices.data_ptr());
  const size_t es = weight.element_size();
  const int64_t sr = weight.strides()[0], sd = weight.strides()[1];
  const char* w = static_cast<const char*>(weight.data_ptr());
  char* o = static_cast<char*>(out.data_ptr());
  const size_t row_bytes = size_t(dim) * es;
  if (!indices_in_range(idx, n, rows, bad)) return false;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, dim));
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      if (k + kPrefetchAhead < e && sd == 1) {
        const int64_t nx = idx[k + kPrefetchAhead];
        if (nx >= 0 && nx < rows) prefetch_row(w + size_t(nx * sr) * es, row_bytes);
      }
      const int64_t i = idx[k];
      char* dst = o + size_t(k) * row_bytes;
      const char* src = w + size_t(i * sr) * es;
      if (sd == 1) {
        std::memcpy(dst, src, row_bytes);
      } else {
        for (int64_t d = 0; d < dim; ++d)
          std::memcpy(dst + size_t(d) * es, src + size_t(d * sd) * es, es);
      }
    }
  });
  return true;
}

template <class T>
bool embedding_bag_forward_impl(const Tensor& out,
                                const Tensor& bag_size,
                                const Tensor& max_indices,
                                const Tensor& weight,
                                const Tensor& indices,
                                const Tensor& starts,
                                const Tensor& psw,
                                int64_t mode,
                                int64_t padding_idx,
                                int64_t* bad) {
  using A = opmath_t<T>;
  // float32 / float64 rows accumulate straight into the output row with the vector loop.
  constexpr bool kVec = std::is_same_v<T, float> || std::is_same_v<T, double>;
  const loss_simd::Table& tab = loss_simd::tables()[std::is_same_v<T, float> ? 0 : 1];
  const int64_t bags = starts.numel() - 1, rows = weight.sizes()[0], dim = weight.sizes()[1];
  const int64_t sr = weight.strides()[0], sd = weight.strides()[1];
  const T* w = static_cast<const T*>(weight.data_ptr());
  const int64_t* idx = static_cast<const int64_t*>(indices.data_ptr());
  const int64_t* st = static_cast<const int64_t*>(starts.data_ptr());
  const T* pw = psw.defined() ? static_cast<const T*>(psw.data_ptr()) : nullptr;
  T* o = static_cast<T*>(out.data_ptr());
  int64_t* bs = static_cast<int64_t*>(bag_size.data_ptr());
  int64_t* mi = mode == 2 ? static_cast<int64_t*>(max_indices.data_ptr()) : nullptr;
  const bool vec = kVec && sd == 1 && mode != 2;
  if (!indices_in_range(idx, indices.numel(), rows, bad)) return false;
  const int64_t per_bag = std::max<int64_t>(1, bags ? st[bags] / bags : 1) * dim;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, per_bag));
  parallel_for(0, bags, grain, [&](int64_t b0, int64_t b1) {
    if (vec) {
      tab.bag_sums(o, w, sr, idx, st, b0, b1, indices.numel(), pw, mode == 1, padding_idx, dim, bs);
      return;
    }
    std::vector<A> acc(static_cast<size_t>(dim));
    A* __restrict a = acc.data();
    const int64_t k_end = st[b1];
    for (int64_t b = b0; b < b1; ++b) {
      T* dst = o + b * dim;
      // The rows counted (padding skipped); a mean scales each row by 1 / count as it is added.
      int64_t count = st[b + 1] - st[b];
      if (padding_idx >= 0)
        for (int64_t k = st[b]; k < st[b + 1]; ++k) count -= idx[k] == padding_idx;
      const A scale = mode == 1 && count > 0 ? A(1) / A(count) : A(1);
      bs[b] = count;
      std::fill(acc.begin(), acc.end(), A(0));
      bool first_row = true;
      for (int64_t k = st[b]; k < st[b + 1]; ++k) {
        if (k + kPrefetchAhead < k_end && sd == 1) {
          const int64_t nx = idx[k + kPrefetchAhead];
          if (nx >= 0 && nx < rows)
            prefetch_row(reinterpret_cast<const char*>(w + nx * sr), size_t(dim) * sizeof(T));
        }
        const int64_t i = idx[k];
        if (i == padding_idx) continue;
        const T* __restrict row = w + i * sr;
        const A s = pw ? A(pw[k]) : scale;
        if (mode == 2) {
          int64_t* __restrict arg = mi + b * dim;
          for (int64_t d = 0; d < dim; ++d) {
            const A v = A(row[d * sd]);
            if (first_row || v > a[d]) {
              a[d] = v;
              arg[d] = i;
            }
          }
        } else {
          for (int64_t d = 0; d < dim; ++d) a[d] += s * A(row[d * sd]);
        }
        first_row = false;
      }
      if (mode == 2 && count == 0) std::fill(mi + b * dim, mi + (b + 1) * dim, int64_t(-1));
      for (int64_t d = 0; d < dim; ++d) dst[d] = T(a[d]);
    }
  });
  return true;
}

bool embedding_bag_forward_kernel(const Tensor& out,
                                  const Tensor& bag_size,
                                  const Tensor& max_indices,
                                  const Tensor& weight,
                                  const Tensor& indices,
                                  const Tensor& starts,
                                  const Tensor& psw,
                                  int64_t mode,
                                  int64_t padding_idx,
                                  int64_t* bad) {
  return dispatch_dtype<kFloatingTypes>(weight.dtype(), "embedding_bag", [&]<class T>() {
    return embedding_bag_forward_impl<T>(out, bag_size, max_indices, weight, indices, starts, psw,
                                         mode, padding_idx, bad);
  });
}

// Row ranges of grad_weight, one per thread: each thread zero-fills its rows and applies, in
// order, the contributions that land in them.
template <class F>
void for_row_ranges(int64_t rows, int64_t dim, const F& f) {
  const int64_t threads = std::max(1, get_num_threads());
  // Small tables (or little work) stay on one thread: every thread scans all indices.
  const int64_t grain =
      std::max<int64_t>((rows + threads - 1) / threads,
                        std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, dim)));
  parallel_for(0, rows, grain, f);
}

template <class T>
void embedding_backward_impl(const Tensor& grad_weight,
                             const Tensor& grad,
                             const Tensor& indices,
                             const Tensor& starts,
                             const Tensor& psw,
                             const Tensor& bag_size,
                             int64_t padding_idx,
                             bool freq) {
  using A = opmath_t<T>;
  const int64_t rows = grad_weight.sizes()[0], dim = grad_weight.sizes()[1];
  const int64_t n = indices.numel();
  const int64_t* idx = static_cast<const int64_t*>(indices.data_ptr());
  const int64_t* st = starts.defined() ? static_cast<const int64_t*>(starts.data_ptr()) : nullptr;
  const int64_t bags = st ? starts.numel() - 1 : n;
  const T* pw = psw.defined() ? static_cast<const T*>(psw.data_ptr()) : nullptr;
  const int64_t* bs =
      bag_size.defined() ? static_cast<const int64_t*>(bag_size.data_ptr()) : nullptr;
  const T* g = static_cast<const T*>(grad.data_ptr());
  T* gw = static_cast<T*>(grad_weight.data_ptr());
  const loss_simd::Table& tab = loss_simd::tables()[std::is_same_v<T, float> ? 0 : 1];
  for_row_ranges(rows, dim, [&](int64_t r0, int64_t r1) {
    std::memset(static_cast<void*>(gw + r0 * dim), 0, size_t((r1 - r0) * dim) * sizeof(T));
    std::vector<int32_t> count(freq ? size_t(r1 - r0) : 0);
    if (freq) {
      for (int64_t k = 0; k < n; ++k)
        if (idx[k] >= r0 && idx[k] < r1) ++count[size_t(idx[k] - r0)];
    }
    for (int64_t b = 0; b < bags; ++b) {
      const int64_t k0 = st ? st[b] : b, k1 = st ? st[b + 1] : b + 1;
      const T* __restrict grow = g + b * dim;
      for (int64_t k = k0; k < k1; ++k) {
        const int64_t i = idx[k];
        if (i < r0 || i >= r1 || i == padding_idx) continue;
        A s = pw ? A(pw[k]) : A(1);
        if (bs) s /= A(bs[b]);
        if (freq) s /= A(count[size_t(i - r0)]);
        T* __restrict dst = gw + i * dim;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          tab.axpy(dst, grow, dim, double(s));
        } else {
          for (int64_t d = 0; d < dim; ++d) dst[d] = T(A(dst[d]) + s * A(grow[d]));
        }
      }
    }
  });
}

void embedding_backward_kernel(const Tensor& grad_weight,
                               const Tensor& grad,
                               const Tensor& indices,
                               const Tensor& starts,
                               const Tensor& psw,
                               const Tensor& bag_size,
                               int64_t padding_idx,
                               bool freq) {
  dispatch_dtype<kFloatingTypes>(grad_weight.dtype(), "embedding", [&]<class T>() {
    embedding_backward_impl<T>(grad_weight, grad, indices, starts, psw, bag_size, padding_idx,
                               freq);
  });
}

void embedding_bag_max_backward_kernel(const Tensor& grad_weight,
                                       const Tensor& grad,
                                       const Tensor& max_indices) {
  dispatch_dtype<kFloatingTypes>(grad_weight.dtype(), "embedding_bag", [&]<class T>() {
    using A = opmath_t<T>;
    const int64_t rows = grad_weight.sizes()[0], dim = grad_weight.sizes()[1];
    const int64_t bags = grad.sizes()[0];
    const int64_t* mi = static_cast<const int64_t*>(max_indices.data_ptr());
    const T* g = static_cast<const T*>(grad.data_ptr());
    T* gw = static_cast<T*>(grad_weight.data_ptr());
    for_row_ranges(rows, dim, [&](int64_t r0, int64_t r1) {
      std::memset(static_cast<void*>(gw + r0 * dim), 0, size_t((r1 - r0) * dim) * sizeof(T));
      for (int64_t b = 0; b < bags; ++b) {
        for (int64_t d = 0; d < dim; ++d) {
          const int64_t i = mi[b * dim + d];
          if (i >= r0 && i < r1) gw[i * dim + d] = T(A(gw[i * dim + d]) + A(g[b * dim + d]));
        }
      }
    });
  });
}

void embedding_renorm_kernel(const Tensor& weight,
                             const Tensor& rows_t,
                             double max_norm,
                             double norm_type) {
  dispatch_dtype<kFloatingTypes>(weight.dtype(), "embedding_renorm_", [&]<class T>() {
    const int64_t dim = weight.sizes()[1], sr = weight.strides()[0], sd = weight.strides()[1];
    const int64_t* rows = static_cast<const int64_t*>(rows_t.data_ptr());
    T* w = static_cast<T*>(weight.data_ptr());
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, dim));
    parallel_for(0, rows_t.numel(), grain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        T* row = w + rows[k] * sr;
        double norm = 0;
        if (std::isinf(norm_type)) {
          for (int64_t d = 0; d < dim; ++d) norm = std::max(norm, std::abs(double(row[d * sd])));
        } else if (norm_type == 1) {
          for (int64_t d = 0; d < dim; ++d) norm += std::abs(double(row[d * sd]));
        } else if (norm_type == 2) {
          for (int64_t d = 0; d < dim; ++d) norm += double(row[d * sd]) * double(row[d * sd]);
          norm = std::sqrt(norm);
        } else {
          for (int64_t d = 0; d < dim; ++d)
            norm += std::pow(std::abs(double(row[d * sd])), norm_type);
          norm = std::pow(norm, 1.0 / norm_type);
        }
        if (norm > max_norm) {
          const double scale = max_norm / (norm + 1e-7);
          for (int64_t d = 0; d < dim; ++d) row[d * sd] = T(double(row[d * sd]) * scale);
        }
      }
    });
  });
}

const EmbeddingKernels kEmbeddingKernels{
    .embedding_forward = &embedding_forward_kernel,
    .embedding_bag_forward = &embedding_bag_forward_kernel,
    .embedding_backward = &embedding_backward_kernel,
    .embedding_bag_max_backward = &embedding_bag_max_backward_kernel,
    .embedding_renorm = &embedding_renorm_kernel,
};

}  // namespace

void register_nn_embedding(KernelTable& t) { t.nn_embedding = &kEmbeddingKernels; }

}  // namespace ember::cpu
