// CPU indexing kernels: index_select, gather, scatter (with reductions), index_add / copy /
// fill, nonzero, searchsorted.
//
// Writes through an index may hit one element from several positions. Those positions differ
// only along the indexed dim, so the work is split by the other coordinates ("lines"): one
// thread owns every position along `dim` for its lines and applies them in index order. No
// races, no atomics, and the same result for any thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "ember/backend/cpu/lines.h"
#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/cpu/simd.h"
#include "ember/core/math.h"

namespace ember::cpu {
namespace {

int64_t stride_of(const Tensor& t, int64_t dim) { return t.dim() ? t.strides()[dim] : 0; }
int64_t size_of(const Tensor& t, int64_t dim) { return t.dim() ? t.sizes()[dim] : 1; }

template <class T>
inline void combine(ScatterOp op, T& dst, T v) {
  using A = opmath_t<T>;
  switch (op) {
    case ScatterOp::Assign:
      dst = v;
      break;
    case ScatterOp::Add:
      if constexpr (std::is_same_v<T, bool>)
        dst = dst || v;
      else if constexpr (std::is_integral_v<T>)
        dst = T(math::wrap_t<T>(dst) + math::wrap_t<T>(v));
      else
        dst = T(A(dst) + A(v));
      break;
    case ScatterOp::Mul:
      if constexpr (std::is_same_v<T, bool>)
        dst = dst && v;
      else if constexpr (std::is_integral_v<T>)
        dst = T(math::wrap_t<T>(dst) * math::wrap_t<T>(v));
      else
        dst = T(A(dst) * A(v));
      break;
    case ScatterOp::Max:
      if (math::is_nan(A(v)) || A(v) > A(dst)) dst = v;
      break;
    case ScatterOp::Min:
      if (math::is_nan(A(v)) || A(v) < A(dst)) dst = v;
      break;
  }
}

// in and out are contiguous (the op makes them so): seen as [outer, N, inner] and
// [outer, n, inner], each index copies `outer` runs of `inner` elements.
void index_select_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const int64_t n = index.numel(), big_n = size_of(in, dim);
  const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
  const int64_t istep = index.dim() ? index.strides()[0] : 0;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= in.sizes()[d];
  for (int64_t d = dim + 1; d < in.dim(); ++d) inner *= in.sizes()[d];
  const size_t bytes = size_t(inner) * in.element_size();
  const char* src = static_cast<const char*>(in.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, inner));
  parallel_for(0, outer * n, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / n, i = t % n;
      std::memcpy(dst + size_t(t) * bytes, src + size_t(o * big_n + idx[i * istep]) * bytes, bytes);
    }
  });
}

bool gather_kernel(
    const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index, int64_t* bad_index) {
  if (out.numel() == 0) return true;
  const Lines lines(index.sizes(), dim, {&out, &in, &index});
  const int64_t n = size_of(index, dim), size = size_of(in, dim);
  const int64_t os = stride_of(out, dim), is = stride_of(in, dim), xs = stride_of(index, dim);
  const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
  std::atomic<bool> ok{true};
  std::atomic<int64_t> bad{0};
  dispatch_dtype(in.dtype(), "gather", [&]<class T>() {
    const T* src = static_cast<const T*>(in.data_ptr());
    T* dst = static_cast<T*>(out.data_ptr());
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n));
    parallel_for(0, lines.count, grain, [&](int64_t b, int64_t e) {
      int64_t off[3];
      for (int64_t l = b; l < e; ++l) {
        lines.offsets(l, off);
        T* o = dst + off[0];
        const T* s = src + off[1];
        const int64_t* x = idx + off[2];
        // One unsigned compare per index catches negative ones too; the first bad index ends
        // the line. Rows along the last dim (all unit strides) get a loop of their own.
        int64_t k = 0;
        bool line_ok = true;
        if (os == 1 && is == 1 && xs == 1) {
          for (int64_t i = 0; i < n; ++i) {
            k = x[i];
            if (uint64_t(k) >= uint64_t(size)) [[unlikely]] {
              line_ok = false;
              break;
            }
            o[i] = s[k];
          }
        } else {
          for (int64_t i = 0; i < n; ++i) {
            k = x[i * xs];
            if (uint64_t(k) >= uint64_t(size)) [[unlikely]] {
              line_ok = false;
              break;
            }
            o[i * os] = s[k * is];
          }
        }
        if (!line_ok) {
          bad.store(k);
          ok.store(false);
          return;
        }
      }
    });
  });
  *bad_index = bad.load();
  return ok.load();
}

void scatter_kernel(
    ScatterOp op, const Tensor& self, int64_t dim, const Tensor& index, const Operand& src) {
  if (index.numel() == 0) return;
  const Tensor& src_t = src.tensor ? *src.tensor : index;  // strides only used for tensors
  const Lines lines(index.sizes(), dim, {&self, &index, &src_t});
  const int64_t n = size_of(index, dim);
  const int64_t ss = stride_of(self, dim), xs = stride_of(index, dim), vs = stride_of(src_t, dim);
  const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
  dispatch_dtype(self.dtype(), "scatter", [&]<class T>() {
    T* dst = static_cast<T*>(self.data_ptr());
    const T* vals = src.tensor ? static_cast<const T*>(src.tensor->data_ptr()) : nullptr;
    const T scalar = src.tensor ? T() : src.scalar.to<T>();
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n));
    // Lines of the index map to disjoint lines of self (the other coordinates are the same), so
    // they can run in parallel; within a line, positions are applied in order.
    parallel_for(0, lines.count, grain, [&](int64_t b, int64_t e) {
      int64_t off[3];
      for (int64_t l = b; l < e; ++l) {
        lines.offsets(l, off);
        T* o = dst + off[0];
        const int64_t* x = idx + off[1];
        if (op == ScatterOp::Add && vals && ss == 1 && xs == 1 && vs == 1) {
          const T* v = vals + off[2];  // the common scatter_add: contiguous rows
          for (int64_t i = 0; i < n; ++i) combine(ScatterOp::Add, o[x[i]], v[i]);
          continue;
        }
        for (int64_t i = 0; i < n; ++i) {
          const T v = vals ? vals[off[2] + i * vs] : scalar;
          combine(op, o[x[i * xs] * ss], v);
        }
      }
    });
  });
}

void index_reduce_kernel(
    ScatterOp op, const Tensor& self, int64_t dim, const Tensor& index, const Operand& source) {
  const int64_t n = index.numel();
  if (n == 0 || self.numel() == 0) return;
  const Tensor& src_t = source.tensor ? *source.tensor : self;
  // Lines here are the positions of one slice (all dims but `dim`); each thread owns some of
  // them and applies every index to them in order.
  const Lines lines(self.sizes(), dim, {&self, &src_t});
  const int64_t ss = stride_of(self, dim), vs = stride_of(src_t, dim);
  const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
  const int64_t xs = index.dim() ? index.strides()[0] : 0;
  dispatch_dtype(self.dtype(), "index_reduce", [&]<class T>() {
    T* dst = static_cast<T*>(self.data_ptr());
    const T* vals = source.tensor ? static_cast<const T*>(source.tensor->data_ptr()) : nullptr;
    const T scalar = source.tensor ? T() : source.scalar.to<T>();
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n));
    parallel_for(0, lines.count, grain, [&](int64_t b, int64_t e) {
      int64_t off[2];
      for (int64_t l = b; l < e; ++l) {
        lines.offsets(l, off);
        for (int64_t i = 0; i < n; ++i) {
          const T v = vals ? vals[off[1] + i * vs] : scalar;
          combine(op, dst[off[0] + idx[i * xs] * ss], v);
        }
      }
    });
  });
}

void index_bounds_kernel(const Tensor& index, int64_t* lo, int64_t* hi) {
  const int64_t* p = static_cast<const int64_t*>(index.data_ptr());
  if (index.is_contiguous()) {
    // min and max are exact in any order, so the chunks may be combined as they finish.
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    std::mutex mu;
    parallel_for(0, index.numel(), int64_t(1) << 16, [&](int64_t b, int64_t e) {
      int64_t l, h;
      simd::table().minmax_i64(p + b, e - b, &l, &h);
      std::lock_guard<std::mutex> lock(mu);
      *lo = std::min(*lo, l);
      *hi = std::max(*hi, h);
    });
    return;
  }
  int64_t l = INT64_MAX, h = INT64_MIN;
  ElementwiseIter it;
  it.add_output(index);  // read only: the iterator just walks its elements
  it.build();
  it.for_each_row(0, it.numel(), [&](char** ptr, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = *reinterpret_cast<const int64_t*>(ptr[0] + i * s[0]);
      l = v < l ? v : l;
      h = v > h ? v : h;
    }
  });
  *lo = l;
  *hi = h;
}

void nonzero_kernel(const Tensor& out, const Tensor& in) {
  const int64_t nd = in.dim();
  int64_t* dst = static_cast<int64_t*>(out.data_ptr());
  const int64_t rs = out.strides()[0], cs = out.dim() > 1 ? out.strides()[1] : 0;
  dispatch_dtype(in.dtype(), "nonzero", [&]<class T>() {
    const T* src = static_cast<const T*>(in.data_ptr());
    DimVector coord(size_t(nd), 0);
    int64_t row = 0;
    for (int64_t i = 0, total = in.numel(); i < total; ++i) {
      int64_t off = 0;
      for (int64_t d = 0; d < nd; ++d) off += coord[d] * in.strides()[d];
      if (src[off] != T(0)) {
        for (int64_t d = 0; d < nd; ++d) dst[row * rs + d * cs] = coord[d];
        ++row;
      }
      for (int64_t d = nd; d-- > 0;) {  // next coordinate, row-major
        if (++coord[d] < in.sizes()[d]) break;
        coord[d] = 0;
      }
    }
  });
}

// a < b with NaN after every number.
template <class A>
bool sorts_before(A a, A b) {
  return a < b || (math::is_nan(b) && !math::is_nan(a));
}

void searchsorted_kernel(const Tensor& out,
                         const Tensor& sorted,
                         const Tensor& values,
                         bool right) {
  if (out.numel() == 0) return;
  const int64_t len = sorted.sizes().back();
  const int64_t sstride = sorted.strides().back();
  const bool shared = sorted.dim() == 1;  // one sequence for every value
  const int64_t per_row = values.dim() ? values.sizes().back() : 1;
  dispatch_dtype<kNumericTypes>(values.dtype(), "searchsorted", [&]<class T>() {
    using A = opmath_t<T>;
    const T* seq = static_cast<const T*>(sorted.data_ptr());
    const T* val = static_cast<const T*>(values.data_ptr());
    int64_t* dst = static_cast<int64_t*>(out.data_ptr());
    parallel_for(0, values.numel(), kElementwiseGrain / 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* s = shared ? seq : seq + (i / per_row) * len * sstride;
        const A v = A(val[i]);
        int64_t lo = 0, hi = len;  // the answer is in [lo, hi]
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo) / 2;
          const A m = A(s[mid * sstride]);
          // left: the first m >= v; right: the first m > v. NaN sorts last, as in sort.
          const bool before = right ? !sorts_before(v, m) : sorts_before(m, v);
          if (before)
            lo = mid + 1;
          else
            hi = mid;
        }
        dst[i] = lo;
      }
    });
  });
}

}  // namespace

void register_indexing(KernelTable& t) {
  t.indexing.index_select = &index_select_kernel;
  t.indexing.gather = &gather_kernel;
  t.indexing.scatter = &scatter_kernel;
  t.indexing.index_reduce = &index_reduce_kernel;
  t.indexing.nonzero = &nonzero_kernel;
  t.indexing.index_bounds = &index_bounds_kernel;
  t.indexing.searchsorted = &searchsorted_kernel;
}

}  // namespace ember::cpu
