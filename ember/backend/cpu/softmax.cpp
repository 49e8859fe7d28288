// CPU softmax and log_softmax along one dim. Each line (all elements along `dim` for one position
// of the other dims) is done by one thread, in order: results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/cpu/simd.h"

namespace ember::cpu {
namespace {

// One line of n elements at stride `is` (in) and `os` (out), in op-math type A: the max, then the
// sum of exp(x - max), then the outputs. `buf` holds x - max (n elements).
template <class T, class A>
void softmax_line(const T* in, T* out, int64_t n, int64_t is, int64_t os, bool log, A* buf) {
  A m = -std::numeric_limits<A>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const A v = A(in[i * is]);
    m = (v > m || std::isnan(v)) ? v : m;
  }
  if (std::isinf(m) && m < 0) m = 0;  // all -inf: exp gives 0s, the sum 0 (softmax NaN as PyTorch)
  A s = 0;
  for (int64_t i = 0; i < n; ++i) {
    buf[i] = A(in[i * is]) - m;
    s += std::exp(buf[i]);
  }
  if (log) {
    const A ls = std::log(s);
    for (int64_t i = 0; i < n; ++i) out[i * os] = T(buf[i] - ls);
  } else {
    const A inv = A(1) / s;
    for (int64_t i = 0; i < n; ++i) out[i * os] = T(std::exp(buf[i]) * inv);
  }
}

void softmax_kernel(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  if (out.numel() == 0) return;
  const int64_t nd = in.dim();
  const int64_t n = nd ? in.sizes()[dim] : 1;
  const int64_t is = nd ? in.strides()[dim] : 1, os = nd ? out.strides()[dim] : 1;
  // Offsets of each line's first element: every dim but `dim`, row-major.
  DimVector sizes, istr, ostr;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == dim) continue;
    sizes.push_back(in.sizes()[d]);
    istr.push_back(in.strides()[d]);
    ostr.push_back(out.strides()[d]);
  }
  int64_t lines = 1;
  for (int64_t s : sizes) lines *= s;
  dispatch_dtype<kFloatingTypes>(in.dtype(), "softmax", [&]<class T>() {
    using A = opmath_t<T>;
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n));
    // Contiguous lines of float32 / float64: the vectorised loop.
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (is == 1 && os == 1 && in.is_contiguous() && out.is_contiguous()) {
        const simd::SoftmaxFn fn = simd::table().softmax[std::is_same_v<T, float> ? 0 : 1];
        parallel_for(0, lines, grain, [&](int64_t b, int64_t e) {
          for (int64_t l = b; l < e; ++l) fn(src + l * n, dst + l * n, n, log);
        });
        return;
      }
    }
    parallel_for(0, lines, grain, [&](int64_t b, int64_t e) {
      std::vector<A> buf(static_cast<size_t>(n));
      for (int64_t l = b; l < e; ++l) {
        int64_t io = 0, oo = 0, rem = l;
        for (size_t d = sizes.size(); d-- > 0;) {
          const int64_t k = rem % sizes[d];
          rem /= sizes[d];
          io += k * istr[d];
          oo += k * ostr[d];
        }
        softmax_line<T, A>(src + io, dst + oo, n, is, os, log, buf.data());
      }
    });
  });
}

}  // namespace

void register_softmax(KernelTable& t) { t.softmax.softmax = &softmax_kernel; }

}  // namespace ember::cpu
