// CPU scans along one dim: cumsum, cumprod, logcumsumexp, cummax and cummin. Each line (the
// elements along `dim` at one position of the other dims) is done by one thread, in order, so the
// results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/core/math.h"

namespace ember::cpu {
namespace {

int64_t size_of(const Tensor& t, int64_t dim) { return t.dim() ? t.sizes()[dim] : 1; }
int64_t stride_of(const Tensor& t, int64_t dim) { return t.dim() ? t.strides()[dim] : 1; }

// Calls f(line, offsets) for every line of `shape` along dim, in parallel, with each line's
// starting offset in the tensors `ts`.
template <size_t N, class F>
void for_lines(IntArrayRef shape, int64_t dim, const Tensor* const (&ts)[N], F f) {
  DimVector sizes;
  DimVector strides[N];
  int64_t count = 1;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (d == dim) continue;
    sizes.push_back(shape[d]);
    count *= shape[d];
    for (size_t k = 0; k < N; ++k) strides[k].push_back(ts[k]->strides()[d]);
  }
  const int64_t n = shape.empty() ? 1 : shape[size_t(dim)];
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n));
  parallel_for(0, count, grain, [&](int64_t b, int64_t e) {
    int64_t off[N];
    for (int64_t l = b; l < e; ++l) {
      for (size_t k = 0; k < N; ++k) off[k] = 0;
      int64_t rem = l;
      for (size_t d = sizes.size(); d-- > 0;) {
        const int64_t c = rem % sizes[d];
        rem /= sizes[d];
        for (size_t k = 0; k < N; ++k) off[k] += c * strides[k][d];
      }
      f(off);
    }
  });
}

// log(exp(a) + exp(b)) without overflow; -inf with -inf is -inf, NaN propagates.
template <class A>
A log_add_exp(A a, A b) {
  if (math::is_nan(a) || math::is_nan(b)) return a + b;
  const A m = std::max(a, b);
  if (std::isinf(m)) return m;  // +inf, or both -inf
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

void scan_kernel(ScanOp op, const Tensor& out, const Tensor& in, int64_t dim) {
  if (out.numel() == 0) return;
  const int64_t d = in.dim() ? dim : 0;
  const int64_t n = size_of(in, dim), is = stride_of(in, dim), os = stride_of(out, dim);
  const Tensor* const ts[2] = {&in, &out};
  auto run = [&]<class T>() {
    using A = opmath_t<T>;
    // Integers wrap around; float32 sums and products accumulate in double, as PyTorch's CPU
    // kernels do (acc_type), the 16-bit floats in float.
    using W = std::conditional_t<std::is_same_v<T, float>, double, math::wrap_t<A>>;
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    for_lines(in.sizes(), d, ts, [&](const int64_t* off) {
      const T* x = src + off[0];
      T* y = dst + off[1];
      if constexpr (std::is_floating_point_v<A>) {
        if (op == ScanOp::LogSumExp) {
          A acc = -std::numeric_limits<A>::infinity();
          for (int64_t j = 0; j < n; ++j) {
            acc = log_add_exp(acc, A(x[j * is]));
            y[j * os] = T(acc);
          }
          return;
        }
      }
      if (op == ScanOp::Sum) {
        W acc = W(0);
        for (int64_t j = 0; j < n; ++j) {
          acc = W(acc + W(A(x[j * is])));
          y[j * os] = T(A(acc));
        }
      } else {
        W acc = W(1);
        for (int64_t j = 0; j < n; ++j) {
          acc = W(acc * W(A(x[j * is])));
          y[j * os] = T(A(acc));
        }
      }
    });
  };
  if (op == ScanOp::LogSumExp)
    dispatch_dtype<kFloatingTypes>(in.dtype(), "logcumsumexp", run);
  else
    dispatch_dtype<kNumericTypes>(in.dtype(), op == ScanOp::Sum ? "cumsum" : "cumprod", run);
}

void cum_extreme_kernel(
    ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  if (values.numel() == 0) return;
  const int64_t d = in.dim() ? dim : 0;
  const int64_t n = size_of(in, dim), is = stride_of(in, dim), vs = stride_of(values, dim),
                xs = stride_of(indices, dim);
  const Tensor* const ts[3] = {&in, &values, &indices};
  const bool is_max = op == ReduceOp::Max;
  dispatch_dtype(in.dtype(), is_max ? "cummax" : "cummin", [&]<class T>() {
    using A = opmath_t<T>;
    const T* src = static_cast<const T*>(in.data_ptr());
    T* vdst = static_cast<T*>(values.data_ptr());
    int64_t* idst = static_cast<int64_t*>(indices.data_ptr());
    for_lines(in.sizes(), d, ts, [&](const int64_t* off) {
      const T* x = src + off[0];
      T* v = vdst + off[1];
      int64_t* ix = idst + off[2];
      A best = A(x[0]);
      int64_t at = 0;
      for (int64_t j = 0; j < n; ++j) {
        const A a = A(x[j * is]);
        // Ties move the index on (the last occurrence); a NaN takes over, and only a later NaN
        // replaces it (PyTorch's cummax_cummin_helper).
        if (j > 0 &&
            (math::is_nan(a) || (!math::is_nan(best) && (is_max ? a >= best : a <= best)))) {
          best = a;
          at = j;
        }
        v[j * vs] = T(best);
        ix[j * xs] = at;
      }
    });
  });
}

}  // namespace

void register_scan(KernelTable& t) {
  t.scan.scan = &scan_kernel;
  t.scan.cum_extreme = &cum_extreme_kernel;
}

}  // namespace ember::cpu
