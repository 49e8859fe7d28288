// CPU kernels of the recurrent ops: the fused gate nonlinearity of one time step, forward and
// backward (kernels_nn_rnn.h), and the blocked products the time loops of ops/nn_rnn.cpp use.
//
// A cell step works row by row (one batch element per row, rows in parallel), each row in one
// vectorised pass (nn_rnn_simd.cpp): gate sums, nonlinearities and state update together.
#include "ember/backend/cpu/block_gemm.h"
#include "ember/backend/cpu/nn_rnn_simd.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_nn_rnn.h"
#include "ember/core/parallel.h"

namespace ember::cpu {

void register_nn_rnn_packed(RnnKernels& k);  // nn_rnn_packed.cpp

namespace {

// ---- products ----------------------------------------------------------------------------------

// Blocks of 256 rows and 512 columns (256 when there are at most 512): the recurrent products
// ([32, 512] x [512, 2048] per step, and [32, 2048] x [2048, 512] backward) then run as 4 and 2
// blocks, about 3% slower on one thread than one call, and split evenly on two.
constexpr int64_t kRowBlock = 256;

}  // namespace

int64_t rnn_col_block(int64_t m) { return m > 512 ? 512 : 256; }

namespace {
// Products below this many multiply-adds run as one call on the calling thread.
constexpr int64_t kSmallGemm = int64_t(1) << 18;

template <class T>
MatRef<T> mat(const Tensor& t) {
  return {static_cast<const T*>(t.data_ptr()), t.strides()[0], t.strides()[1]};
}

}  // namespace

void rnn_gemm(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  const int64_t n = out.sizes()[0], m = out.sizes()[1], k = a.sizes()[1];
  if (n == 0 || m == 0) return;
  EMBER_ASSERT(out.strides()[1] == 1 || m == 1);
  sync_library_threads();
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(out.dtype(), "rnn", [&]<class T>() {
    T* c = static_cast<T*>(out.data_ptr());
    const int64_t ldc = n == 1 ? std::max<int64_t>(m, 1) : out.strides()[0];
    const MatRef<T> ma = mat<T>(a), mb = mat<T>(b);
    const T beta = accumulate ? T(1) : T(0);
    const int64_t kColBlock = rnn_col_block(m);
    const int64_t rb = (n + kRowBlock - 1) / kRowBlock, cb = (m + kColBlock - 1) / kColBlock;
    if (n * m * k <= kSmallGemm || rb * cb == 1) {
      SingleThreadLibraries single;
      block_gemm<T>(n, m, k, ma, mb, beta, c, ldc);
      return;
    }
    // Fixed blocks (not a function of the thread count): the same bits on any number of threads.
    parallel_for(0, rb * cb, 1, [&](int64_t first, int64_t last) {
      SingleThreadLibraries single;
      for (int64_t blk = first; blk < last; ++blk) {
        const int64_t r0 = (blk / cb) * kRowBlock, c0 = (blk % cb) * kColBlock;
        const int64_t rows = std::min(kRowBlock, n - r0), cols = std::min(kColBlock, m - c0);
        block_gemm<T>(rows, cols, k, MatRef<T>{ma.p + r0 * ma.rs, ma.rs, ma.cs},
                      MatRef<T>{mb.p + c0 * mb.cs, mb.rs, mb.cs}, beta, c + r0 * ldc + c0, ldc);
      }
    });
  });
}

namespace {

// ---- one cell step -----------------------------------------------------------------------------

// A row tensor's element (r, 0), or null for an undefined tensor.
template <class T>
T* row(const Tensor& t, int64_t r) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) + r * t.strides()[0] : nullptr;
}

template <class T>
const T* vec(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// Rows per parallel chunk: about 16k gate values.
int64_t row_grain(int64_t width) {
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(width, 1));
}

template <class T>
void cell_forward_typed(RnnMode mode, const RnnCellForward& a) {
  const int64_t batch = a.hy.sizes()[0], H = a.hy.sizes()[1];
  const auto fn = rnn_simd::fns<T>().cell_forward[int(mode)];
  parallel_for(0, batch, row_grain(rnn_gates(mode) * H), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      rnn_simd::CellRow<T> r;
      r.H = H;
      r.xg = row<T>(a.igates, b);
      r.hg = row<T>(a.hgates, b);
      r.ib = vec<T>(a.ibias);
      r.hb = vec<T>(a.hbias);
      r.hx = row<T>(a.hx, b);
      r.cx = row<T>(a.cx, b);
      r.hy = row<T>(a.hy, b);
      r.cy = row<T>(a.cy, b);
      r.ws = row<T>(a.ws, b);
      fn(r);
    }
  });
}

template <class T>
void cell_backward_typed(RnnMode mode, const RnnCellBackward& a) {
  const int64_t batch = a.d_igates.sizes()[0], G = rnn_gates(mode);
  const int64_t H = a.d_igates.sizes()[1] / G;
  const auto fn = rnn_simd::fns<T>().cell_backward[int(mode)];
  parallel_for(0, batch, row_grain(G * H), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      rnn_simd::CellRow<T> r;
      r.H = H;
      r.g0 = row<T>(a.g0, b);
      r.g1 = row<T>(a.g1, b);
      r.g2 = row<T>(a.g2, b);
      r.dcy = row<T>(a.grad_cy, b);
      r.ws = row<T>(a.ws, b);
      r.hx = row<T>(a.hx, b);
      r.cx = row<T>(a.cx, b);
      r.cy = row<T>(a.cy, b);
      r.hy = row<T>(a.hy, b);
      r.dgi = row<T>(a.d_igates, b);
      r.dgh = row<T>(a.d_hgates, b);
      r.dcx = row<T>(a.grad_cx, b);
      r.dhx = row<T>(a.grad_hx, b);
      fn(r);
    }
  });
}

void cell_forward_kernel(RnnMode mode, const RnnCellForward& a) {
  if (a.hy.numel() == 0) return;
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(a.hy.dtype(), "rnn",
                                                [&]<class T>() { cell_forward_typed<T>(mode, a); });
}

void cell_backward_kernel(RnnMode mode, const RnnCellBackward& a) {
  if (a.d_igates.numel() == 0) return;
  dispatch_dtype<DTypeSet(kFloat32) | kFloat64>(
      a.d_igates.dtype(), "rnn", [&]<class T>() { cell_backward_typed<T>(mode, a); });
}

RnnKernels make_kernels() {
  RnnKernels k;
  k.gemm = &rnn_gemm;
  register_nn_rnn_packed(k);
  k.cell_forward = &cell_forward_kernel;
  k.cell_backward = &cell_backward_kernel;
  return k;
}

}  // namespace

void register_nn_rnn(KernelTable& t) {
  static const RnnKernels kernels = make_kernels();
  t.nn_rnn = &kernels;
}

}  // namespace ember::cpu
