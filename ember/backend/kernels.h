// The kernel table: what a backend provides, one typed slot per primitive kernel. Ops (ember/ops)
// check arguments, pick dtypes and shapes, allocate outputs, and call a slot; a backend
// (backend/cpu, backend/cuda) fills the slots with one explicit registration call. An empty slot
// is a clear error, so a backend can be partial.
//
// Kernels receive outputs already allocated with the right shape and dtype, and inputs already
// converted to the dtype the kernel computes in; they never allocate tensors themselves.
#pragma once

#include <cstdint>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"
#include "ember/ops/elementwise_ops.h"

namespace ember {

// One input of an elementwise kernel: a tensor (broadcast to the output's shape by strides) or a
// scalar that stands for every element.
struct Operand {
  const Tensor* tensor = nullptr;
  Scalar scalar;
  Operand(const Tensor& t) : tensor(&t) {}
  Operand(const Scalar& s) : scalar(s) {}
};

enum class ReduceOp : uint8_t { Sum, Max, Min, Prod };
enum class RandomDist : uint8_t { Uniform, Normal, Integer, Exponential };
// How scatter-like kernels combine a value with what is already there.
enum class ScatterOp : uint8_t { Assign, Add, Mul, Max, Min };
// Which element a selection kernel picks from each line (see KernelTable::Select).
enum class SelectOp : uint8_t { Kth, Median, NanMedian };
// The running operation of a scan kernel.
enum class ScanOp : uint8_t { Sum, Prod, LogSumExp };

struct ConvKernels;
struct PoolKernels;
struct NormKernels;
struct LossKernels;
struct RnnKernels;

struct KernelTable {
  // out = f(in); out and in have the same shape and dtype.
  using Unary = void (*)(const Tensor& out, const Tensor& in);
  // out = f(in, p) with the op's parameters p[0..2] (ParamUnaryOp); as Unary otherwise.
  using ParamUnary = void (*)(const Tensor& out, const Tensor& in, const Scalar* params);
  // out = f(a, b); tensor operands have out's dtype (compare: out is bool) and broadcast to it.
  using Binary = void (*)(const Tensor& out, const Operand& a, const Operand& b);
  // dst = src converted to dst's dtype; src broadcasts to dst's shape.
  // out = cond ? a : b; cond is bool, a and b have out's dtype; all broadcast to out.
  using Where = void (*)(const Tensor& out, const Tensor& cond, const Operand& a, const Operand& b);
  using Copy = void (*)(const Tensor& dst, const Tensor& src);
  using Fill = void (*)(const Tensor& dst, const Scalar& value);
  // out has in's rank with size 1 in every dim marked in `dims` (bit d = dim d); out may have a
  // wider dtype than in (int64 sums and products of integers), and receives the reduction of in.
  using Reduce = void (*)(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t dims);
  // values/indices: in's shape with size 1 at `dim`; first index of the max (min); NaN wins.
  using ArgReduce = void (*)(
      ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
  // out[i] = a[i] @ b[i] for 3-d [B, n, k] x [B, k, m]; a and b may be transposed or broadcast
  // (batch stride 0) views; out is contiguous.
  using Bmm = void (*)(const Tensor& out, const Tensor& a, const Tensor& b);
  // out[i] = start + i * step (arange), or linspace from start to end (symmetric rounding).
  using Range = void (*)(const Tensor& out, double start, double step_or_end, bool linspace);
  // Fills out with samples: Uniform [a, b), Normal(mean a, std b), Integer [a, b) (a and b
  // exact int64 for Integer), Exponential(rate a).
  using Random = void (*)(
      RandomDist dist, const Tensor& out, Generator& gen, const Scalar& a, const Scalar& b);
  using Randperm = void (*)(const Tensor& out, Generator& gen);
  // out [rows, k] int64 = k category indices per row of the weights w [rows, n] (contiguous
  // float64, checked: finite, >= 0, positive sum; without replacement, k <= nonzero count).
  using Multinomial = void (*)(const Tensor& out,
                               const Tensor& w,
                               bool replacement,
                               Generator& gen);
  // Indexing. Index tensors are int64 and already checked to be in range (no negatives); kernels
  // that write through an index are race-free and deterministic: duplicate indices are applied
  // in index order.
  // out = in with dim `dim` replaced by index (1-d): out.select(dim, i) = in.select(dim, index[i]).
  using IndexSelect = void (*)(const Tensor& out,
                               const Tensor& in,
                               int64_t dim,
                               const Tensor& index);
  // out[p] = in[p with coordinate `dim` replaced by index[p]]; out has index's shape. The one
  // indexing kernel that checks its indices itself (it only reads, so it can stop before a bad
  // one): returns false, with an index outside [0, in.size(dim)) in *bad (out is then partly
  // written), or true when all are in range.
  using Gather =
      bool (*)(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index, int64_t* bad);
  // self[p with coordinate `dim` replaced by index[p]] op= src[p], for p over index's shape; src
  // is a tensor (at least index's size in every dim) or a scalar.
  using Scatter = void (*)(
      ScatterOp op, const Tensor& self, int64_t dim, const Tensor& index, const Operand& src);
  // self.select(dim, index[i]) op= source.select(dim, i) for each i of the 1-d index; source a
  // tensor or a scalar.
  using IndexReduce = void (*)(
      ScatterOp op, const Tensor& self, int64_t dim, const Tensor& index, const Operand& source);
  // lo / hi = the smallest and largest value of a non-empty int64 tensor (index bounds checks).
  using IndexBounds = void (*)(const Tensor& index, int64_t* lo, int64_t* hi);
  // out [n, in.dim()] = the coordinates of in's nonzero elements in row-major order; n is known.
  using Nonzero = void (*)(const Tensor& out, const Tensor& in);
  // out = for each value, its insertion point in the sorted last dim of `sorted` (1-d, or with
  // values' leading dims): the first position with sorted >= v (> v when right).
  using SearchSorted = void (*)(const Tensor& out,
                                const Tensor& sorted,
                                const Tensor& values,
                                bool right);
  // out = softmax (log_softmax when log) of in along dim; same shape and floating dtype.
  using Softmax = void (*)(const Tensor& out, const Tensor& in, int64_t dim, bool log);
  // Sorting (backend/cpu/sort.cpp). Lines are the elements along `dim` at one position of the
  // other dims (a 0-d tensor is one line of one element). Elements are ordered by value, NaN
  // above every number, and equal values by position: every result is that of a stable sort, so
  // it is deterministic. Indices are int64 positions along dim in the input.
  // values/indices: in's shape; each line sorted, ascending or descending (NaN first). `stable`
  // only asks for the stable order, which every call gets.
  using Sort = void (*)(const Tensor& values,
                        const Tensor& indices,
                        const Tensor& in,
                        int64_t dim,
                        bool descending,
                        bool stable);
  // values/indices: in's shape with k (0 <= k <= size, checked) at dim: the first k elements of
  // the descending (largest) or ascending order; in that order when `sorted`, otherwise in an
  // unspecified but deterministic order.
  using TopK = void (*)(const Tensor& values,
                        const Tensor& indices,
                        const Tensor& in,
                        int64_t dim,
                        int64_t k,
                        bool largest,
                        bool sorted);
  // values/indices: in's shape with size 1 at dim (size > 0, checked). Kth: the element at
  // position k (0-based, checked) of the ascending order. Median: the one at (size - 1) / 2, or
  // the first NaN when the line has one. NanMedian: the lower median of the line's non-NaN
  // elements, or the first NaN when all are NaN.
  using Select = void (*)(SelectOp op,
                          const Tensor& values,
                          const Tensor& indices,
                          const Tensor& in,
                          int64_t dim,
                          int64_t k);
  // Scans (backend/cpu/scan.cpp): one thread per line, in order along dim, so results do not
  // depend on the thread count. out = the inclusive scan of in along dim (sum, product, or
  // log(sum(exp))); same shape and dtype. Integers wrap; float32 sums and products
  // accumulate in double, 16-bit floats in float32.
  using Scan = void (*)(ScanOp op, const Tensor& out, const Tensor& in, int64_t dim);
  // values/indices: in's shape; the running max (op Max) or min (Min) along dim and the index of
  // its last occurrence. A NaN wins and stays, with the index of the latest NaN (as PyTorch).
  using CumExtreme = void (*)(
      ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
  // out = g * (lo < t < hi) as 0 or 1 in g's dtype, `<=` at a closed bound (NaN is outside):
  // detail::masked_grad. out, g and t have one shape and one floating dtype.
  using MaskedGrad = void (*)(const Tensor& out,
                              const Tensor& g,
                              const Tensor& t,
                              const Scalar& lo,
                              const Scalar& hi,
                              bool lo_closed,
                              bool hi_closed);

  Allocator* allocator = nullptr;  // memory for this device's tensors
  Unary unary[kNumUnaryOps] = {};
  Binary binary[kNumBinaryOps] = {};
  Binary compare[kNumCompareOps] = {};
  ParamUnary param_unary[kNumParamUnaryOps] = {};
  Unary predicate[kNumPredicateOps] = {};  // out is bool, in any dtype
  Where where = nullptr;
  Copy copy = nullptr;
  Fill fill = nullptr;
  MaskedGrad masked_grad = nullptr;
  Reduce reduce = nullptr;
  ArgReduce arg_reduce = nullptr;
  Bmm bmm = nullptr;
  Range range = nullptr;
  Random random = nullptr;
  Randperm randperm = nullptr;
  Multinomial multinomial = nullptr;
  Softmax softmax = nullptr;
  Sort sort = nullptr;
  TopK topk = nullptr;
  Select select = nullptr;
  Scan scan = nullptr;
  CumExtreme cum_extreme = nullptr;
  IndexSelect index_select = nullptr;
  Gather gather = nullptr;
  Scatter scatter = nullptr;
  IndexReduce index_reduce = nullptr;
  Nonzero nonzero = nullptr;
  IndexBounds index_bounds = nullptr;
  SearchSorted searchsorted = nullptr;
  // The neural-network ops' slots: one struct per topic, defined in kernels_<topic>.h and included
  // only by that topic's op and kernel files, so a new slot does not rebuild everything.
  const ConvKernels* conv = nullptr;
  const PoolKernels* pool = nullptr;
  const NormKernels* norm = nullptr;
  const LossKernels* loss = nullptr;
  const RnnKernels* rnn = nullptr;
};

// The table of `device`'s backend; throws if ember was built without it.
const KernelTable& kernels(Device device);
// Returns the slot, or throws "[op] has no <device> kernel".
template <class K>
K kernel(K slot, Device device, const char* op) {
  if (!slot) [[unlikely]] {
    EMBER_FAIL("[", op, "] has no kernel for device ", device);
  }
  return slot;
}

// A topic's slots (kernels(device).conv, ...), or throws "[op] has no <device> kernel".
template <class K>
const K& kernels_of(const K* topic, Device device, const char* op) {
  if (!topic) [[unlikely]] {
    EMBER_FAIL("[", op, "] has no kernel for device ", device);
  }
  return *topic;
}

// One registration function per backend, called from backend/kernels.cpp (the CUDA one only in
// builds with EMBER_CUDA).
namespace cpu {
void register_kernels(KernelTable& table);
}
namespace cuda {
void register_kernels(KernelTable& table);
}

}  // namespace ember
