// CPU kernels of the factorisations (kernels_linalg_factor.h): LAPACK from OpenBLAS, which ships
// the reference LAPACK routines with its own faster getrf and potrf, and oneMKL's symmetric
// eigensolver where oneMKL is installed (docs/design/linalg.md says why LAPACK and why these). Each
// matrix of a batch is one LAPACK call on the tensor's memory, which the ops lay out column by
// column, as LAPACK wants it.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <complex>
#include <vector>

#include "ember/backend/cpu/mkl.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_linalg_factor.h"
#include "ember/core/parallel.h"

// LAPACK's Fortran entry points (OpenBLAS exports them; Debian ships no header for them with
// OpenBLAS). Character arguments are single letters, so the hidden length arguments that
// gfortran appends are not needed by these routines and are left out, as PyTorch and NumPy do.
// Fortran's COMPLEX and COMPLEX*16 are std::complex's layout (two reals, real part first).
// Each routine is declared once per type prefix: s (float), d (double), c (complex<float>) and
// z (complex<double>); R is the real type of a complex T.
#define EMBER_LAPACK_DECLARE(p, T)                                                                \
  void p##getrf_(int* m, int* n, T* a, int* lda, int* ipiv, int* info);                           \
  void p##getrs_(const char* trans, int* n, int* nrhs, T* a, int* lda, int* ipiv, T* b, int* ldb, \
                 int* info);                                                                      \
  void p##potrf_(const char* uplo, int* n, T* a, int* lda, int* info);                            \
  void p##geqrf_(int* m, int* n, T* a, int* lda, T* tau, T* work, int* lwork, int* info);         \
  void p##sytrf_(const char* uplo, int* n, T* a, int* lda, int* ipiv, T* work, int* lwork,        \
                 int* info);                                                                      \
  void p##sytrs_(const char* uplo, int* n, int* nrhs, T* a, int* lda, int* ipiv, T* b, int* ldb,  \
                 int* info);
extern "C" {
EMBER_LAPACK_DECLARE(s, float)
EMBER_LAPACK_DECLARE(d, double)
EMBER_LAPACK_DECLARE(c, std::complex<float>)
EMBER_LAPACK_DECLARE(z, std::complex<double>)
#undef EMBER_LAPACK_DECLARE

// The routines whose real and complex forms differ: orthogonal (real) and unitary (complex) Q,
// symmetric and Hermitian eigensolvers and LDL, and the complex ones' real workspaces.
#define EMBER_LAPACK_DECLARE_REAL(p, T)                                                            \
  void p##orgqr_(int* m, int* n, int* k, T* a, int* lda, T* tau, T* work, int* lwork, int* info);  \
  void p##syevd_(const char* jobz, const char* uplo, int* n, T* a, int* lda, T* w, T* work,        \
                 int* lwork, int* iwork, int* liwork, int* info);                                  \
  void p##gesdd_(const char* jobz, int* m, int* n, T* a, int* lda, T* s, T* u, int* ldu, T* vt,    \
                 int* ldvt, T* work, int* lwork, int* iwork, int* info);                           \
  void p##geev_(const char* jobvl, const char* jobvr, int* n, T* a, int* lda, T* wr, T* wi, T* vl, \
                int* ldvl, T* vr, int* ldvr, T* work, int* lwork, int* info);
#define EMBER_LAPACK_DECLARE_COMPLEX(p, T, R)                                                     \
  void p##ungqr_(int* m, int* n, int* k, T* a, int* lda, T* tau, T* work, int* lwork, int* info); \
  void p##heevd_(const char* jobz, const char* uplo, int* n, T* a, int* lda, R* w, T* work,       \
                 int* lwork, R* rwork, int* lrwork, int* iwork, int* liwork, int* info);          \
  void p##gesdd_(const char* jobz, int* m, int* n, T* a, int* lda, R* s, T* u, int* ldu, T* vt,   \
                 int* ldvt, T* work, int* lwork, R* rwork, int* iwork, int* info);                \
  void p##geev_(const char* jobvl, const char* jobvr, int* n, T* a, int* lda, T* w, T* vl,        \
                int* ldvl, T* vr, int* ldvr, T* work, int* lwork, R* rwork, int* info);           \
  void p##hetrf_(const char* uplo, int* n, T* a, int* lda, int* ipiv, T* work, int* lwork,        \
                 int* info);                                                                      \
  void p##hetrs_(const char* uplo, int* n, int* nrhs, T* a, int* lda, int* ipiv, T* b, int* ldb,  \
                 int* info);
EMBER_LAPACK_DECLARE_REAL(s, float)
EMBER_LAPACK_DECLARE_REAL(d, double)
EMBER_LAPACK_DECLARE_COMPLEX(c, std::complex<float>, float)
EMBER_LAPACK_DECLARE_COMPLEX(z, std::complex<double>, double)
#undef EMBER_LAPACK_DECLARE_REAL
#undef EMBER_LAPACK_DECLARE_COMPLEX
}

namespace ember::cpu {
namespace {

constexpr DTypeSet kLapackTypes = DTypeSet(kFloat32) | kFloat64 | kComplex64 | kComplex128;

// The real type of a scalar: T itself, or the type of a complex T's parts.
template <class T>
struct RealOf {
  using type = T;
};
template <class T>
struct RealOf<std::complex<T>> {
  using type = T;
};
template <class T>
using real_of = typename RealOf<T>::type;

// oneMKL's symmetric eigensolver for matrices below kMklEighBelow when its runtime is there
// (backend/cpu/mkl.h; the FFT needs it, and pip's `mkl` is installed with ember), reference
// LAPACK's from OpenBLAS otherwise. On this machine, one thread, float64, MKL's dsyevd took 0.071
// against 0.123 ms at n = 32, 0.32 against 0.39 at 64 and 1.5 against 1.9 at 128, but 2.37
// against 2.24 at 160, 9.3 against 7.6 at 256 and 332 against 275 at 1024: OpenBLAS's BLAS wins
// once the tridiagonal reduction's products dominate. The other routines stay OpenBLAS's, which
// matched or beat MKL's (PyTorch's) in benchmarks/linalg.py. Looked up once per routine.
constexpr int kMklEighBelow = 150;

template <auto Fallback>
auto mkl_or(const char* name) {
  using F = decltype(Fallback);
  static const F fn = [name] {
    void* p = mkl_symbol(name);
    return p ? reinterpret_cast<F>(p) : Fallback;
  }();
  return fn;
}

// The routines of one scalar type, so that each kernel below is written once for the four. Where
// the real and complex routines differ (orgqr / ungqr, syevd / heevd, the complex ones' real
// workspace rwork), a wrapper gives both one signature; the real forms ignore rwork.
template <class T>
struct Lapack;

#define EMBER_LAPACK_COMMON(p)             \
  static constexpr auto getrf = p##getrf_; \
  static constexpr auto getrs = p##getrs_; \
  static constexpr auto potrf = p##potrf_; \
  static constexpr auto geqrf = p##geqrf_;

#define EMBER_LAPACK_REAL(p, T)                                                                    \
  EMBER_LAPACK_COMMON(p)                                                                           \
  static constexpr auto orgqr = p##orgqr_;                                                         \
  static constexpr auto geev_real = p##geev_;                                                      \
  static void heevd(bool mkl, const char* jobz, const char* uplo, int* n, T* a, int* lda, T* w,    \
                    T* work, int* lwork, T* rwork, int* lrwork, int* iwork, int* liwork,           \
                    int* info) {                                                                   \
    if (*lrwork == -1) *rwork = T(1);                                                              \
    (mkl ? mkl_or<p##syevd_>(#p "syevd_") : p##syevd_)(jobz, uplo, n, a, lda, w, work, lwork,      \
                                                       iwork, liwork, info);                       \
  }                                                                                                \
  static void gesdd(const char* jobz, int* m, int* n, T* a, int* lda, T* s, T* u, int* ldu, T* vt, \
                    int* ldvt, T* work, int* lwork, T*, int* iwork, int* info) {                   \
    p##gesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info);                  \
  }                                                                                                \
  static void sytrf(bool, const char* uplo, int* n, T* a, int* lda, int* ipiv, T* work,            \
                    int* lwork, int* info) {                                                       \
    p##sytrf_(uplo, n, a, lda, ipiv, work, lwork, info);                                           \
  }                                                                                                \
  static void sytrs(bool, const char* uplo, int* n, int* nrhs, T* a, int* lda, int* ipiv, T* b,    \
                    int* ldb, int* info) {                                                         \
    p##sytrs_(uplo, n, nrhs, a, lda, ipiv, b, ldb, info);                                          \
  }                                                                                                \
  static void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, CBLAS_DIAG diag,       \
                   int m, int n, const T* a, int lda, T* b, int ldb) {                             \
    cblas_##p##trsm(CblasColMajor, side, uplo, trans, diag, m, n, T(1), a, lda, b, ldb);           \
  }

#define EMBER_LAPACK_COMPLEX(p, T, R)                                                             \
  EMBER_LAPACK_COMMON(p)                                                                          \
  static constexpr auto orgqr = p##ungqr_;                                                        \
  static void heevd(bool mkl, const char* jobz, const char* uplo, int* n, T* a, int* lda, R* w,   \
                    T* work, int* lwork, R* rwork, int* lrwork, int* iwork, int* liwork,          \
                    int* info) {                                                                  \
    (mkl ? mkl_or<p##heevd_>(#p "heevd_") : p##heevd_)(jobz, uplo, n, a, lda, w, work, lwork,     \
                                                       rwork, lrwork, iwork, liwork, info);       \
  }                                                                                               \
  static constexpr auto gesdd = p##gesdd_;                                                        \
  static constexpr auto geev = p##geev_;                                                          \
  /* Complex symmetric (hermitian = false) or Hermitian LDL, as PyTorch's `hermitian` flag. */    \
  static void sytrf(bool hermitian, const char* uplo, int* n, T* a, int* lda, int* ipiv, T* work, \
                    int* lwork, int* info) {                                                      \
    (hermitian ? p##hetrf_ : p##sytrf_)(uplo, n, a, lda, ipiv, work, lwork, info);                \
  }                                                                                               \
  static void sytrs(bool hermitian, const char* uplo, int* n, int* nrhs, T* a, int* lda,          \
                    int* ipiv, T* b, int* ldb, int* info) {                                       \
    (hermitian ? p##hetrs_ : p##sytrs_)(uplo, n, nrhs, a, lda, ipiv, b, ldb, info);               \
  }                                                                                               \
  static void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, CBLAS_DIAG diag,      \
                   int m, int n, const T* a, int lda, T* b, int ldb) {                            \
    const T one(1);                                                                               \
    cblas_##p##trsm(CblasColMajor, side, uplo, trans, diag, m, n, &one, a, lda, b, ldb);          \
  }

template <>
struct Lapack<float> {
  EMBER_LAPACK_REAL(s, float)
};
template <>
struct Lapack<double> {
  EMBER_LAPACK_REAL(d, double)
};
template <>
struct Lapack<std::complex<float>> {
  EMBER_LAPACK_COMPLEX(c, std::complex<float>, float)
};
template <>
struct Lapack<std::complex<double>> {
  EMBER_LAPACK_COMPLEX(z, std::complex<double>, double)
};
#undef EMBER_LAPACK_COMMON
#undef EMBER_LAPACK_REAL
#undef EMBER_LAPACK_COMPLEX

// A [B, rows, cols] batch: matrix i's data, its leading dimension, its size.
template <class T>
struct Batch {
  T* data;
  int rows, cols;
  int64_t stride;
  explicit Batch(const Tensor& t)
      : data(static_cast<T*>(t.data_ptr())),
        rows(int(t.sizes()[1])),
        cols(int(t.sizes()[2])),
        stride(t.sizes()[1] * t.sizes()[2]) {}
  T* operator[](int64_t i) const { return data + i * stride; }
  int ld() const { return std::max(rows, 1); }
};

int* int_data(const Tensor& t) { return static_cast<int*>(t.data_ptr()); }

// One matrix smaller than this runs LAPACK on one thread: waking a second costs more than it
// saves. On 2 cores LU and Cholesky gain from threads from n = 128 on, but the eigensolvers and
// the SVD (OpenBLAS's threaded BLAS inside reference LAPACK) lose up to n = 256: eigh of a 64 x 64
// matrix took 0.38 ms on one thread and 0.47 ms on two, the SVD of a 256 x 256 one 14.5 ms and
// 24.6 ms.
constexpr int64_t kThreadedFactor = 128;
constexpr int64_t kThreadedEigen = 512;

// The calling thread's OpenMP thread count, which OpenBLAS reads at each call, for a scope.
struct LapackThreads {
  explicit LapackThreads(int n) { omp_set_num_threads(n); }
  ~LapackThreads() { omp_set_num_threads(get_num_threads()); }
  LapackThreads(const LapackThreads&) = delete;
  LapackThreads& operator=(const LapackThreads&) = delete;
};

// Calls body(begin, end) over the matrices [0, count) of a batch of size x size ones. Several
// matrices are spread over ember's threads, each LAPACK call then on one thread (OpenBLAS runs
// single-threaded inside a parallel region), as PyTorch's batched kernels do; a single matrix
// gets LAPACK's own threads unless it is small. A body allocates its workspace per call, so the
// chunks share nothing.
template <class F>
void for_each_matrix(int64_t count,
                     int64_t size,
                     const F& body,
                     int64_t threaded = kThreadedFactor) {
  if (count > 1) {
    parallel_for(0, count, 1, body);
    return;
  }
  LapackThreads threads(size < threaded ? 1 : get_num_threads());
  body(0, count);
}

// LAPACK's workspace query: the routine called with lwork = -1 writes the size it wants.
template <class T>
int workspace(T w) {
  return std::max(1, int(std::real(w)));
}

void lu_factor_kernel(const Tensor& a, const Tensor& pivots, const Tensor& info) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.lu_factor", [&]<class T>() {
    Batch<T> A(a);
    const int k = std::min(A.rows, A.cols);
    for_each_matrix(a.sizes()[0], A.cols, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int m = A.rows, n = A.cols, lda = A.ld();
        int* piv = int_data(pivots) + i * k;
        if (m == 0 || n == 0) {
          int_data(info)[i] = 0;
          continue;
        }
        Lapack<T>::getrf(&m, &n, A[i], &lda, piv, int_data(info) + i);
      }
    });
  });
}

void lu_solve_kernel(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool trans) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(lu.dtype(), "linalg.lu_solve", [&]<class T>() {
    Batch<T> A(lu), X(b);
    if (A.rows == 0 || X.cols == 0) return;
    for_each_matrix(b.sizes()[0], A.rows, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int n = A.rows, k = X.cols, lda = A.ld(), ldb = X.ld(), info = 0;
        Lapack<T>::getrs(trans ? "C" : "N", &n, &k, A[i], &lda, int_data(pivots) + i * n, X[i],
                         &ldb, &info);
      }
    });
  });
}

void cholesky_kernel(const Tensor& a, bool upper, const Tensor& info) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.cholesky", [&]<class T>() {
    Batch<T> A(a);
    const int n = A.rows;
    for_each_matrix(a.sizes()[0], n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int nn = n, lda = A.ld();
        int_data(info)[i] = 0;
        if (n == 0) continue;
        Lapack<T>::potrf(upper ? "U" : "L", &nn, A[i], &lda, int_data(info) + i);
        // potrf leaves the other triangle as it was: clear it, so the result is L (or U) alone.
        T* m = A[i];
        for (int c = 0; c < n; ++c) {
          for (int r = 0; r < n; ++r) {
            if (upper ? r > c : r < c) m[r + int64_t(c) * n] = T(0);
          }
        }
      }
    });
  });
}

void triangular_solve_kernel(
    const Tensor& a, const Tensor& b, bool upper, bool left, bool trans, bool unit) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.solve_triangular", [&]<class T>() {
    Batch<T> A(a), X(b);
    if (X.rows == 0 || X.cols == 0) return;
    for_each_matrix(b.sizes()[0], A.rows, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        Lapack<T>::trsm(left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                        trans ? CblasConjTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
                        X.rows, X.cols, A[i], A.ld(), X[i], X.ld());
      }
    });
  });
}

void geqrf_kernel(const Tensor& a, const Tensor& tau) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.qr", [&]<class T>() {
    Batch<T> A(a);
    const int k = std::min(A.rows, A.cols);
    if (k == 0) return;
    int m = A.rows, n = A.cols, lda = A.ld(), lwork = -1, info = 0;
    T query{};
    Lapack<T>::geqrf(&m, &n, A[0], &lda, static_cast<T*>(tau.data_ptr()), &query, &lwork, &info);
    lwork = workspace(query);
    for_each_matrix(a.sizes()[0], n, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(lwork));
      int status = 0;
      for (int64_t i = begin; i < end; ++i) {
        Lapack<T>::geqrf(&m, &n, A[i], &lda, static_cast<T*>(tau.data_ptr()) + i * k, work.data(),
                         &lwork, &status);
      }
    });
  });
}

void orgqr_kernel(const Tensor& a, const Tensor& tau) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.householder_product", [&]<class T>() {
    Batch<T> A(a);
    int m = A.rows, n = A.cols, k = int(tau.sizes()[1]), lda = A.ld(), lwork = -1, info = 0;
    if (m == 0 || n == 0) return;
    T query{};
    Lapack<T>::orgqr(&m, &n, &k, A[0], &lda, static_cast<T*>(tau.data_ptr()), &query, &lwork,
                     &info);
    lwork = workspace(query);
    for_each_matrix(a.sizes()[0], n, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(lwork));
      int status = 0;
      for (int64_t i = begin; i < end; ++i) {
        Lapack<T>::orgqr(&m, &n, &k, A[i], &lda, static_cast<T*>(tau.data_ptr()) + i * k,
                         work.data(), &lwork, &status);
      }
    });
  });
}

void eigh_kernel(const Tensor& a, const Tensor& w, bool upper, bool vectors, const Tensor& info) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.eigh", [&]<class T>() {
    using R = real_of<T>;
    Batch<T> A(a);
    int n = A.rows, lda = A.ld(), lwork = -1, lrwork = -1, liwork = -1;
    if (n == 0) {
      std::fill(int_data(info), int_data(info) + a.sizes()[0], 0);
      return;
    }
    const char* jobz = vectors ? "V" : "N";
    const char* uplo = upper ? "U" : "L";
    R* W = static_cast<R*>(w.data_ptr());
    T query{};
    R rquery{};
    int iquery = 0;
    // The same routine for the workspace query and the calls: MKL's may want another size.
    const bool mkl = n < kMklEighBelow;
    Lapack<T>::heevd(mkl, jobz, uplo, &n, A[0], &lda, W, &query, &lwork, &rquery, &lrwork, &iquery,
                     &liwork, int_data(info));
    lwork = workspace(query);
    lrwork = workspace(rquery);
    liwork = std::max(1, iquery);
    for_each_matrix(
        a.sizes()[0], n,
        [&](int64_t begin, int64_t end) {
          std::vector<T> work(static_cast<size_t>(lwork));
          std::vector<R> rwork(static_cast<size_t>(lrwork));
          std::vector<int> iwork(static_cast<size_t>(liwork));
          for (int64_t i = begin; i < end; ++i) {
            Lapack<T>::heevd(mkl, jobz, uplo, &n, A[i], &lda, W + i * n, work.data(), &lwork,
                             rwork.data(), &lrwork, iwork.data(), &liwork, int_data(info) + i);
          }
        },
        kThreadedEigen);
  });
}

void svd_kernel(const Tensor& a,
                const Tensor& s,
                const Tensor& u,
                const Tensor& vh,
                bool full,
                bool vectors,
                const Tensor& info) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.svd", [&]<class T>() {
    using R = real_of<T>;
    Batch<T> A(a);
    int m = A.rows, n = A.cols, lda = A.ld();
    const int k = std::min(m, n);
    if (k == 0) {
      std::fill(int_data(info), int_data(info) + a.sizes()[0], 0);
      return;
    }
    const char* jobz = !vectors ? "N" : full ? "A" : "S";
    // Without vectors LAPACK still wants valid leading dimensions and pointers.
    T dummy{};
    const int ucols = vectors ? int(u.sizes()[2]) : 1;
    const int vrows = vectors ? int(vh.sizes()[1]) : 1;
    int ldu = vectors ? std::max(m, 1) : 1, ldvt = vectors ? std::max(vrows, 1) : 1;
    const int64_t ustride = int64_t(m) * ucols, vstride = int64_t(vrows) * n;
    T* U = vectors ? static_cast<T*>(u.data_ptr()) : &dummy;
    T* VT = vectors ? static_cast<T*>(vh.data_ptr()) : &dummy;
    R* S = static_cast<R*>(s.data_ptr());
    // The complex routine's real workspace, as LAPACK 3.7's documentation sizes it (the real
    // routine has none).
    const size_t mx = size_t(std::max(m, n)), mn = size_t(k);
    const size_t lrwork = !is_std_complex<T> ? 1
                          : vectors ? std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn)
                                    : 7 * mn;
    int lwork = -1;
    T query{};
    {
      std::vector<int> iwork(8 * mn);
      std::vector<R> rwork(lrwork);
      Lapack<T>::gesdd(jobz, &m, &n, A[0], &lda, S, U, &ldu, VT, &ldvt, &query, &lwork,
                       rwork.data(), iwork.data(), int_data(info));
    }
    lwork = workspace(query);
    for_each_matrix(
        a.sizes()[0], n,
        [&](int64_t begin, int64_t end) {
          std::vector<int> iwork(8 * mn);
          std::vector<R> rwork(lrwork);
          std::vector<T> work(static_cast<size_t>(lwork));
          T unused{};  // without vectors every matrix may share one dummy
          for (int64_t i = begin; i < end; ++i) {
            Lapack<T>::gesdd(jobz, &m, &n, A[i], &lda, S + i * k,
                             vectors ? U + i * ustride : &unused, &ldu,
                             vectors ? VT + i * vstride : &unused, &ldvt, work.data(), &lwork,
                             rwork.data(), iwork.data(), int_data(info) + i);
          }
        },
        kThreadedEigen);
  });
}

// geev of complex matrices: eigenvalues and right eigenvectors straight into w and v.
template <class T>
void eig_complex(
    const Tensor& a, const Tensor& w, const Tensor& v, bool vectors, const Tensor& info) {
  using R = real_of<T>;
  Batch<T> A(a);
  int n = A.rows, lda = A.ld(), one = 1, lwork = -1;
  if (n == 0) {
    std::fill(int_data(info), int_data(info) + a.sizes()[0], 0);
    return;
  }
  int ldvr = vectors ? n : 1;
  const char* jobvr = vectors ? "V" : "N";
  T* W = static_cast<T*>(w.data_ptr());
  T* V = vectors ? static_cast<T*>(v.data_ptr()) : nullptr;
  {
    std::vector<R> rwork(2 * size_t(n));
    T dummy{}, query{};
    Lapack<T>::geev("N", jobvr, &n, A[0], &lda, W, &dummy, &one, vectors ? V : &dummy, &ldvr,
                    &query, &lwork, rwork.data(), int_data(info));
    lwork = workspace(query);
  }
  for_each_matrix(
      a.sizes()[0], n,
      [&](int64_t begin, int64_t end) {
        std::vector<R> rwork(2 * size_t(n));
        std::vector<T> work(static_cast<size_t>(lwork));
        T dummy{};
        for (int64_t i = begin; i < end; ++i) {
          Lapack<T>::geev("N", jobvr, &n, A[i], &lda, W + i * n, &dummy, &one,
                          vectors ? V + i * int64_t(n) * n : &dummy, &ldvr, work.data(), &lwork,
                          rwork.data(), int_data(info) + i);
        }
      },
      kThreadedEigen);
}

void eig_kernel(
    const Tensor& a, const Tensor& w, const Tensor& v, bool vectors, const Tensor& info) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.eig", [&]<class T>() {
    if constexpr (is_std_complex<T>) {
      eig_complex<T>(a, w, v, vectors, info);
    } else {
      using C = std::complex<T>;
      Batch<T> A(a);
      int n = A.rows, lda = A.ld(), one = 1, lwork = -1;
      if (n == 0) {
        std::fill(int_data(info), int_data(info) + a.sizes()[0], 0);
        return;
      }
      const auto un = size_t(n);
      int ldvr = vectors ? n : 1;
      const char* jobvr = vectors ? "V" : "N";
      {
        std::vector<T> wr(un), wi(un), vr(vectors ? un * un : 1);
        T dummy{}, query{};
        Lapack<T>::geev_real("N", jobvr, &n, A[0], &lda, wr.data(), wi.data(), &dummy, &one,
                             vr.data(), &ldvr, &query, &lwork, int_data(info));
        lwork = workspace(query);
      }
      for_each_matrix(
          a.sizes()[0], n,
          [&](int64_t begin, int64_t end) {
            std::vector<T> wr(un), wi(un), vr(vectors ? un * un : 1),
                work(static_cast<size_t>(lwork));
            T dummy{};
            for (int64_t i = begin; i < end; ++i) {
              Lapack<T>::geev_real("N", jobvr, &n, A[i], &lda, wr.data(), wi.data(), &dummy, &one,
                                   vr.data(), &ldvr, work.data(), &lwork, int_data(info) + i);
              C* W = static_cast<C*>(w.data_ptr()) + i * n;
              for (size_t j = 0; j < un; ++j) W[j] = C(wr[j], wi[j]);
              if (!vectors) continue;
              // LAPACK stores a complex pair's vectors as two real columns, re and im, of the
              // eigenvalue with wi > 0; its partner's vector is the conjugate.
              C* V = static_cast<C*>(v.data_ptr()) + i * int64_t(un * un);
              for (size_t j = 0; j < un; ++j) {
                const T* re = vr.data() + j * un;
                if (wi[j] == T(0) || j + 1 == un) {
                  for (size_t r = 0; r < un; ++r) V[j * un + r] = C(re[r], 0);
                  continue;
                }
                const T* im = re + un;
                for (size_t r = 0; r < un; ++r) {
                  V[j * un + r] = C(re[r], im[r]);
                  V[(j + 1) * un + r] = C(re[r], -im[r]);
                }
                ++j;
              }
            }
          },
          kThreadedEigen);
    }
  });
}

void ldl_factor_kernel(const Tensor& a, const Tensor& pivots, bool hermitian, const Tensor& info) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(a.dtype(), "linalg.ldl_factor", [&]<class T>() {
    Batch<T> A(a);
    int n = A.rows, lda = A.ld(), lwork = -1;
    if (n == 0) {
      std::fill(int_data(info), int_data(info) + a.sizes()[0], 0);
      return;
    }
    T query{};
    Lapack<T>::sytrf(hermitian, "L", &n, A[0], &lda, int_data(pivots), &query, &lwork,
                     int_data(info));
    lwork = workspace(query);
    for_each_matrix(a.sizes()[0], n, [&](int64_t begin, int64_t end) {
      std::vector<T> work(static_cast<size_t>(lwork));
      for (int64_t i = begin; i < end; ++i) {
        Lapack<T>::sytrf(hermitian, "L", &n, A[i], &lda, int_data(pivots) + i * n, work.data(),
                         &lwork, int_data(info) + i);
        // sytrf leaves the upper triangle as it was; the compact LD has zeros there (PyTorch's).
        for (int j = 1; j < n; ++j)
          std::fill(A[i] + int64_t(j) * lda, A[i] + int64_t(j) * lda + j, T(0));
      }
    });
  });
}

void ldl_solve_kernel(const Tensor& ld, const Tensor& pivots, bool hermitian, const Tensor& b) {
  sync_library_threads();
  dispatch_dtype<kLapackTypes>(ld.dtype(), "linalg.ldl_solve", [&]<class T>() {
    Batch<T> A(ld), X(b);
    if (A.rows == 0 || X.cols == 0) return;
    int n = A.rows, nrhs = X.cols, lda = A.ld(), ldb = X.ld();
    for_each_matrix(ld.sizes()[0], n, [&](int64_t begin, int64_t end) {
      int info = 0;
      for (int64_t i = begin; i < end; ++i) {
        Lapack<T>::sytrs(hermitian, "L", &n, &nrhs, A[i], &lda, int_data(pivots) + i * n, X[i],
                         &ldb, &info);
      }
    });
  });
}

const LinalgFactorKernels kLinalgFactorKernels = {
    .lu_factor = &lu_factor_kernel,
    .lu_solve = &lu_solve_kernel,
    .cholesky = &cholesky_kernel,
    .triangular_solve = &triangular_solve_kernel,
    .geqrf = &geqrf_kernel,
    .orgqr = &orgqr_kernel,
    .eigh = &eigh_kernel,
    .svd = &svd_kernel,
    .eig = &eig_kernel,
    .ldl_factor = &ldl_factor_kernel,
    .ldl_solve = &ldl_solve_kernel,
};

}  // namespace

void register_linalg_factor(KernelTable& t) { t.linalg_factor = &kLinalgFactorKernels; }

}  // namespace ember::cpu
