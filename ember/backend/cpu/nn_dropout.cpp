// CPU kernel of the dropout ops: the mask drawn and applied in one pass. The vectorised loops
// (Philox and the masked multiply-add) are in nn_norm_simd.cpp, beside the norms' loops, so that
// one file holds the Highway per-target code of the normalisation layers.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/nn_norm_simd.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_nn_dropout.h"
#include "ember/core/parallel.h"

namespace ember::cpu {
namespace {

// Elements of work per task (as the norm kernels'); groups of 64 elements are the unit.
constexpr int64_t kGrain = 32768;

// Note [Dropout mask]
// Element i (in memory order) of a dropout call belongs to group q = i / 64 and takes word j of
// Philox block (counter + 16 * q + l), where i % 64 = 16 * j + l: 64 elements from 16 blocks, laid
// out so that 16 consecutive elements are the same word of 16 blocks (one vector on AVX-512,
// two on AVX2, whatever the SIMD target). The element is kept when its 32-bit word is below
// threshold = round((1 - p) * 2^32). The mask depends only on the seed, the counter and i, so
// the backward regenerates it instead of storing it, and no thread count changes it.
void dropout_kernel(const Tensor& out,
                    const Tensor& in,
                    uint64_t key,
                    uint64_t counter,
                    uint32_t threshold,
                    double mul,
                    double add_kept,
                    double add_dropped) {
  const int64_t n = in.numel();
  const int64_t groups = (n + 63) / 64;
  dispatch_dtype<kFloatingTypes>(in.dtype(), "dropout", [&]<class T>() {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    parallel_for(0, groups, kGrain / 64, [&](int64_t q0, int64_t q1) {
      const int64_t begin = q0 * 64, len = std::min(n, q1 * 64) - begin;
      const uint64_t ctr = counter + 16 * uint64_t(q0);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        norm_simd::loops<T>().dropout(x + begin, y + begin, len, key, ctr, threshold, T(mul),
                                      T(add_kept), T(add_dropped));
      } else {
        using A = opmath_t<T>;
        const A m = A(mul), ak = A(add_kept), ad = A(add_dropped);
        uint32_t w[64];
        for (int64_t s = 0; s < len; s += 64) {
          norm_simd::table().philox_group(key, ctr + uint64_t(s / 4), w);
          for (int64_t i = 0; i < std::min<int64_t>(64, len - s); ++i) {
            const bool kept = w[i] < threshold;
            y[begin + s + i] = T(A(x[begin + s + i]) * (kept ? m : A(0)) + (kept ? ak : ad));
          }
        }
      }
    });
  });
}

const DropoutKernels kDropoutKernels{&dropout_kernel};

}  // namespace

void register_nn_dropout(KernelTable& t) { t.nn_dropout = &kDropoutKernels; }

}  // namespace ember::cpu
