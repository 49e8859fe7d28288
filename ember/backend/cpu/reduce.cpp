// CPU reductions.
//
// Note [Deterministic reductions]
// Every output element is reduced by one thread, in a fixed order; a reduction to a single value
// is cut into chunks of fixed size (kChunk elements, not one per thread), and the chunk results
// are combined in a fixed tree. So a sum has the same bits on 1 or 2 threads (or 64). Along a
// contiguous (or single strided) run, values are summed pairwise with 8 independent lanes:
// accurate (error grows with log n) and vectorisable. Reductions over outer dims ("columns")
// accumulate row after row, in order: deterministic too, but their error grows with n.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/cpu/simd.h"

namespace ember::cpu {
namespace {

constexpr int64_t kChunk = 1 << 15;      // elements per partial in a full reduction
constexpr int64_t kPairwiseBlock = 256;  // below this, lanes; above, split in halves

// Floating and complex values accumulate in their own type (16-bit floats in float32), integers
// in int64.
template <class T>
using acc_t = std::
    conditional_t<std::is_floating_point_v<opmath_t<T>> || is_std_complex<T>, opmath_t<T>, int64_t>;

template <ReduceOp Op, class A>
struct Combine;
template <class A>
struct Combine<ReduceOp::Sum, A> {
  static A identity() { return A(0); }
  static A apply(A a, A b) {
    if constexpr (std::is_integral_v<A>)
      return A(uint64_t(a) + uint64_t(b));  // wraps, as PyTorch
    else
      return a + b;
  }
};
template <class A>
struct Combine<ReduceOp::Prod, A> {
  static A identity() { return A(1); }
  static A apply(A a, A b) {
    if constexpr (std::is_integral_v<A>)
      return A(uint64_t(a) * uint64_t(b));  // wraps, as PyTorch
    else
      return a * b;
  }
};
template <class A>
struct Combine<ReduceOp::Max, A> {
  static A identity() { return std::numeric_limits<A>::lowest(); }
  static A apply(A a, A b) {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a > b ? a : b;
  }
};
template <class A>
struct Combine<ReduceOp::Min, A> {
  static A identity() { return std::numeric_limits<A>::max(); }
  static A apply(A a, A b) {
    if constexpr (std::is_floating_point_v<A>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? a : b;
  }
};

// Reduces n values at p with the given element stride; pairwise above kPairwiseBlock.
template <ReduceOp Op, class T, class A>
A reduce_run(const T* p, int64_t n, int64_t stride) {
  using C = Combine<Op, A>;
  // Contiguous float32 / float64 sums: the vectorised loop (simd.h), also pairwise, with its
  // own fixed order. Which loop runs depends only on the data's layout, never on threads.
  if constexpr (Op == ReduceOp::Sum && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    if (stride == 1) return A(simd::table().sum[std::is_same_v<T, float> ? 0 : 1](p, n));
  }
  if (n > kPairwiseBlock) {
    const int64_t half = (n / 2 + 7) & ~int64_t(7);
    return C::apply(reduce_run<Op, T, A>(p, half, stride),
                    reduce_run<Op, T, A>(p + half * stride, n - half, stride));
  }
  constexpr int L = 8;
  A lane[L];
  for (A& l : lane) l = C::identity();
  int64_t i = 0;
  if (stride == 1) {
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) lane[j] = C::apply(lane[j], A(p[i + j]));
  } else {
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) lane[j] = C::apply(lane[j], A(p[(i + j) * stride]));
  }
  // The lanes are combined in order, not as a tree: with the tree, GCC 12.2 at -O3 miscompiles
  // the integer sums (int8 lanes summed to half their value; tests/python caught it).
  A r = lane[0];
  for (int j = 1; j < L; ++j) r = C::apply(r, lane[j]);
  for (; i < n; ++i) r = C::apply(r, A(p[i * stride]));
  return r;
}

// Dims of one group (kept or reduced) after merging, outermost first; strides in elements.
struct Group {
  DimVector sizes, in_strides, out_strides;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  void add(int64_t size, int64_t in_stride, int64_t out_stride) {
    if (size == 1) return;
    // Merge into the previous (outer) dim when both step as one.
    if (!sizes.empty() && in_strides.back() == in_stride * size &&
        out_strides.back() == out_stride * size) {
      sizes.back() *= size;
      in_strides.back() = in_stride;
      out_strides.back() = out_stride;
      return;
    }
    sizes.push_back(size);
    in_strides.push_back(in_stride);
    out_strides.push_back(out_stride);
  }
  // Offsets of linear index i (row-major over sizes) in the input and the output.
  void offsets(int64_t i, int64_t& in_off, int64_t& out_off) const {
    in_off = out_off = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      const int64_t k = i % sizes[d];
      i /= sizes[d];
      in_off += k * in_strides[d];
      out_off += k * out_strides[d];
    }
  }
};

template <ReduceOp Op, class T, class O>
void reduce_typed(const Tensor& out, const Tensor& in, uint64_t mask) {
  using A = acc_t<T>;
  using C = Combine<Op, A>;
  const T* src = static_cast<const T*>(in.data_ptr());
  O* dst = static_cast<O*>(out.data_ptr());
  Group kept, red;
  DimVector red_dims;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (mask >> d & 1)
      red_dims.push_back(d);
    else
      kept.add(in.sizes()[d], in.strides()[d], out.strides()[d]);
  }
  // Reduced dims in memory order (largest stride first): a transposed or permuted input is read
  // sequentially and its dims merge, as for a contiguous one. The order depends only on the
  // layout, so results stay deterministic.
  std::stable_sort(red_dims.begin(), red_dims.end(),
                   [&](int64_t x, int64_t y) { return in.strides()[x] > in.strides()[y]; });
  for (int64_t d : red_dims) red.add(in.sizes()[d], in.strides()[d], 0);
  const int64_t n_out = kept.numel(), n_red = red.numel();
  if (n_out == 0) return;

  // Reduces the reduced space starting at element offset `base`, row by row in a fixed order.
  auto reduce_at = [&](int64_t base) -> A {
    if (n_red == 0) return C::identity();
    if (red.sizes.empty()) return A(src[base]);  // every reduced dim has size 1
    if (red.sizes.size() == 1) return reduce_run<Op, T, A>(src + base, n_red, red.in_strides[0]);
    const int64_t row = red.sizes.back(), rstride = red.in_strides.back();
    Group outer = red;
    outer.sizes.pop_back();
    outer.in_strides.pop_back();
    outer.out_strides.pop_back();
    A r = C::identity();
    for (int64_t i = 0, n = outer.numel(); i < n; ++i) {
      int64_t off, unused;
      outer.offsets(i, off, unused);
      r = C::apply(r, reduce_run<Op, T, A>(src + base + off, row, rstride));
    }
    return r;
  };

  // A single output from many elements: fixed-size chunks in parallel, combined in order.
  if (n_out == 1 && red.sizes.size() == 1 && n_red > kChunk) {
    const int64_t nchunks = (n_red + kChunk - 1) / kChunk;
    std::vector<A> partial(static_cast<size_t>(nchunks));
    const int64_t stride = red.in_strides[0];
    parallel_for(0, nchunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t start = c * kChunk;
        partial[c] =
            reduce_run<Op, T, A>(src + start * stride, std::min(kChunk, n_red - start), stride);
      }
    });
    // Pairwise over the partials, as reduce_run does over elements.
    while (partial.size() > 1) {
      std::vector<A> next((partial.size() + 1) / 2);
      for (size_t i = 0; i < next.size(); ++i)
        next[i] = 2 * i + 1 < partial.size() ? C::apply(partial[2 * i], partial[2 * i + 1])
                                             : partial[2 * i];
      partial.swap(next);
    }
    *dst = O(partial[0]);
    return;
  }

  // Columns: the kept innermost dim is contiguous, the reduced dims are not. Accumulate whole rows
  // into a buffer (vectorised across outputs), stepping through the reduced dims in order.
  const bool columns = !kept.sizes.empty() && kept.in_strides.back() == 1 &&
                       kept.out_strides.back() == 1 &&
                       (red.sizes.empty() || red.in_strides.back() != 1);
  if (columns && n_red > 0) {
    const int64_t inner = kept.sizes.back();
    Group kouter = kept;
    kouter.sizes.pop_back();
    kouter.in_strides.pop_back();
    kouter.out_strides.pop_back();
    const int64_t n_outer = kouter.numel();
    constexpr int64_t kBlock = 512;
    const int64_t nblocks = (inner + kBlock - 1) / kBlock;
    const int64_t grain =
        std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n_red * kBlock));
    parallel_for(0, n_outer * nblocks, grain, [&](int64_t b, int64_t e) {
      A accum[kBlock];
      for (int64_t t = b; t < e; ++t) {
        const int64_t o = t / nblocks, j0 = (t % nblocks) * kBlock;
        const int64_t len = std::min(kBlock, inner - j0);
        int64_t in_base, out_base;
        kouter.offsets(o, in_base, out_base);
        for (int64_t j = 0; j < len; ++j) accum[j] = C::identity();
        for (int64_t r = 0; r < n_red; ++r) {
          int64_t roff, unused;
          red.offsets(r, roff, unused);
          const T* row = src + in_base + roff + j0;
          for (int64_t j = 0; j < len; ++j) accum[j] = C::apply(accum[j], A(row[j]));
        }
        for (int64_t j = 0; j < len; ++j) dst[out_base + j0 + j] = O(accum[j]);
      }
    });
    return;
  }

  // General: each output reduces its own slice.
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n_red));
  parallel_for(0, n_out, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      int64_t in_off, out_off;
      kept.offsets(o, in_off, out_off);
      dst[out_off] = O(reduce_at(in_off));
    }
  });
}

void reduce_kernel(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t mask) {
  // Complex numbers have sums and products, no order (ops/reduce.cpp sends them here for prod).
  dispatch_dtype<kAllTypesAndComplex>(in.dtype(), "reduce", [&]<class T>() {
    auto run = [&]<ReduceOp Op>() {
      constexpr bool widens = Op == ReduceOp::Sum || Op == ReduceOp::Prod;
      if constexpr (is_std_complex<T> && (Op == ReduceOp::Max || Op == ReduceOp::Min)) {
        EMBER_FAIL_KIND(ErrorKind::Type, "[reduce] complex numbers have no max or min");
      } else if constexpr (widens && !std::is_floating_point_v<opmath_t<T>> && !is_std_complex<T>) {
        EMBER_ASSERT(out.dtype() == kInt64, "integer sums and products go to int64");
        reduce_typed<Op, T, int64_t>(out, in, mask);
      } else {
        EMBER_ASSERT(out.dtype() == in.dtype(), "reduction output dtype");
        reduce_typed<Op, T, T>(out, in, mask);
      }
    };
    switch (op) {
      case ReduceOp::Sum:
        run.template operator()<ReduceOp::Sum>();
        break;
      case ReduceOp::Max:
        run.template operator()<ReduceOp::Max>();
        break;
      case ReduceOp::Min:
        run.template operator()<ReduceOp::Min>();
        break;
      case ReduceOp::Prod:
        run.template operator()<ReduceOp::Prod>();
        break;
    }
  });
}

void arg_reduce_kernel(
    ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  EMBER_ASSERT(op == ReduceOp::Max || op == ReduceOp::Min, "arg_reduce: max or min");
  const bool is_max = op == ReduceOp::Max;
  const int64_t nd = in.dim();
  const int64_t n = nd ? in.sizes()[dim] : 1;
  const int64_t dstride = nd ? in.strides()[dim] : 0;
  Group kept;  // every dim but `dim`; out strides index the (contiguous) outputs
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim) kept.add(in.sizes()[d], in.strides()[d], values.strides()[d]);
  }
  const int64_t n_out = kept.numel();
  dispatch_dtype(in.dtype(), "max", [&]<class T>() {
    using A = opmath_t<T>;
    const T* src = static_cast<const T*>(in.data_ptr());
    T* vals = static_cast<T*>(values.data_ptr());
    int64_t* idxs = static_cast<int64_t*>(indices.data_ptr());
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, n));
    parallel_for(0, n_out, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        int64_t in_off, out_off;
        kept.offsets(o, in_off, out_off);
        const T* p = src + in_off;
        A best = A(p[0]);
        int64_t best_i = 0;
        for (int64_t k = 1; k < n; ++k) {
          if constexpr (std::is_floating_point_v<A>) {
            if (std::isnan(best)) break;  // the first NaN wins
          }
          const A v = A(p[k * dstride]);
          bool better = is_max ? v > best : v < best;
          if constexpr (std::is_floating_point_v<A>) better |= std::isnan(v);
          if (better) {
            best = v;
            best_i = k;
          }
        }
        vals[out_off] = T(best);
        idxs[out_off] = best_i;
      }
    });
  });
}

}  // namespace

void register_reduce(KernelTable& t) {
  t.reduce.reduce = &reduce_kernel;
  t.reduce.arg_reduce = &arg_reduce_kernel;
}

}  // namespace ember::cpu
