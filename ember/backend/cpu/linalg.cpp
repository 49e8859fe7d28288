// Batched matrix product on the CPU: float32 through oneDNN's sgemm (about 97% of one core's
// AVX-512 peak here; OpenBLAS reaches half of that under this machine's OPENBLAS_CORETYPE=Haswell,
// see benchmarks/RESULTS.md), float64 through OpenBLAS's dgemm, other dtypes by a plain loop.
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/core/math.h"

namespace ember::cpu {
namespace {

// How a [rows, cols] matrix with element strides (rs, cs) is handed to BLAS: row-major ('N') or
// as the transpose of a row-major matrix ('T'), with its leading dimension.
struct Layout {
  bool ok;
  char trans;
  int64_t ld;
};

Layout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  // Strides of size-1 dims are arbitrary; BLAS wants ld >= the row length.
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

// One matrix operand: its first element and its row and column strides, in elements.
template <class T>
struct Mat {
  const T* data;
  int64_t rs, cs;
  const T& at(int64_t r, int64_t c) const { return data[r * rs + c * cs]; }
};

// out[n, m] = a[n, k] @ b[k, m] by the definition, accumulating in the op-math type.
template <class T>
void naive_gemm(int64_t n, int64_t m, int64_t k, Mat<T> a, Mat<T> b, T* out) {
  // Integers accumulate in their unsigned twins: a product that overflows wraps, as PyTorch's.
  using A = std::conditional_t<std::is_same_v<T, bool>, bool, math::wrap_t<opmath_t<T>>>;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      A acc = A(0);
      for (int64_t p = 0; p < k; ++p) {
        if constexpr (std::is_same_v<T, bool>)
          acc = acc || (a.at(i, p) && b.at(p, j));
        else
          acc += A(a.at(i, p)) * A(b.at(p, j));
      }
      out[i * m + j] = T(acc);
    }
  }
}

// Products this small cost less by the loop than through a library call.
constexpr int64_t kSmallProduct = 4096;

// One library call, single-threaded (our blocks are the parallelism, see gemm below).
template <class T>
void library_gemm(int64_t n, int64_t m, int64_t k, Mat<T> a, Mat<T> b, T* out, int64_t ldc) {
  const Layout la = blas_layout(n, k, a.rs, a.cs), lb = blas_layout(k, m, b.rs, b.cs);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);  // this thread's setting only: the libraries size their regions by it
  if constexpr (std::is_same_v<T, float>) {
    const dnnl_status_t st =
        dnnl_sgemm(la.trans, lb.trans, n, m, k, 1.0f, a.data, la.ld, b.data, lb.ld, 0.0f, out, ldc);
    omp_set_num_threads(saved);
    EMBER_CHECK(st == dnnl_success, "[matmul] oneDNN sgemm failed with status ", int(st));
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, la.trans == 'N' ? CblasNoTrans : CblasTrans,
                lb.trans == 'N' ? CblasNoTrans : CblasTrans, int(n), int(m), int(k), 1.0, a.data,
                int(la.ld), b.data, int(lb.ld), 0.0, out, int(ldc));
    omp_set_num_threads(saved);
  } else {
    // complex64 / complex128: cgemm / zgemm, which take alpha and beta by pointer.
    const T one(1), zero(0);
    const auto ta = la.trans == 'N' ? CblasNoTrans : CblasTrans;
    const auto tb = lb.trans == 'N' ? CblasNoTrans : CblasTrans;
    if constexpr (std::is_same_v<T, std::complex<float>>) {
      cblas_cgemm(CblasRowMajor, ta, tb, int(n), int(m), int(k), &one, a.data, int(la.ld), b.data,
                  int(lb.ld), &zero, out, int(ldc));
    } else {
      cblas_zgemm(CblasRowMajor, ta, tb, int(n), int(m), int(k), &one, a.data, int(la.ld), b.data,
                  int(lb.ld), &zero, out, int(ldc));
    }
    omp_set_num_threads(saved);
  }
}

// Note [Deterministic matmul]
// Libraries thread a product as they see fit, and for some shapes (a long k, small n and m)
// they split k across threads and add the partial products: the result then depends on the
// thread count. ember cuts large products into blocks of kBlock rows (or columns, when there
// are few rows) that do not depend on the thread count, computes each block with one
// single-threaded library call over the whole k, and runs the blocks in parallel. Every output
// element is thus summed by one call in one order: the same bits on any number of threads.
// Products with too few rows and columns to cut run on one thread.
constexpr int64_t kBlock = 256;

template <class T>
void gemm(int64_t n, int64_t m, int64_t k, Mat<T> a, Mat<T> b, T* out) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || is_std_complex<T>) {
    const bool blas = blas_layout(n, k, a.rs, a.cs).ok && blas_layout(k, m, b.rs, b.cs).ok;
    if (blas && n * m * k > kSmallProduct) {
      const int64_t ldc = std::max<int64_t>(m, 1);
      const bool by_rows = n >= 2 * kBlock || m < 2 * kBlock;
      const int64_t blocks = by_rows ? (n + kBlock - 1) / kBlock : (m + kBlock - 1) / kBlock;
      parallel_for(0, blocks, 1, [&](int64_t first, int64_t last) {
        for (int64_t blk = first; blk < last; ++blk) {
          const int64_t lo = blk * kBlock;
          if (by_rows) {
            const int64_t rows = std::min(kBlock, n - lo);
            library_gemm<T>(rows, m, k, Mat<T>{a.data + lo * a.rs, a.rs, a.cs}, b, out + lo * ldc,
                            ldc);
          } else {
            const int64_t cols = std::min(kBlock, m - lo);
            library_gemm<T>(n, cols, k, a, Mat<T>{b.data + lo * b.cs, b.rs, b.cs}, out + lo, ldc);
          }
        }
      });
      return;
    }
  }
  naive_gemm(n, m, k, a, b, out);
}

void bmm_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t batch = out.sizes()[0], n = out.sizes()[1], m = out.sizes()[2];
  const int64_t k = a.sizes()[2];
  if (out.numel() == 0) return;
  sync_library_threads();
  dispatch_dtype<kNumericTypes | kComplexTypes>(out.dtype(), "matmul", [&]<class T>() {
    T* o = static_cast<T*>(out.data_ptr());
    if (k == 0) {
      std::fill(o, o + out.numel(), T(0));
      return;
    }
    const T* pa = static_cast<const T*>(a.data_ptr());
    const T* pb = static_cast<const T*>(b.data_ptr());
    const auto sa = a.strides(), sb = b.strides();
    auto one = [&](int64_t i) {
      gemm<T>(n, m, k, Mat<T>{pa + i * sa[0], sa[1], sa[2]}, Mat<T>{pb + i * sb[0], sb[1], sb[2]},
              o + i * n * m);
    };
    // Many small products: one per thread. Few large ones: each is cut into blocks (gemm).
    if (batch > 1 && n * m * k < (int64_t(1) << 18)) {
      parallel_for(0, batch, 1, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) one(i);
      });
    } else {
      for (int64_t i = 0; i < batch; ++i) one(i);
    }
  });
}

}  // namespace

void register_linalg(KernelTable& t) { t.linalg.bmm = &bmm_kernel; }

}  // namespace ember::cpu
