// One single-threaded matrix product by a library call (float32: oneDNN's sgemm; float64:
// OpenBLAS's dgemm), for the kernels of nn_rnn.cpp and nn_attention.cpp, which cut their
// products into blocks themselves and run the blocks in parallel.
#pragma once

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "ember/core/error.h"

namespace ember::cpu {

// A matrix operand: its first element and its row and column strides, in elements.
template <class T>
struct MatRef {
  const T* p;
  int64_t rs, cs;
};

// Sets this thread's OpenMP thread count to 1 for its lifetime: oneDNN and OpenBLAS size their
// own parallel regions by it, and the callers' blocks are the parallelism.
class SingleThreadLibraries {
 public:
  SingleThreadLibraries() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreadLibraries() { omp_set_num_threads(saved_); }
  SingleThreadLibraries(const SingleThreadLibraries&) = delete;
  SingleThreadLibraries& operator=(const SingleThreadLibraries&) = delete;

 private:
  int saved_;
};

namespace detail {
// How a [rows, cols] operand is handed to BLAS: row-major ('N') or the transpose of a row-major
// matrix ('T'), with its leading dimension; ok is false when neither stride is 1.
struct BlasLayout {
  bool ok;
  char trans;
  int64_t ld;
};

inline BlasLayout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (cols == 1 || cs == 1) {
    const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    if (ld >= std::max<int64_t>(cols, 1)) return {true, 'N', ld};
  }
  if (rows == 1 || rs == 1) {
    const int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    if (ld >= std::max<int64_t>(rows, 1)) return {true, 'T', ld};
  }
  return {false, 'N', 0};
}
}  // namespace detail

// c[n, m] = beta * c + alpha * a[n, k] @ b[k, m], c with row stride ldc and unit column stride;
// beta 0 ignores c's old values. Call under SingleThreadLibraries.
template <class T>
void block_gemm(int64_t n,
                int64_t m,
                int64_t k,
                MatRef<T> a,
                MatRef<T> b,
                T beta,
                T* c,
                int64_t ldc,
                T alpha = T(1)) {
  if (n == 0 || m == 0) return;
  const detail::BlasLayout la = detail::blas_layout(n, k, a.rs, a.cs);
  const detail::BlasLayout lb = detail::blas_layout(k, m, b.rs, b.cs);
  if (k == 0) {  // an empty sum: 0, whatever alpha (scale = 1/sqrt(0) is inf in attention)
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    }
    return;
  }
  if (!la.ok || !lb.ok) {
    // By the definition: operands no library takes (a stride-0 broadcast).
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        T acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += a.p[i * a.rs + p * a.cs] * b.p[p * b.rs + j * b.cs];
        T& out = c[i * ldc + j];
        out = beta == T(0) ? alpha * acc : beta * out + alpha * acc;
      }
    }
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    const dnnl_status_t st =
        dnnl_sgemm(la.trans, lb.trans, n, m, k, alpha, a.p, la.ld, b.p, lb.ld, beta, c, ldc);
    EMBER_CHECK(st == dnnl_success, "[rnn] oneDNN sgemm failed with status ", int(st));
  } else {
    cblas_dgemm(CblasRowMajor, la.trans == 'N' ? CblasNoTrans : CblasTrans,
                lb.trans == 'N' ? CblasNoTrans : CblasTrans, int(n), int(m), int(k), alpha, a.p,
                int(la.ld), b.p, int(lb.ld), beta, c, int(ldc));
  }
}

}  // namespace ember::cpu
