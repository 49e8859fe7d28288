// Indexing ops (declarations and contracts in indexing.h). The primitives (index_select, gather,
// scatter with its reductions, the index_add family, nonzero, searchsorted) call a kernel and
// record their backward; the rest (masks, take, advanced indexing) are built from them.
#include "ember/ops/indexing.h"

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/statistics.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kIndexingOps[] = {
    {"index_select", OpKind::Other, kAllTypesAndComplex, true},
    {"gather", OpKind::Other, kAllTypes, true},
    {"scatter", OpKind::Other, kAllTypes, true},
    {"scatter_", OpKind::Inplace, kAllTypes, true},
    {"scatter_add", OpKind::Other, kAllTypes, true},
    {"scatter_add_", OpKind::Inplace, kAllTypes, true},
    {"scatter_reduce", OpKind::Other, kNumericTypes, true},
    {"scatter_reduce_", OpKind::Inplace, kNumericTypes, true},
    {"index_add", OpKind::Other, kAllTypesAndComplex, true},
    {"index_add_", OpKind::Inplace, kAllTypesAndComplex, true},
    {"index_copy", OpKind::Other, kAllTypesAndComplex, true},
    {"index_copy_", OpKind::Inplace, kAllTypesAndComplex, true},
    {"index_fill", OpKind::Other, kAllTypesAndComplex, true},
    {"index_fill_", OpKind::Inplace, kAllTypesAndComplex, true},
    {"masked_fill", OpKind::Other, kAllTypesAndComplex, true},
    {"masked_fill_", OpKind::Inplace, kAllTypesAndComplex, true},
    {"masked_select", OpKind::Other, kAllTypesAndComplex, true},
    {"masked_scatter", OpKind::Other, kAllTypesAndComplex, true},
    {"masked_scatter_", OpKind::Inplace, kAllTypesAndComplex, true},
    {"take", OpKind::Other, kAllTypesAndComplex, true},
    {"take_along_dim", OpKind::Other, kAllTypes, true},
    {"nonzero", OpKind::Other, kAllTypes, false},
    {"argwhere", OpKind::Other, kAllTypes, false},
    {"searchsorted", OpKind::Other, kNumericTypes, false},
    {"bucketize", OpKind::Other, kNumericTypes, false},
    {"index", OpKind::Other, kAllTypesAndComplex, true},
    {"index_put", OpKind::Other, kAllTypesAndComplex, true},
    {"index_put_", OpKind::Inplace, kAllTypesAndComplex, true},
};

int64_t size_at(const Tensor& t, int64_t dim) { return t.dim() ? t.sizes()[dim] : 1; }

int64_t wrap(int64_t dim, const Tensor& t, const char* op) {
  return t.dim() == 0 ? (wrap_dim(dim, 0, op), 0) : wrap_dim(dim, t.dim(), op);
}

// `index` as int64 with every value in [0, size) (negative ones wrapped when allowed), or an
// IndexError naming the op and the first bad value.
Tensor checked_index(const Tensor& index,
                     int64_t size,
                     int64_t dim,
                     const char* op,
                     bool allow_negative,
                     bool int32_ok = true) {
  EMBER_CHECK(index.dtype() == kInt64 || (int32_ok && index.dtype() == kInt32), "[", op,
              "] expected an index tensor of dtype int64", int32_ok ? " or int32" : "", ", got ",
              index.dtype());
  NoGradGuard no_grad;
  Tensor idx = index.dtype() == kInt64 ? index : index.to(kInt64);
  if (idx.numel() == 0) return idx;
  int64_t lo, hi;
  if (const auto bounds = kernels(idx.device()).indexing.index_bounds) {
    bounds(idx, &lo, &hi);
  } else {
    lo = min(idx).item().to_int();
    hi = max(idx).item().to_int();
  }
  EMBER_CHECK_INDEX(lo >= (allow_negative ? -size : 0), "[", op, "] index ", lo,
                    " is out of bounds for dim ", dim, " with size ", size);
  if (lo < 0) idx = where(lt(idx, 0), idx + size, idx);
  EMBER_CHECK_INDEX(hi < size, "[", op, "] index ", hi, " is out of bounds for dim ", dim,
                    " with size ", size);
  return idx;
}

void check_same_dtype(const Tensor& self, const Tensor& other, const char* op, const char* what) {
  EMBER_CHECK(self.dtype() == other.dtype(), "[", op, "] expected self and ", what,
              " to have the same dtype, got ", self.dtype(), " and ", other.dtype());
}

// In-place ops write each element once: an expanded self (stride 0) is refused, as PyTorch does.
void check_writable(const Tensor& self, const char* op) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    EMBER_CHECK(self.strides()[d] != 0 || self.sizes()[d] <= 1, "[", op,
                "] unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location. Please clone() the tensor first.");
  }
}

// A copy of self (no history) with `apply` run on it.
template <class F>
Tensor on_copy(const Tensor& self, F apply) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = clone(self);
  }
  apply(out);
  return out;
}

// The in-place form of an indexing op: straight into self when nothing records, otherwise the
// out-of-place op's result copied in (Note [In-place ops and autograd]).
template <class OutOfPlace, class Apply>
Tensor& inplace(
    Tensor& self, const char* op, bool others_grad, OutOfPlace out_of_place, Apply apply) {
  check_writable(self, op);
  const bool recording = any_requires_grad(self) || others_grad;
  check_inplace(self, op, recording);
  if (!recording) {
    apply(self);
    self.storage()->bump_version();
    return self;
  }
  // From a copy of self: the backward may read self's old value, which is about to change.
  detail::commit_recorded(self, out_of_place(clone(self)), op);
  return self;
}

// `small` placed at the start of zeros of shape `big` (every dim at least as large): the
// gradient of a src that scatter read only partly. Differentiable (slice_backward is).
Tensor embed(const Tensor& small, IntArrayRef big) {
  Tensor out = small;
  DimVector sizes(small.sizes().data(), small.sizes().size());
  for (int64_t d = 0; d < small.dim(); ++d) {
    if (sizes[d] == big[d]) continue;
    const int64_t n = sizes[d];
    sizes[d] = big[d];
    out = slice_backward(out, sizes, d, 0, n, 1);
  }
  return out;
}

// ---- gather / scatter: shapes ----------------------------------------------------------------

// index has self's rank and, in every dim but `dim`, at most self's size (gather reads, scatter
// writes there); src (scatter) is at least index's size everywhere.
void check_gather_shapes(const Tensor& self,
                         int64_t dim,
                         const Tensor& index,
                         const char* op,
                         const Tensor* src = nullptr) {
  EMBER_CHECK(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1), "[", op,
              "] index tensor must have the same number of dimensions as input tensor (got ",
              index.dim(), " and ", self.dim(), ")");
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d != dim) {
      EMBER_CHECK(index.sizes()[d] <= size_at(self, d), "[", op, "] expected index ", index.sizes(),
                  " to be no larger than self ", self.sizes(), " apart from dimension ", dim);
    }
    if (src) {
      EMBER_CHECK(index.sizes()[d] <= size_at(*src, d), "[", op, "] expected index ", index.sizes(),
                  " to be no larger than src ", src->sizes());
    }
  }
}

Tensor prepare_gather_index(const Tensor& self,
                            int64_t dim,
                            const Tensor& index,
                            const char* op,
                            const Tensor* src = nullptr) {
  check_gather_shapes(self, dim, index, op, src);
  return checked_index(index, size_at(self, dim), dim, op, false, false);
}

ScatterOp scatter_op(std::string_view reduce) {
  if (reduce == "sum" || reduce == "mean") return ScatterOp::Add;
  if (reduce == "prod") return ScatterOp::Mul;
  if (reduce == "amax") return ScatterOp::Max;
  if (reduce == "amin") return ScatterOp::Min;
  EMBER_FAIL_KIND(ErrorKind::Value, "[scatter_reduce] reduce argument must be one of sum, prod, ",
                  "mean, amax, amin, got '", reduce, "'");
}

void run_scatter(ScatterOp op,
                 const Tensor& out,
                 int64_t dim,
                 const Tensor& idx,
                 const Operand& src,
                 const char* name) {
  kernel(kernels(out.device()).indexing.scatter, out.device(), name)(op, out, out.dim() ? dim : 0,
                                                                     idx, src);
}

void run_index_reduce(ScatterOp op,
                      const Tensor& out,
                      int64_t dim,
                      const Tensor& idx,
                      const Operand& src,
                      const char* name) {
  if (is_complex(out.dtype())) {
    // Sums and copies of complex numbers are those of their (re, im) pairs: the real kernel
    // over view_as_real, whose added last dim is not the indexed one.
    EMBER_CHECK_TYPE(op == ScatterOp::Add || op == ScatterOp::Assign, "[", name,
                     "] not implemented for dtype ", out.dtype());
    // A 0-d tensor is one element along dim 0, which must stay the indexed dim.
    const Tensor o = out.dim() ? out : reshape(out, {1});
    const int64_t d = out.dim() ? dim : 0;
    Tensor s;
    if (src.tensor) {
      s = src.tensor->dim() ? *src.tensor : reshape(*src.tensor, {1});
    } else {
      // A fill value: the slices it fills, as a tensor (one number cannot fill a pair).
      DimVector shape(o.sizes().data(), o.sizes().size());
      shape[size_t(d)] = idx.numel();
      s = full(shape, src.scalar, TensorOptions(out.dtype()).device(out.device()));
    }
    return run_index_reduce(op, view_as_real(o), d, idx, Operand(view_as_real(s)), name);
  }
  kernel(kernels(out.device()).indexing.index_reduce, out.device(), name)(
      op, out, out.dim() ? dim : 0, idx, src);
}

// ---- index_add / copy / fill: shapes -----------------------------------------------------------

// index is 1-d (or 0-d) and source is self with dim's size replaced by index's length.
Tensor prepare_index_reduce(
    const Tensor& self, int64_t dim, const Tensor& index, const char* op, const Tensor* source) {
  EMBER_CHECK(index.dim() <= 1, "[", op, "] index should have 1 or 0 dimensions, got ",
              index.dim());
  if (source) {
    check_same_dtype(self, *source, op, "source");
    DimVector want(self.sizes().data(), self.sizes().size());
    if (self.dim()) want[dim] = index.numel();
    const bool ok = source->sizes() == IntArrayRef(want) ||
                    (self.dim() == 0 && source->numel() == 1 && index.numel() == 1);
    EMBER_CHECK(ok, "[", op, "] expected source of shape ", want, " (self's shape with dim ", dim,
                " of the index's length), got ", source->sizes());
  }
  return checked_index(index, size_at(self, dim), dim, op, false);
}

}  // namespace

std::span<const OpInfo> indexing_op_infos() { return kIndexingOps; }

// ---- index_select / gather ----------------------------------------------------------------------

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = wrap(dim, self, "index_select");
  EMBER_CHECK(index.dim() <= 1, "[index_select] index should have 1 or 0 dimensions, got ",
              index.dim());
  const Tensor idx = checked_index(index, size_at(self, d), d, "index_select", false);
  EMBER_CHECK_INDEX(self.dim() > 0 || idx.numel() == 1,
                    "[index_select] a 0-d input takes exactly "
                    "one index, got ",
                    idx.numel());
  DimVector shape(self.sizes().data(), self.sizes().size());
  if (self.dim()) shape[d] = idx.numel();
  Tensor out = empty(shape, TensorOptions(self.dtype()).device(self.device()));
  const Tensor in = contiguous(self);  // the kernel copies runs of contiguous memory
  kernel(kernels(self.device()).indexing.index_select, self.device(), "index_select")(
      out, self.dim() ? in : reshape(in, {1}), self.dim() ? d : 0, reshape(idx, {idx.numel()}));
  if (any_requires_grad(self)) {
    record("IndexSelectBackward0", {&self}, {&out},
           [sizes = DimVector(self.sizes().data(), self.dim()), d, si = SavedTensor(idx)](
               TensorList& g, Node& n) {
             const Tensor zeros =
                 ember::zeros(sizes, TensorOptions(g[0].dtype()).device(g[0].device()));
             return TensorList{index_add(zeros, d, si.unpack(n), g[0])};
           });
  }
  return out;
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t d = wrap(dim, self, "gather");
  check_gather_shapes(self, d, index, "gather");
  EMBER_CHECK(index.dtype() == kInt64, "[gather] expected an index tensor of dtype int64, got ",
              index.dtype());
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  // The kernel checks the indices as it reads (one pass over them instead of two).
  int64_t bad = 0;
  const bool ok = kernel(kernels(self.device()).indexing.gather, self.device(), "gather")(
      out, self, self.dim() ? d : 0, index, &bad);
  EMBER_CHECK_INDEX(ok, "[gather] index ", bad, " is out of bounds for dim ", d, " with size ",
                    size_at(self, d));
  const Tensor& idx = index;
  if (any_requires_grad(self)) {
    record("GatherBackward0", {&self}, {&out},
           [sizes = DimVector(self.sizes().data(), self.dim()), d, si = SavedTensor(idx)](
               TensorList& g, Node& n) {
             const Tensor zeros =
                 ember::zeros(sizes, TensorOptions(g[0].dtype()).device(g[0].device()));
             return TensorList{scatter_add(zeros, d, si.unpack(n), g[0])};
           });
  }
  return out;
}

// ---- scatter
// --------------------------------------------------------------------------------------

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t d = wrap(dim, self, "scatter");
  check_same_dtype(self, src, "scatter", "src");
  const Tensor idx = prepare_gather_index(self, d, index, "scatter", &src);
  Tensor out = on_copy(
      self, [&](Tensor& o) { run_scatter(ScatterOp::Assign, o, d, idx, Operand(src), "scatter"); });
  if (any_requires_grad(self, src) && is_differentiable(out.dtype())) {
    record("ScatterBackward0", {&self, &src}, {&out},
           [d, si = SavedTensor(idx), src_sizes = DimVector(src.sizes().data(), src.dim())](
               TensorList& g, Node& n) {
             const Tensor i = si.unpack(n);
             TensorList r(2);
             if (n.next_edges()[0].valid()) r[0] = scatter(g[0], d, i, Scalar(0));
             if (n.next_edges()[1].valid()) r[1] = embed(gather(g[0], d, i), src_sizes);
             return r;
           });
  }
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const int64_t d = wrap(dim, self, "scatter");
  const Tensor idx = prepare_gather_index(self, d, index, "scatter");
  Tensor out = on_copy(self, [&](Tensor& o) {
    run_scatter(ScatterOp::Assign, o, d, idx, Operand(value), "scatter");
  });
  if (any_requires_grad(self) && is_differentiable(out.dtype())) {
    record("ScatterBackward1", {&self}, {&out}, [d, si = SavedTensor(idx)](TensorList& g, Node& n) {
      return TensorList{scatter(g[0], d, si.unpack(n), Scalar(0))};
    });
  }
  return out;
}

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t d = wrap(dim, self, "scatter_");
  check_same_dtype(self, src, "scatter_", "src");
  return inplace(
      self, "scatter_", any_requires_grad(src),
      [&](const Tensor& s) { return scatter(s, dim, index, src); },
      [&](Tensor& s) {
        const Tensor idx = prepare_gather_index(s, d, index, "scatter_", &src);
        run_scatter(ScatterOp::Assign, s, d, idx, Operand(src), "scatter_");
      });
}

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const int64_t d = wrap(dim, self, "scatter_");
  return inplace(
      self, "scatter_", false, [&](const Tensor& s) { return scatter(s, dim, index, value); },
      [&](Tensor& s) {
        const Tensor idx = prepare_gather_index(s, d, index, "scatter_");
        run_scatter(ScatterOp::Assign, s, d, idx, Operand(value), "scatter_");
      });
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t d = wrap(dim, self, "scatter_add");
  check_same_dtype(self, src, "scatter_add", "src");
  const Tensor idx = prepare_gather_index(self, d, index, "scatter_add", &src);
  Tensor out = on_copy(self, [&](Tensor& o) {
    run_scatter(ScatterOp::Add, o, d, idx, Operand(src), "scatter_add");
  });
  if (any_requires_grad(self, src) && is_differentiable(out.dtype())) {
    record("ScatterAddBackward0", {&self, &src}, {&out},
           [d, si = SavedTensor(idx), src_sizes = DimVector(src.sizes().data(), src.dim())](
               TensorList& g, Node& n) {
             TensorList r(2);
             if (n.next_edges()[0].valid()) r[0] = g[0];
             if (n.next_edges()[1].valid()) r[1] = embed(gather(g[0], d, si.unpack(n)), src_sizes);
             return r;
           });
  }
  return out;
}

Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t d = wrap(dim, self, "scatter_add_");
  check_same_dtype(self, src, "scatter_add_", "src");
  return inplace(
      self, "scatter_add_", any_requires_grad(src),
      [&](const Tensor& s) { return scatter_add(s, dim, index, src); },
      [&](Tensor& s) {
        const Tensor idx = prepare_gather_index(s, d, index, "scatter_add_", &src);
        run_scatter(ScatterOp::Add, s, d, idx, Operand(src), "scatter_add_");
      });
}

Tensor scatter_reduce(const Tensor& self,
                      int64_t dim,
                      const Tensor& index,
                      const Tensor& src,
                      std::string_view reduce,
                      bool include_self) {
  const char* name = "scatter_reduce";
  const int64_t d = wrap(dim, self, name);
  const ScatterOp op = scatter_op(reduce);
  check_same_dtype(self, src, name, "src");
  EMBER_CHECK_TYPE(self.dtype() != kBool, "[scatter_reduce] not implemented for dtype bool");
  const Tensor idx = prepare_gather_index(self, d, index, name, &src);
  const bool mean = reduce == "mean";
  Tensor out, count;
  {
    NoGradGuard no_grad;
    out = clone(self);
    if (!include_self) {
      // The scattered-to positions start from the reduction's identity instead of self.
      Tensor start;
      switch (op) {
        case ScatterOp::Mul:
          start = ones_like(src);
          break;
        case ScatterOp::Max:
        case ScatterOp::Min:
          start = src;
          break;  // the reduction of src alone
        default:
          start = zeros_like(src);
          break;
      }
      run_scatter(ScatterOp::Assign, out, d, idx, Operand(start), name);
    }
    run_scatter(op, out, d, idx, Operand(src), name);
    if (mean) {
      // Divide by how many values each position received (self counting once if included).
      count = full_like(self, include_self ? 1 : 0);
      run_scatter(ScatterOp::Add, count, d, idx, Operand(ones_like(src)), name);
      count = where(eq(count, 0), Scalar(1), count);
      out = is_floating(out.dtype()) ? out / count : floor_divide(out, count);
    }
  }
  if (any_requires_grad(self, src) && is_differentiable(out.dtype())) {
    record("ScatterReduceBackward0", {&self, &src}, {&out},
           [d, op, mean, include_self, src_sizes = DimVector(src.sizes().data(), src.dim()),
            si = SavedTensor(idx), sx = SavedTensor(self), ss = SavedTensor(src),
            so = SavedTensor(out, 0), sc = SavedTensor(count)](TensorList& g, Node& n) {
             const Tensor i = si.unpack(n), x = sx.unpack(n), s = ss.unpack(n), y = so.unpack(n);
             const Tensor gy = g[0];
             // Positions that received a value, where self is replaced when !include_self.
             const Tensor hit = scatter(zeros_like(x, TensorOptions(kBool)), d, i, Scalar(true));
             Tensor gx, gs;
             switch (op) {
               case ScatterOp::Add: {
                 const Tensor gm = mean ? gy / sc.unpack(n) : gy;
                 gx = include_self ? gm : where(hit, Scalar(0), gm);
                 gs = gather(gm, d, i);
                 break;
               }
               case ScatterOp::Max:
               case ScatterOp::Min: {
                 // Shared evenly among the values equal to the result (self included if it was).
                 const Tensor self_tie =
                     include_self ? eq(x, y) : logical_and(eq(x, y), logical_not(hit));
                 const Tensor src_tie = eq(s, gather(y, d, i));
                 Tensor ties = scatter_add(self_tie.to(gy.dtype()), d, i, src_tie.to(gy.dtype()));
                 const Tensor share = gy / where(eq(ties, 0), Scalar(1), ties);
                 gx = share * self_tie;
                 gs = gather(share, d, i) * src_tie;
                 break;
               }
               default: {  // product: out / value, exact where no value is zero
                 EMBER_CHECK_KIND(ErrorKind::NotImplemented,
                                  !any(eq(s, 0)).item().to_bool() &&
                                      (!include_self || !any(eq(x, 0)).item().to_bool()),
                                  "[scatter_reduce] the gradient of reduce='prod' with zeros in "
                                  "the input is not implemented yet");
                 gx = include_self ? gy * y / x : where(hit, Scalar(0), gy);
                 gs = gather(gy * y, d, i) / s;
                 break;
               }
             }
             return TensorList{gx, embed(gs, src_sizes)};
           });
  }
  return out;
}

Tensor& scatter_reduce_(Tensor& self,
                        int64_t dim,
                        const Tensor& index,
                        const Tensor& src,
                        std::string_view reduce,
                        bool include_self) {
  return inplace(
      self, "scatter_reduce_", any_requires_grad(src),
      [&](const Tensor& s) { return scatter_reduce(s, dim, index, src, reduce, include_self); },
      [&](Tensor& s) {
        NoGradGuard no_grad;
        copy_(s, scatter_reduce(s, dim, index, src, reduce, include_self));
      });
}

// ---- index_add / index_copy / index_fill --------------------------------------------------------

Tensor index_add(const Tensor& self,
                 int64_t dim,
                 const Tensor& index,
                 const Tensor& source,
                 const Scalar& alpha) {
  const int64_t d = wrap(dim, self, "index_add");
  const Tensor idx = prepare_index_reduce(self, d, index, "index_add", &source);
  Tensor src;
  {
    NoGradGuard no_grad;
    src = alpha.is_integral() && alpha.to_int() == 1 ? source : mul(source, alpha);
  }
  Tensor out = on_copy(self, [&](Tensor& o) {
    run_index_reduce(ScatterOp::Add, o, d, idx, Operand(src), "index_add");
  });
  if (any_requires_grad(self, source) && is_differentiable(out.dtype())) {
    record("IndexAddBackward0", {&self, &source}, {&out},
           [d, alpha, si = SavedTensor(idx), sdim = source.dim()](TensorList& g, Node& n) {
             TensorList r(2);
             if (n.next_edges()[0].valid()) r[0] = g[0];
             if (n.next_edges()[1].valid()) {
               Tensor gs = index_select(g[0], d, si.unpack(n));
               if (!(alpha.is_integral() && alpha.to_int() == 1)) gs = gs * alpha;
               r[1] = sdim == 0 ? reshape(gs, {}) : gs;
             }
             return r;
           });
  }
  return out;
}

Tensor& index_add_(
    Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return inplace(
      self, "index_add_", any_requires_grad(source),
      [&](const Tensor& s) { return index_add(s, dim, index, source, alpha); },
      [&](Tensor& s) {
        const int64_t d = wrap(dim, s, "index_add_");
        const Tensor idx = prepare_index_reduce(s, d, index, "index_add_", &source);
        const Tensor src = alpha.is_integral() && alpha.to_int() == 1 ? source : mul(source, alpha);
        run_index_reduce(ScatterOp::Add, s, d, idx, Operand(src), "index_add_");
      });
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = wrap(dim, self, "index_copy");
  const Tensor idx = prepare_index_reduce(self, d, index, "index_copy", &source);
  Tensor out = on_copy(self, [&](Tensor& o) {
    run_index_reduce(ScatterOp::Assign, o, d, idx, Operand(source), "index_copy");
  });
  if (any_requires_grad(self, source) && is_differentiable(out.dtype())) {
    record("IndexCopyBackward0", {&self, &source}, {&out},
           [d, si = SavedTensor(idx), sdim = source.dim()](TensorList& g, Node& n) {
             const Tensor i = si.unpack(n);
             TensorList r(2);
             if (n.next_edges()[0].valid()) r[0] = index_fill(g[0], d, i, Scalar(0));
             if (n.next_edges()[1].valid()) {
               const Tensor gs = index_select(g[0], d, i);
               r[1] = sdim == 0 ? reshape(gs, {}) : gs;
             }
             return r;
           });
  }
  return out;
}

Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return inplace(
      self, "index_copy_", any_requires_grad(source),
      [&](const Tensor& s) { return index_copy(s, dim, index, source); },
      [&](Tensor& s) {
        const int64_t d = wrap(dim, s, "index_copy_");
        const Tensor idx = prepare_index_reduce(s, d, index, "index_copy_", &source);
        run_index_reduce(ScatterOp::Assign, s, d, idx, Operand(source), "index_copy_");
      });
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const int64_t d = wrap(dim, self, "index_fill");
  check_fill_value(value, self.dtype(), "index_fill");
  const Tensor idx = prepare_index_reduce(self, d, index, "index_fill", nullptr);
  Tensor out = on_copy(self, [&](Tensor& o) {
    run_index_reduce(ScatterOp::Assign, o, d, idx, Operand(value), "index_fill");
  });
  if (any_requires_grad(self) && is_differentiable(out.dtype())) {
    record("IndexFillBackward0", {&self}, {&out},
           [d, si = SavedTensor(idx)](TensorList& g, Node& n) {
             return TensorList{index_fill(g[0], d, si.unpack(n), Scalar(0))};
           });
  }
  return out;
}

Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return inplace(
      self, "index_fill_", false, [&](const Tensor& s) { return index_fill(s, dim, index, value); },
      [&](Tensor& s) {
        const int64_t d = wrap(dim, s, "index_fill_");
        check_fill_value(value, s.dtype(), "index_fill_");
        const Tensor idx = prepare_index_reduce(s, d, index, "index_fill_", nullptr);
        run_index_reduce(ScatterOp::Assign, s, d, idx, Operand(value), "index_fill_");
      });
}

// ---- masks
// ------------------------------------------------------------------------------------------

namespace {
void check_mask(const Tensor& self, const Tensor& mask, const char* op, bool self_fixed) {
  EMBER_CHECK(mask.dtype() == kBool, "[", op, "] expected a bool mask, got ", mask.dtype());
  if (self_fixed) {
    EMBER_CHECK(is_expandable_to(mask.sizes(), self.sizes()), "[", op, "] the mask of shape ",
                mask.sizes(), " cannot be broadcast to self's shape ", self.sizes());
  }
}
}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_mask(self, mask, "masked_fill", true);
  check_fill_value(value, self.dtype(), "masked_fill");
  // A 0-d value of self's dtype: the result keeps self's dtype, as PyTorch's.
  return where(mask, scalar_tensor(value, TensorOptions(self.dtype()).device(self.device())), self);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_mask(self, mask, "masked_fill", true);
  EMBER_CHECK(value.dim() == 0, "[masked_fill] only supports a 0-dimensional value tensor, got ",
              value.dim(), " dimensions");
  return where(mask, value.dtype() == self.dtype() ? value : value.to(self.dtype()), self);
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  check_mask(self, mask, "masked_fill_", true);
  check_fill_value(value, self.dtype(), "masked_fill_");
  return inplace(
      self, "masked_fill_", false, [&](const Tensor& s) { return masked_fill(s, mask, value); },
      [&](Tensor& s) {
        // where() into a fresh tensor, then copied: one pass more than a dedicated kernel, but
        // no kernel of its own (masked writes are rare on hot paths).
        NoGradGuard no_grad;
        copy_(s, masked_fill(s, mask, value));
      });
}

Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  check_mask(self, mask, "masked_fill_", true);
  return inplace(
      self, "masked_fill_", any_requires_grad(value),
      [&](const Tensor& s) { return masked_fill(s, mask, value); },
      [&](Tensor& s) {
        NoGradGuard no_grad;
        copy_(s, masked_fill(s, mask, value));
      });
}

namespace {
// The flat positions (int64, 1-d) of the true elements of a bool tensor.
Tensor flat_true(const Tensor& mask) {
  NoGradGuard no_grad;
  return reshape(nonzero(reshape(mask, {mask.numel()})), {-1});
}
}  // namespace

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  check_mask(self, mask, "masked_select", false);
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_select");
  const Tensor x = self.sizes() == IntArrayRef(shape) ? self : expand(self, shape);
  const Tensor m = mask.sizes() == IntArrayRef(shape) ? mask : expand(mask, shape);
  return index_select(reshape(x, {x.numel()}), 0, flat_true(m));
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_mask(self, mask, "masked_scatter", true);
  check_same_dtype(self, source, "masked_scatter", "source");
  const Tensor m = mask.sizes() == self.sizes() ? mask : expand(mask, self.sizes());
  const Tensor pos = flat_true(m);
  EMBER_CHECK(source.numel() >= pos.numel(), "[masked_scatter] the mask has ", pos.numel(),
              " true elements but source only ", source.numel(), " elements");
  const Tensor src = narrow(reshape(source, {source.numel()}), 0, 0, pos.numel());
  return reshape(index_copy(reshape(self, {self.numel()}), 0, pos, src), self.sizes());
}

Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  return inplace(
      self, "masked_scatter_", any_requires_grad(source),
      [&](const Tensor& s) { return masked_scatter(s, mask, source); },
      [&](Tensor& s) {
        NoGradGuard no_grad;
        copy_(s, masked_scatter(s, mask, source));
      });
}

Tensor take(const Tensor& self, const Tensor& index) {
  const Tensor idx = checked_index(index, self.numel(), 0, "take", true, false);
  const Tensor flat = reshape(self, {self.numel()});
  return reshape(index_select(flat, 0, reshape(idx, {idx.numel()})), index.sizes());
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  if (!dim) return take(reshape(self, {self.numel()}), reshape(indices, {indices.numel()}));
  EMBER_CHECK(self.dim() == indices.dim(),
              "[take_along_dim] input and indices should have the "
              "same number of dimensions, but got ",
              self.dim(), " and ", indices.dim());
  const int64_t d = wrap(*dim, self, "take_along_dim");
  // Broadcast every dim but `dim`: self keeps its own size there, indices theirs.
  DimVector xs(self.sizes().data(), self.sizes().size()),
      is(indices.sizes().data(), indices.sizes().size());
  xs[d] = is[d] = 1;
  const DimVector b = broadcast_shapes(xs, is, "take_along_dim");
  DimVector bx = b, bi = b;
  if (self.dim()) {
    bx[d] = self.sizes()[d];
    bi[d] = indices.sizes()[d];
  }
  const Tensor idx = checked_index(indices, size_at(self, d), d, "take_along_dim", true, false);
  return gather(expand(self, bx), d, expand(idx, bi));
}

// ---- nonzero / searchsorted -------------------------------------------------------------------

Tensor nonzero(const Tensor& self) {
  int64_t n;
  {
    NoGradGuard no_grad;
    n = count_nonzero(self).item().to_int();
  }
  Tensor out = empty({n, self.dim()}, TensorOptions(kInt64).device(self.device()));
  if (n > 0) kernel(kernels(self.device()).indexing.nonzero, self.device(), "nonzero")(out, self);
  return out;
}

std::vector<Tensor> nonzero_tuple(const Tensor& self) {
  const Tensor nz = nonzero(self.dim() == 0 ? reshape(self, {1}) : self);
  std::vector<Tensor> out;
  for (int64_t d = 0; d < nz.sizes()[1]; ++d) out.push_back(contiguous(select(nz, 1, d)));
  return out;
}

Tensor searchsorted(const Tensor& sorted_sequence,
                    const Tensor& values,
                    bool out_int32,
                    bool right) {
  const char* op = "searchsorted";
  EMBER_CHECK(sorted_sequence.dim() >= 1,
              "[searchsorted] expected a sorted_sequence with at "
              "least one dim, got a 0-d tensor");
  if (sorted_sequence.dim() > 1) {
    IntArrayRef lead(sorted_sequence.sizes().data(), sorted_sequence.dim() - 1);
    const bool ok = values.dim() == sorted_sequence.dim() &&
                    IntArrayRef(values.sizes().data(), values.dim() - 1) == lead;
    EMBER_CHECK(ok,
                "[searchsorted] boundaries and input should have the same leading dims (all "
                "but the last), got ",
                sorted_sequence.sizes(), " and ", values.sizes());
  }
  const DType dt = promote_types(sorted_sequence.dtype(), values.dtype());
  EMBER_CHECK_TYPE(kNumericTypes.contains(dt), "[searchsorted] not implemented for dtype ", dt);
  Tensor out = empty(values.sizes(), TensorOptions(kInt64).device(values.device()));
  kernel(kernels(values.device()).indexing.searchsorted, values.device(), op)(
      out, contiguous(sorted_sequence.to(dt)), contiguous(values.to(dt)), right);
  return out_int32 ? out.to(kInt32) : out;
}

Tensor searchsorted(const Tensor& sorted_sequence,
                    const Scalar& value,
                    bool out_int32,
                    bool right) {
  EMBER_CHECK(sorted_sequence.dim() == 1,
              "[searchsorted] a scalar value needs a 1-d "
              "sorted_sequence, got ",
              sorted_sequence.dim(), " dims");
  return searchsorted(sorted_sequence, scalar_tensor(value, TensorOptions(sorted_sequence.dtype())),
                      out_int32, right);
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1,
              "[bucketize] boundaries tensor must be 1 dimension, but got "
              "dim(",
              boundaries.dim(), ")");
  return searchsorted(boundaries, input, out_int32, right);
}

// ---- advanced indexing ------------------------------------------------------------------------

namespace {

// The indexed dims in order and their index tensors (masks expanded into one per dim, negative
// indices wrapped), broadcast to a common shape.
struct Advanced {
  DimVector dims;
  std::vector<Tensor> index;  // int64, each of shape `shape`
  DimVector shape;
  bool adjacent = true;
};

Advanced prepare_advanced(const Tensor& self, const OptionalTensors& indices, const char* op) {
  EMBER_CHECK_INDEX(int64_t(indices.size()) <= self.dim(), "[", op,
                    "] too many indices for tensor of dimension ", self.dim(), " (got ",
                    indices.size(), ")");
  Advanced a;
  int64_t d = 0;
  for (const auto& it : indices) {
    if (!it) {
      ++d;
      continue;
    }
    if (it->dtype() == kBool || it->dtype() == kUInt8) {
      const Tensor mask = it->dtype() == kBool ? *it : ne(*it, 0);
      EMBER_CHECK_INDEX(d + mask.dim() <= self.dim(), "[", op,
                        "] too many indices for tensor of "
                        "dimension ",
                        self.dim());
      for (int64_t k = 0; k < mask.dim(); ++k) {
        EMBER_CHECK_INDEX(mask.sizes()[k] == self.sizes()[d + k], "[", op,
                          "] The shape of the "
                          "mask ",
                          mask.sizes(), " at index ", k,
                          " does not match the shape of "
                          "the indexed tensor ",
                          self.sizes(), " at index ", d + k);
      }
      const std::vector<Tensor> parts = nonzero_tuple(mask);
      for (int64_t k = 0; k < mask.dim(); ++k) {
        a.dims.push_back(d + k);
        a.index.push_back(parts[size_t(k)]);
      }
      if (mask.dim() == 0) {  // x[True]: a new dim of size 1 (or 0 for False)
        EMBER_FAIL_KIND(ErrorKind::NotImplemented, "[", op,
                        "] a 0-d bool index is not supported yet");
      }
      d += mask.dim();
      continue;
    }
    EMBER_CHECK_INDEX(it->dtype() == kInt64 || it->dtype() == kInt32, "[", op,
                      "] tensors used "
                      "as indices must be long, int, byte or bool tensors, got ",
                      it->dtype());
    a.dims.push_back(d);
    a.index.push_back(checked_index(*it, self.sizes()[d], d, op, true));
    ++d;
  }
  for (size_t k = 1; k < a.dims.size(); ++k) a.adjacent &= a.dims[k] == a.dims[k - 1] + 1;
  for (const Tensor& t : a.index) a.shape = broadcast_shapes(a.shape, t.sizes(), op);
  return a;
}

// self with the indexed dims first (in order) and flattened into one, and the flat index into
// that dim (shape a.shape).
std::pair<Tensor, Tensor> flatten_indexed(const Tensor& self, const Advanced& a) {
  DimVector perm = a.dims;
  DimVector rest_sizes;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (std::find(a.dims.begin(), a.dims.end(), d) == a.dims.end()) {
      perm.push_back(d);
      rest_sizes.push_back(self.sizes()[d]);
    }
  }
  Tensor flat_index;
  int64_t block = 1;
  {
    NoGradGuard no_grad;
    for (size_t k = a.dims.size(); k-- > 0;) {
      const Tensor term = expand(a.index[k], a.shape) * block;
      flat_index = flat_index.defined() ? flat_index + term : term;
      block *= self.sizes()[a.dims[k]];
    }
  }
  DimVector flat_shape{block};
  for (int64_t r : rest_sizes) flat_shape.push_back(r);
  return {reshape(permute(self, perm), flat_shape), flat_index};
}

}  // namespace

Tensor index(const Tensor& self, const OptionalTensors& indices) {
  const Advanced a = prepare_advanced(self, indices, "index");
  if (a.dims.empty()) return self;
  auto [flat, flat_index] = flatten_indexed(self, a);
  const int64_t n = flat_index.numel();
  Tensor out = index_select(flat, 0, reshape(flat_index, {n}));
  // [n, rest...] -> [shape..., rest...], then the broadcast dims go where the indexed dims were
  // when those were adjacent.
  DimVector shape = a.shape;
  for (int64_t d = 1; d < out.dim(); ++d) shape.push_back(out.sizes()[d]);
  out = reshape(out, shape);
  const int64_t first = a.dims[0], nb = int64_t(a.shape.size());
  if (a.adjacent && first > 0) {
    DimVector perm;
    for (int64_t d = 0; d < first; ++d) perm.push_back(nb + d);
    for (int64_t d = 0; d < nb; ++d) perm.push_back(d);
    for (int64_t d = nb + first; d < out.dim(); ++d) perm.push_back(d);
    out = permute(out, perm);
  }
  return out;
}

Tensor index_put(const Tensor& self,
                 const OptionalTensors& indices,
                 const Tensor& values,
                 bool accumulate) {
  const Advanced a = prepare_advanced(self, indices, "index_put");
  check_same_dtype(self, values, "index_put", "values");
  if (a.dims.empty())
    return accumulate ? self + values : where(ones_like(self, TensorOptions(kBool)), values, self);
  auto [flat, flat_index] = flatten_indexed(self, a);
  // The values in the shape index() would return, then in the flattened layout.
  const int64_t first = a.dims[0], nb = int64_t(a.shape.size());
  DimVector result_shape = a.shape;
  for (int64_t d = 1; d < flat.dim(); ++d) result_shape.push_back(flat.sizes()[d]);
  Tensor v = values;
  if (a.adjacent && first > 0) {
    // index() moves the broadcast dims to `first`; bring values' dims back to the front.
    DimVector shown;  // result shape as index() returns it
    for (int64_t d = 0; d < first; ++d) shown.push_back(result_shape[nb + d]);
    for (int64_t d = 0; d < nb; ++d) shown.push_back(result_shape[d]);
    for (int64_t d = nb + first; d < int64_t(result_shape.size()); ++d)
      shown.push_back(result_shape[d]);
    v = expand(v, shown);
    DimVector perm;
    for (int64_t d = 0; d < nb; ++d) perm.push_back(first + d);
    for (int64_t d = 0; d < first; ++d) perm.push_back(d);
    for (int64_t d = nb + first; d < int64_t(shown.size()); ++d) perm.push_back(d);
    v = permute(v, perm);
  } else {
    v = expand(v, result_shape);
  }
  const int64_t n = flat_index.numel();
  DimVector vflat{n};
  for (int64_t d = nb; d < int64_t(result_shape.size()); ++d) vflat.push_back(result_shape[d]);
  v = reshape(v, vflat);
  const Tensor idx = reshape(flat_index, {n});
  const Tensor put = accumulate ? index_add(flat, 0, idx, v) : index_copy(flat, 0, idx, v);
  // Back to self's layout: undo the flattening and the permutation.
  DimVector perm = a.dims, permuted_shape;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (std::find(a.dims.begin(), a.dims.end(), d) == a.dims.end()) perm.push_back(d);
  for (int64_t d : perm) permuted_shape.push_back(self.sizes()[d]);
  DimVector inverse(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inverse[size_t(perm[k])] = int64_t(k);
  return permute(reshape(put, permuted_shape), inverse);
}

Tensor& index_put_(Tensor& self,
                   const OptionalTensors& indices,
                   const Tensor& values,
                   bool accumulate) {
  // Computed out of place and copied in: O(self.numel()) rather than O(indexed elements). Masks
  // of self's shape with a 0-d value (x[mask] = v, the common case) go through masked_fill_.
  if (indices.size() == 1 && indices[0] && indices[0]->dtype() == kBool && values.dim() == 0 &&
      indices[0]->sizes() == self.sizes() && values.dtype() == self.dtype()) {
    return masked_fill_(self, *indices[0], values);
  }
  return inplace(
      self, "index_put_", any_requires_grad(values),
      [&](const Tensor& s) { return index_put(s, indices, values, accumulate); },
      [&](Tensor& s) {
        NoGradGuard no_grad;
        copy_(s, index_put(s, indices, values, accumulate));
      });
}

}  // namespace ember
