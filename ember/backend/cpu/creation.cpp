// CPU kernel of the creation ops: arange and linspace (the range slot). Filling (zeros, full, eye)
// is the elementwise fill kernel's.
#include <cstdint>
#include <type_traits>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"

namespace ember::cpu {
namespace {

void range_kernel(const Tensor& out, double start, double step_or_end, bool linspace) {
  const int64_t n = out.numel();
  dispatch_dtype<kNumericTypes>(out.dtype(), "arange", [&]<class T>() {
    T* p = static_cast<T*>(out.data_ptr());
    if (!linspace) {
      if constexpr (std::is_integral_v<T>) {
        const int64_t s = int64_t(start), st = int64_t(step_or_end);
        for (int64_t i = 0; i < n; ++i) p[i] = T(s + st * i);
      } else {
        for (int64_t i = 0; i < n; ++i) p[i] = T(opmath_t<T>(start + step_or_end * double(i)));
      }
      return;
    }
    // linspace: from both ends toward the middle, so the last value is exactly `end` (PyTorch).
    using S = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;
    const S s = S(start), e = S(step_or_end);
    if (n == 1) {
      p[0] = T(opmath_t<T>(s));
      return;
    }
    const S step = (e - s) / S(n - 1);
    const int64_t half = n / 2;
    for (int64_t i = 0; i < n; ++i) {
      const S v = i < half ? s + step * S(i) : e - step * S(n - i - 1);
      p[i] = T(opmath_t<T>(v));
    }
  });
}

}  // namespace

void register_creation(KernelTable& t) { t.creation.range = &range_kernel; }

}  // namespace ember::cpu
