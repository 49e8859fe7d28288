// The recurrent product with prepared weights (kernels_nn_rnn.h, PackWeights / PackedGemm): for
// float32, the weights are reordered once per layer call into oneDNN's blocked layout and each
// time step runs oneDNN's matmul primitive on them (brgemm on AVX-512): measured 254 us for
// [32, 512] x [512, 2048] on one thread, against 292 us for sgemm, which repacks the weights on
// every call. Other dtypes, and products whose operand strides differ from the prepared ones,
// take the plain blocked products (gemm_kernel).
//
// Determinism: the columns are cut into the same fixed blocks as gemm_kernel, one primitive per
// block, created and run single-threaded (its blocking does not depend on the thread count),
// and the blocks run in parallel: each output element is summed by one call in one order.
#include <dnnl.hpp>

#include <memory>
#include <vector>

#include "ember/backend/cpu/block_gemm.h"
#include "ember/backend/kernels_nn_rnn.h"
#include "ember/core/allocator.h"
#include "ember/core/parallel.h"

namespace ember::cpu {

// nn_rnn.cpp
void rnn_gemm(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate);
int64_t rnn_col_block(int64_t m);

namespace {

dnnl::engine& cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// Memory from ember's caching allocator: oneDNN's own would be a fresh mmap (and page faults)
// for every layer call.
struct CachedBytes {
  void* p = nullptr;
  size_t n = 0;
  explicit CachedBytes(size_t bytes) : p(cpu_allocator().allocate(bytes)), n(bytes) {}
  ~CachedBytes() { cpu_allocator().deallocate(p, n); }
  CachedBytes(const CachedBytes&) = delete;
  CachedBytes& operator=(const CachedBytes&) = delete;
};

struct Block {
  dnnl::matmul prim;
  std::unique_ptr<CachedBytes> storage;  // the packed weights
  dnnl::memory weights, src, dst;
  int64_t n0 = 0;
};

class Packed final : public RnnPackedWeights {
 public:
  bool prepared() const override { return !blocks.empty(); }
  Tensor b;                         // the weights as given, for the fallback
  int64_t m = 0, lda = 0, ldc = 0;  // the operands the primitives were made for
  bool accumulate = false;
  std::vector<Block> blocks;  // empty: no primitives (float64, or oneDNN refused)
};

using dt = dnnl::memory::data_type;

std::unique_ptr<RnnPackedWeights> pack_weights(
    const Tensor& b, int64_t m, int64_t lda, int64_t ldc, bool accumulate) {
  auto p = std::make_unique<Packed>();
  p->b = b;
  p->m = m;
  p->lda = lda;
  p->ldc = ldc;
  p->accumulate = accumulate;
  const int64_t k = b.sizes()[0], n = b.sizes()[1];
  // Small products: creating the primitives (tens of microseconds each) would cost more than
  // repacking saves.
  if (b.dtype() != kFloat32 || m == 0 || m * k * n < (int64_t(1) << 18)) return p;
  std::vector<dnnl::reorder> reorders;
  std::vector<dnnl::memory> users;
  try {
    SingleThreadLibraries single;  // primitives configured for one thread, whatever the count
    const int64_t nb = rnn_col_block(n);
    for (int64_t n0 = 0; n0 < n; n0 += nb) {
      const int64_t cols = std::min(nb, n - n0);
      const dnnl::memory::desc a_md({m, k}, dt::f32, dnnl::memory::dims{lda, 1});
      const dnnl::memory::desc w_any({k, cols}, dt::f32, dnnl::memory::format_tag::any);
      const dnnl::memory::desc c_md({m, cols}, dt::f32, dnnl::memory::dims{ldc, 1});
      dnnl::primitive_attr attr;
      if (accumulate) {  // out += a @ b
        dnnl::post_ops ops;
        ops.append_sum(1.0f);
        attr.set_post_ops(ops);
      }
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_any, c_md), attr,
                                            cpu_engine());
      Block blk;
      blk.prim = dnnl::matmul(pd);
      blk.n0 = n0;
      blk.storage = std::make_unique<CachedBytes>(pd.weights_desc().get_size());
      blk.weights = dnnl::memory(pd.weights_desc(), cpu_engine(), blk.storage->p);
      const dnnl::memory::desc user_md({k, cols}, dt::f32,
                                       dnnl::memory::dims{b.strides()[0], b.strides()[1]});
      users.emplace_back(user_md, cpu_engine(),
                         static_cast<float*>(b.data_ptr()) + n0 * b.strides()[1]);
      reorders.emplace_back(users.back(), blk.weights);
      blk.src = dnnl::memory(a_md, cpu_engine(), DNNL_MEMORY_NONE);
      blk.dst = dnnl::memory(c_md, cpu_engine(), DNNL_MEMORY_NONE);
      p->blocks.push_back(std::move(blk));
    }
  } catch (const dnnl::error&) {
    p->blocks.clear();  // the plain products below
    return p;
  }
  // The reorders (the weights' copy into the blocked layout), one block per thread.
  parallel_for(0, int64_t(reorders.size()), 1, [&](int64_t b0, int64_t b1) {
    SingleThreadLibraries single;
    thread_local dnnl::stream s(cpu_engine());
    for (int64_t i = b0; i < b1; ++i) {
      reorders[size_t(i)].execute(s, users[size_t(i)], p->blocks[size_t(i)].weights);
    }
    s.wait();
  });
  return p;
}

void packed_gemm(const RnnPackedWeights& w, const Tensor& out, const Tensor& a) {
  const Packed& p = static_cast<const Packed&>(w);
  const bool fits = !p.blocks.empty() && a.sizes()[0] == p.m && a.strides()[1] == 1 &&
                    (a.strides()[0] == p.lda || p.m == 1) && out.strides()[1] == 1 &&
                    (out.strides()[0] == p.ldc || p.m == 1);
  if (!fits) {
    rnn_gemm(out, a, p.b, p.accumulate);
    return;
  }
  sync_library_threads();
  float* c = static_cast<float*>(out.data_ptr());
  float* src = static_cast<float*>(a.data_ptr());
  const int64_t nblocks = int64_t(p.blocks.size());
  parallel_for(0, nblocks, 1, [&](int64_t b0, int64_t b1) {
    SingleThreadLibraries single;
    thread_local dnnl::stream s(cpu_engine());  // streams are not shared between threads
    for (int64_t i = b0; i < b1; ++i) {
      const Block& blk = p.blocks[size_t(i)];
      // Each block has its own memory objects, and each block runs on one thread.
      blk.src.set_data_handle(src, s);
      blk.dst.set_data_handle(c + blk.n0, s);
      dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, blk.src.get()},
                                 {DNNL_ARG_WEIGHTS, blk.weights.get()},
                                 {DNNL_ARG_DST, blk.dst.get()}};
      const dnnl_status_t st = dnnl_primitive_execute(blk.prim.get(), s.get(), 3, args);
      EMBER_CHECK(st == dnnl_success, "[rnn] oneDNN matmul failed with status ", int(st));
    }
    s.wait();
  });
}

}  // namespace

void register_nn_rnn_packed(RnnKernels& k) {
  k.pack_weights = &pack_weights;
  k.packed_gemm = &packed_gemm;
}

}  // namespace ember::cpu
