// Shared by the CPU pooling and resampling kernels (nn_pool.cpp, nn_pool_avg.cpp,
// nn_resample.cpp): the windows of a pool along each dim, work splitting, PyTorch's max rule,
// and the kernels each file defines (registered together in nn_pool.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/kernels_nn_pool.h"
#include "ember/core/parallel.h"

// Function multi-versioning for the hot NHWC loops: AVX-512, AVX2 and baseline copies, chosen
// when the library loads (GCC on x86-64; one copy elsewhere and under AddressSanitizer).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_ADDRESS__)
#define EMBER_POOL_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EMBER_POOL_CLONES
#endif

namespace ember::cpu {

// ---- the kernels of the other files ------------------------------------------------------------

void avg_pool_kernel(const Tensor& out, const Tensor& in, const PoolShape& s, AvgDivisor avg);
void avg_pool_backward_kernel(const Tensor& grad_in,
                              const Tensor& grad_out,
                              const PoolShape& s,
                              AvgDivisor avg);

namespace pool {

// The windows of one spatial dim: window o covers first[o] + k * step for k < count[o], all
// inside the input; div[o] is its factor of the average's divisor.
struct DimWindows {
  std::vector<int64_t> first, count, div;
  int64_t step = 1;
};

inline DimWindows dim_windows(const PoolShape& s, int d, AvgDivisor avg) {
  DimWindows w;
  const int64_t n = s.out[d], in = s.in[d];
  w.first.resize(size_t(n));
  w.count.resize(size_t(n));
  w.div.resize(size_t(n));
  for (int64_t o = 0; o < n; ++o) {
    int64_t first, count, div;
    if (s.adaptive) {
      first = o * in / n;
      count = ((o + 1) * in + n - 1) / n - first;
      div = count;
    } else {
      const int64_t k = s.kernel[d], dil = s.dilation[d], start = o * s.stride[d] - s.pad[d];
      const int64_t k0 = start < 0 ? (-start + dil - 1) / dil : 0;
      const int64_t k1 = start >= in ? 0 : std::min(k, (in - start + dil - 1) / dil);
      first = start + k0 * dil;
      count = std::max<int64_t>(0, k1 - k0);
      // PyTorch's average pools (no dilation): the window clipped to the padded input.
      div = avg.count_include_pad ? std::min(start + k, in + s.pad[d]) - start : count;
    }
    w.first[size_t(o)] = first;
    w.count[size_t(o)] = count;
    w.div[size_t(o)] = div;
  }
  if (!s.adaptive) w.step = s.dilation[d];
  return w;
}

struct Windows {
  DimWindows d[3];
  explicit Windows(const PoolShape& s, AvgDivisor avg = {})
      : d{dim_windows(s, 0, avg), dim_windows(s, 1, avg), dim_windows(s, 2, avg)} {}
  // One past the last input position (flat in the plane) that output row (od, oh) reads: the
  // end of its last (d, h) row. Non-decreasing over rows in order, up to repeats.
  int64_t row_end(const PoolShape& s, int64_t od, int64_t oh) const {
    const DimWindows &wd = d[0], &wh = d[1];
    if (wd.count[size_t(od)] == 0 || wh.count[size_t(oh)] == 0) return 0;
    const int64_t ld = wd.first[size_t(od)] + (wd.count[size_t(od)] - 1) * wd.step;
    const int64_t lh = wh.first[size_t(oh)] + (wh.count[size_t(oh)] - 1) * wh.step;
    return (ld * s.in[1] + lh + 1) * s.in[2];
  }
};

// Work items of about kElementwiseGrain element visits per chunk.
inline int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, work_per_item));
}

// Channel blocks for the NHWC backward kernels: enough (n, block) items to share among the
// threads when the batch is small; a block is a multiple of 16 channels (whole cache lines).
// Each (n, block) is one thread's, so sums do not depend on the thread count.
inline int64_t channel_block(const PoolShape& s) {
  const int64_t threads = get_num_threads();
  if (s.batch >= threads || s.channels <= 16) return s.channels;
  const int64_t parts = (threads + s.batch - 1) / s.batch;
  const int64_t cb = (s.channels + parts - 1) / parts;
  return std::min(s.channels, (cb + 15) / 16 * 16);
}

template <class A>
inline bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return v != v;
  } else {
    return false;
  }
}

// PyTorch's max rule: a value replaces the running max when larger or NaN (so NaN propagates,
// and the last NaN wins). `|`, not `||`: no branch, so loops over it vectorise.
template <class A>
inline bool takes(A v, A m) {
  return (v > m) | is_nan(v);
}

template <class A>
constexpr A lowest() {
  if constexpr (std::numeric_limits<A>::has_infinity) {
    return -std::numeric_limits<A>::infinity();
  } else {
    return std::numeric_limits<A>::lowest();
  }
}

}  // namespace pool
}  // namespace ember::cpu
