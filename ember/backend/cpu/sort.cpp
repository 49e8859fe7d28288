// CPU sorting kernels: sort, topk and the selections behind kthvalue, median and nanmedian.
//
// Each line (the elements along `dim` at one position of the other dims) is one task: its
// elements are copied into a buffer of (value, index) pairs, ordered there with std::sort or
// std::nth_element, and written out. Lines run in parallel; within a line the comparison is a
// total order (value, NaN above every number, then index), so every result is that of a stable
// sort and does not depend on the algorithm or the thread count.
#include <algorithm>
#include <vector>

#include "ember/backend/cpu/lines.h"
#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/core/math.h"

namespace ember::cpu {
namespace {

// About this many elements of sorting work per parallel task.
constexpr int64_t kSortGrain = 4096;

int64_t size_of(const Tensor& t, int64_t dim) { return t.dim() ? t.sizes()[dim] : 1; }
int64_t stride_of(const Tensor& t, int64_t dim) { return t.dim() ? t.strides()[dim] : 1; }

template <class A>
struct Entry {
  A v;
  int64_t i;
};

// Ascending: numbers, then NaN; equal values (and NaNs) by index.
template <class A>
struct Ascending {
  bool operator()(const Entry<A>& a, const Entry<A>& b) const {
    if constexpr (std::is_floating_point_v<A>) {
      const bool na = math::is_nan(a.v), nb = math::is_nan(b.v);
      if (na || nb) return na != nb ? nb : a.i < b.i;
    }
    if (a.v < b.v) return true;
    if (b.v < a.v) return false;
    return a.i < b.i;
  }
};

// Descending: NaN, then numbers from the largest; equal values (and NaNs) by index.
template <class A>
struct Descending {
  bool operator()(const Entry<A>& a, const Entry<A>& b) const {
    if constexpr (std::is_floating_point_v<A>) {
      const bool na = math::is_nan(a.v), nb = math::is_nan(b.v);
      if (na || nb) return na != nb ? na : a.i < b.i;
    }
    if (b.v < a.v) return true;
    if (a.v < b.v) return false;
    return a.i < b.i;
  }
};

// Runs body(buf, n, in_line, values_line, indices_line, vstride, istride) over every line, in
// parallel, with `buf` filled with the line's (value, index) pairs. `in` and `out` (values and
// indices) may have different sizes along dim; the other dims agree.
template <DTypeSet Allowed, class Body>
void for_each_line(const char* name,
                   const Tensor& values,
                   const Tensor& indices,
                   const Tensor& in,
                   int64_t dim,
                   Body body) {
  if (in.numel() == 0 || values.numel() == 0) return;
  const int64_t n = size_of(in, dim);
  const int64_t is = stride_of(in, dim), vs = stride_of(values, dim), xs = stride_of(indices, dim);
  const Lines lines(in.sizes(), in.dim() ? dim : 0, {&in, &values, &indices});
  dispatch_dtype<Allowed>(in.dtype(), name, [&]<class T>() {
    using A = opmath_t<T>;
    const T* src = static_cast<const T*>(in.data_ptr());
    T* vdst = static_cast<T*>(values.data_ptr());
    int64_t* idst = static_cast<int64_t*>(indices.data_ptr());
    const int64_t grain = std::max<int64_t>(1, kSortGrain / std::max<int64_t>(1, n));
    parallel_for(0, lines.count, grain, [&](int64_t b, int64_t e) {
      std::vector<Entry<A>> buf(static_cast<size_t>(n));
      int64_t off[3];
      for (int64_t l = b; l < e; ++l) {
        lines.offsets(l, off);
        const T* line = src + off[0];
        for (int64_t j = 0; j < n; ++j) buf[size_t(j)] = {A(line[j * is]), j};
        // Writes the first `count` entries of buf along the output line.
        auto write = [&](int64_t count) {
          for (int64_t j = 0; j < count; ++j) {
            vdst[off[1] + j * vs] = T(buf[size_t(j)].v);
            idst[off[2] + j * xs] = buf[size_t(j)].i;
          }
        };
        body(buf, write);
      }
    });
  });
}

void sort_kernel(const Tensor& values,
                 const Tensor& indices,
                 const Tensor& in,
                 int64_t dim,
                 bool descending,
                 bool /*stable: always*/) {
  for_each_line<kAllTypes>("sort", values, indices, in, dim, [&](auto& buf, auto write) {
    using A = decltype(buf[0].v);
    if (descending)
      std::sort(buf.begin(), buf.end(), Descending<A>());
    else
      std::sort(buf.begin(), buf.end(), Ascending<A>());
    write(int64_t(buf.size()));
  });
}

// The first k entries of buf in the order of `cmp` (sorted) or in nth_element's order.
template <class It, class Cmp>
void select_first(It begin, It end, int64_t k, bool sorted, Cmp cmp) {
  if (k <= 0) return;
  if (k < end - begin) std::nth_element(begin, begin + (k - 1), end, cmp);
  if (sorted) std::sort(begin, begin + k, cmp);
}

void topk_kernel(const Tensor& values,
                 const Tensor& indices,
                 const Tensor& in,
                 int64_t dim,
                 int64_t k,
                 bool largest,
                 bool sorted) {
  for_each_line<kNumericTypes>("topk", values, indices, in, dim, [&](auto& buf, auto write) {
    using A = decltype(buf[0].v);
    if (largest)
      select_first(buf.begin(), buf.end(), k, sorted, Descending<A>());
    else
      select_first(buf.begin(), buf.end(), k, sorted, Ascending<A>());
    write(k);
  });
}

void select_kernel(SelectOp op,
                   const Tensor& values,
                   const Tensor& indices,
                   const Tensor& in,
                   int64_t dim,
                   int64_t k) {
  const char* name = op == SelectOp::Kth      ? "kthvalue"
                     : op == SelectOp::Median ? "median"
                                              : "nanmedian";
  for_each_line<kNumericTypes>(name, values, indices, in, dim, [&](auto& buf, auto write) {
    using A = decltype(buf[0].v);
    int64_t pos = k;
    if (op != SelectOp::Kth) {
      int64_t nans = 0, first_nan = -1;
      for (size_t j = 0; j < buf.size(); ++j) {
        if (math::is_nan(buf[j].v)) {
          if (first_nan < 0) first_nan = int64_t(j);
          ++nans;
        }
      }
      const int64_t m = int64_t(buf.size()) - (op == SelectOp::NanMedian ? nans : 0);
      if (first_nan >= 0 && (op == SelectOp::Median || m == 0)) {
        buf[0] = buf[size_t(first_nan)];
        write(1);
        return;
      }
      pos = (m - 1) / 2;
    }
    std::nth_element(buf.begin(), buf.begin() + pos, buf.end(), Ascending<A>());
    buf[0] = buf[size_t(pos)];
    write(1);
  });
}

}  // namespace

void register_sort(KernelTable& t) {
  t.sort.sort = &sort_kernel;
  t.sort.topk = &topk_kernel;
  t.sort.select = &select_kernel;
}

}  // namespace ember::cpu
