// Matrix products. mm and bmm are primitives (one kernel: bmm); matmul is composed from them and
// views, so its backward comes from theirs.
#include "ember/ops/linalg.h"

#include <algorithm>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kLinalgOps[] = {
    {"mm", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"bmm", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"matmul", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"addmm", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"addbmm", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"baddbmm", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"addmv", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    // self.addmm_(...) and the like: the product written into self, which keeps its shape (the
    // Tensor methods are made from these records in ember/_tensor.py).
    {"addmm_", OpKind::Inplace, kNumericTypes | kComplexTypes, true},
    {"addbmm_", OpKind::Inplace, kNumericTypes | kComplexTypes, true},
    {"baddbmm_", OpKind::Inplace, kNumericTypes | kComplexTypes, true},
    {"addmv_", OpKind::Inplace, kNumericTypes | kComplexTypes, true},
    {"dot", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"vdot", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"mv", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"outer", OpKind::Linalg, kAllTypesAndComplex, true},
    {"einsum", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"tensordot", OpKind::Linalg, kNumericTypes | kComplexTypes, true},
    {"kron", OpKind::Linalg, kAllTypesAndComplex, true},
};

void check_operands(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dtype() == b.dtype(), "[", op,
              "] expected both operands to have the same dtype, "
              "but got ",
              a.dtype(), " and ", b.dtype());
  EMBER_CHECK(a.device() == b.device(), "[", op,
              "] expected both operands on the same device, "
              "got ",
              a.device(), " and ", b.device());
  EMBER_CHECK_TYPE((kNumericTypes | kComplexTypes).contains(a.dtype()), "[", op,
                   "] not implemented for dtype ", a.dtype());
}

// out = a @ b for 3-d operands, through the kernel, without autograd.
Tensor bmm_nograd(const Tensor& a, const Tensor& b) {
  Tensor out = empty({a.sizes()[0], a.sizes()[1], b.sizes()[2]},
                     TensorOptions(a.dtype()).device(a.device()));
  kernel(kernels(a.device()).linalg.bmm, a.device(), "bmm")(out, a, b);
  return out;
}

// The view of a 2-d tensor as a batch of one, with no graph attached.
Tensor as_batch(const Tensor& m) {
  return Tensor(
      make_ref<TensorImpl>(m.storage(), m.dtype(), DimVector{1, m.sizes()[0], m.sizes()[1]},
                           DimVector{0, m.strides()[0], m.strides()[1]}, m.storage_offset()));
}

// Whether a matrix is laid out column by column (the transpose of a contiguous one), with more
// than one row and column: then its gradient is best computed transposed (mm's backward).
bool column_major(const Tensor& m) {
  return m.sizes()[0] > 1 && m.sizes()[1] > 1 && m.strides()[0] == 1 &&
         m.strides()[1] == m.sizes()[0];
}

}  // namespace

std::span<const OpInfo> linalg_op_infos() { return kLinalgOps; }

Tensor mm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 2 && b.dim() == 2, "[mm] expected 2-D matrices, got shapes ", a.sizes(),
              " and ", b.sizes());
  EMBER_CHECK(a.sizes()[1] == b.sizes()[0], "[mm] mat1 and mat2 shapes cannot be multiplied (",
              a.sizes()[0], "x", a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  check_operands(a, b, "mm");
  Tensor out3 = bmm_nograd(as_batch(a), as_batch(b));
  Tensor out(make_ref<TensorImpl>(out3.storage(), out3.dtype(),
                                  DimVector{a.sizes()[0], b.sizes()[1]}, DimVector{b.sizes()[1], 1},
                                  0));
  if (any_requires_grad(a, b)) {
    record("MmBackward0", {&a, &b}, {&out},
           [sa = SavedTensor(b.requires_grad() ? a : Tensor()),
            sb = SavedTensor(a.requires_grad() ? b : Tensor()), a_cols = column_major(a),
            b_cols = column_major(b)](TensorList& g, Node& n) {
             // Note [Gradient layouts of mm]: each gradient is computed in its operand's
             // layout. linear() multiplies by t(weight), a column-major view; computing that
             // gradient as t(g^T @ a) instead of a^T @ g makes weight.grad come out row-major
             // like the weight, where it would otherwise be copied into the weight's layout
             // (AlexNet's step spent 17% of its time in that transposing copy). The same
             // sums either way, so the same values up to rounding; PyTorch does the same.
             // Complex operands enter conjugated (PyTorch's convention: g @ b^H, a^H @ g).
             TensorList r(2);
             if (n.next_edges()[0].valid()) {
               const Tensor b = conj(sb.unpack(n));
               r[0] = a_cols ? t(mm(b, t(g[0]))) : mm(g[0], t(b));
             }
             if (n.next_edges()[1].valid()) {
               const Tensor a = conj(sa.unpack(n));
               r[1] = b_cols ? t(mm(t(g[0]), a)) : mm(t(a), g[0]);
             }
             return r;
           });
  }
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 3 && b.dim() == 3, "[bmm] expected 3-D tensors, got shapes ", a.sizes(),
              " and ", b.sizes());
  EMBER_CHECK(a.sizes()[0] == b.sizes()[0], "[bmm] batch sizes differ: ", a.sizes(), " and ",
              b.sizes());
  EMBER_CHECK(a.sizes()[2] == b.sizes()[1], "[bmm] batch1 and batch2 shapes cannot be multiplied (",
              a.sizes(), " and ", b.sizes(), ")");
  check_operands(a, b, "bmm");
  Tensor out = bmm_nograd(a, b);
  if (any_requires_grad(a, b)) {
    record("BmmBackward0", {&a, &b}, {&out},
           [sa = SavedTensor(b.requires_grad() ? a : Tensor()),
            sb = SavedTensor(a.requires_grad() ? b : Tensor())](TensorList& g, Node& n) {
             TensorList r(2);
             if (n.next_edges()[0].valid()) r[0] = bmm(g[0], transpose(conj(sb.unpack(n)), 1, 2));
             if (n.next_edges()[1].valid()) r[1] = bmm(transpose(conj(sa.unpack(n)), 1, 2), g[0]);
             return r;
           });
  }
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da > 0 && db > 0, "[matmul] both arguments need to be at least 1-D, but they are ",
              da, "-D and ", db, "-D");
  check_operands(a, b, "matmul");
  const int64_t ka = a.sizes()[da - 1];
  const int64_t kb = db == 1 ? b.sizes()[0] : b.sizes()[db - 2];
  EMBER_CHECK(ka == kb, "[matmul] shapes ", a.sizes(), " and ", b.sizes(),
              " cannot be multiplied (", ka, " != ", kb, " in the contracted dim)");
  if (da == 1 && db == 1) return view(mm(unsqueeze(a, 0), unsqueeze(b, 1)), IntArrayRef{});
  if (da == 2 && db == 1) return squeeze(mm(a, unsqueeze(b, 1)), 1);
  if (da == 1 && db == 2) return squeeze(mm(unsqueeze(a, 0), b), 0);
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && db <= 2) {
    // Fold a's batch dims into its rows: one big matrix product.
    DimVector out_shape(a.sizes().data(), size_t(da - 1));
    const Tensor rows = reshape(a, {numel_of(out_shape), ka});  // -1 cannot be inferred if ka == 0
    if (db == 1) return view(mm(rows, unsqueeze(b, 1)), out_shape);
    out_shape.push_back(b.sizes()[1]);
    return view(mm(rows, b), out_shape);
  }
  // Batched: broadcast the batch dims, flatten them, bmm, and restore them.
  const Tensor a3 = da == 1 ? unsqueeze(a, 0) : a;
  const Tensor b3 = db == 1 ? unsqueeze(b, 1) : b;
  const int64_t n = a3.sizes()[a3.dim() - 2], m = b3.sizes()[b3.dim() - 1];
  const IntArrayRef batch_a = a3.sizes().slice(0, size_t(a3.dim() - 2));
  const IntArrayRef batch_b = b3.sizes().slice(0, size_t(b3.dim() - 2));
  DimVector batch = broadcast_shapes(batch_a, batch_b, "matmul");
  const int64_t nbatch = numel_of(batch);
  DimVector ea = batch, eb = batch;
  ea.push_back(n);
  ea.push_back(ka);
  eb.push_back(ka);
  eb.push_back(m);
  Tensor out =
      bmm(reshape(expand(a3, ea), {nbatch, n, ka}), reshape(expand(b3, eb), {nbatch, ka, m}));
  DimVector out_shape = batch;
  if (da > 1) out_shape.push_back(n);
  if (db > 1) out_shape.push_back(m);
  return view(out, out_shape);
}

// ---- composites ------------------------------------------------------------------------------

namespace {

void check_numeric(const Tensor& t, const char* op) {
  EMBER_CHECK_TYPE((kNumericTypes | kComplexTypes).contains(t.dtype()), "[", op,
                   "] not implemented for dtype ", t.dtype());
}

// sum over dims in x's own dtype (integer sums widen to int64; the products here do not).
Tensor sum_same_dtype(const Tensor& x, IntArrayRef dims) {
  const Tensor s = sum(x, dims, false);
  return s.dtype() == x.dtype() ? s : to_dtype(s, x.dtype());
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op, const char* what) {
  EMBER_CHECK(a.dtype() == b.dtype(), "[", op, "] expected ", what,
              " to have the same dtype, but got ", a.dtype(), " and ", b.dtype());
}

// beta * input + alpha * prod, where input broadcasts to prod's shape (addmm and its relatives).
Tensor scale_and_add(const Tensor& input,
                     const Tensor& prod,
                     const Scalar& beta,
                     const Scalar& alpha,
                     const char* op) {
  check_same_dtype(input, prod, op, "input and the product's operands");
  const IntArrayRef in = input.sizes(), out = prod.sizes();
  bool ok = in.size() <= out.size();
  for (size_t i = 0; ok && i < in.size(); ++i) {
    const int64_t s = in[in.size() - 1 - i];
    ok = s == 1 || s == out[out.size() - 1 - i];
  }
  EMBER_CHECK(ok, "[", op, "] expected input of a shape that broadcasts to ", out, ", got ", in);
  if (!is_floating(prod.dtype())) {
    EMBER_CHECK(!beta.is_floating(), "[", op,
                "] for integral input tensors, argument beta must not be a floating point number");
    EMBER_CHECK(!alpha.is_floating(), "[", op,
                "] for integral input tensors, argument alpha must not be a floating point "
                "number");
  }
  const Tensor p = alpha.to_double() == 1 ? prod : mul(prod, alpha);
  if (beta.to_double() == 0) return p;  // input's values are ignored, nan included
  return add(beta.to_double() == 1 ? input : mul(input, beta), p);
}

void check_batches(const Tensor& b1, const Tensor& b2, const char* op) {
  EMBER_CHECK(b1.dim() == 3 && b2.dim() == 3, "[", op,
              "] expected 3-D tensors batch1 and batch2, got shapes ", b1.sizes(), " and ",
              b2.sizes());
  EMBER_CHECK(b1.sizes()[0] == b2.sizes()[0], "[", op,
              "] batch1 and batch2 must have the same "
              "number of batches, got ",
              b1.sizes()[0], " and ", b2.sizes()[0]);
  EMBER_CHECK(b1.sizes()[2] == b2.sizes()[1], "[", op,
              "] batch1 and batch2 shapes cannot be multiplied (", b1.sizes(), " and ", b2.sizes(),
              ")");
  check_numeric(b1, op);
  check_same_dtype(b1, b2, op, "batch1 and batch2");
}

Tensor dot_impl(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "[", op, "] expected 1-D tensors, but got ", a.dim(),
              "-D and ", b.dim(), "-D tensors");
  EMBER_CHECK(a.dtype() == b.dtype(), "[", op,
              "] expected both vectors to have same dtype, but found ", a.dtype(), " and ",
              b.dtype());
  check_numeric(a, op);
  EMBER_CHECK(a.numel() == b.numel(), "[", op,
              "] inconsistent tensor size, expected tensors of the same number of elements, "
              "but got ",
              a.numel(), " and ", b.numel(), " elements");
  return matmul(a, b);
}

}  // namespace

Tensor addmm(const Tensor& input,
             const Tensor& mat1,
             const Tensor& mat2,
             const Scalar& beta,
             const Scalar& alpha) {
  EMBER_CHECK(mat1.dim() == 2 && mat2.dim() == 2,
              "[addmm] expected 2-D matrices mat1 and mat2, got shapes ", mat1.sizes(), " and ",
              mat2.sizes());
  EMBER_CHECK(mat1.sizes()[1] == mat2.sizes()[0],
              "[addmm] mat1 and mat2 shapes cannot be multiplied (", mat1.sizes()[0], "x",
              mat1.sizes()[1], " and ", mat2.sizes()[0], "x", mat2.sizes()[1], ")");
  check_numeric(mat1, "addmm");
  check_same_dtype(mat1, mat2, "addmm", "mat1 and mat2");
  return scale_and_add(input, mm(mat1, mat2), beta, alpha, "addmm");
}

Tensor addbmm(const Tensor& input,
              const Tensor& batch1,
              const Tensor& batch2,
              const Scalar& beta,
              const Scalar& alpha) {
  check_batches(batch1, batch2, "addbmm");
  const Tensor prod = sum_same_dtype(bmm(batch1, batch2), {0});
  return scale_and_add(input, prod, beta, alpha, "addbmm");
}

Tensor baddbmm(const Tensor& input,
               const Tensor& batch1,
               const Tensor& batch2,
               const Scalar& beta,
               const Scalar& alpha) {
  check_batches(batch1, batch2, "baddbmm");
  return scale_and_add(input, bmm(batch1, batch2), beta, alpha, "baddbmm");
}

Tensor addmv(const Tensor& input,
             const Tensor& mat,
             const Tensor& vec,
             const Scalar& beta,
             const Scalar& alpha) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1,
              "[addmv] expected a 2-D matrix and a 1-D vector, got shapes ", mat.sizes(), " and ",
              vec.sizes());
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0], "[addmv] size mismatch, got mat (", mat.sizes()[0],
              "x", mat.sizes()[1], ") and vec (", vec.sizes()[0], ")");
  check_numeric(mat, "addmv");
  check_same_dtype(mat, vec, "addmv", "mat and vec");
  return scale_and_add(input, matmul(mat, vec), beta, alpha, "addmv");
}

Tensor dot(const Tensor& a, const Tensor& b) { return dot_impl(a, b, "dot"); }

// The first vector conjugated (the identity for real vectors).
Tensor vdot(const Tensor& a, const Tensor& b) { return dot_impl(conj(a), b, "vdot"); }

Tensor mv(const Tensor& mat, const Tensor& vec) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1,
              "[mv] expected a 2-D matrix and a 1-D vector, got shapes ", mat.sizes(), " and ",
              vec.sizes());
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0], "[mv] size mismatch, got mat (", mat.sizes()[0],
              "x", mat.sizes()[1], ") and vec (", vec.sizes()[0], ")");
  check_numeric(mat, "mv");
  check_same_dtype(mat, vec, "mv", "mat and vec");
  return matmul(mat, vec);
}

Tensor outer(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "[outer] expected 1-D tensors, but got ", a.dim(),
              "-D and ", b.dim(), "-D tensors");
  return mul(unsqueeze(a, 1), unsqueeze(b, 0));
}

Tensor kron(const Tensor& a, const Tensor& b) {
  // a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...], then pairs of dims merged.
  const int64_t nd = std::max(a.dim(), b.dim());
  DimVector ia, ib, out;
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t da = d - (nd - a.dim()), db = d - (nd - b.dim());
    const int64_t sa = da >= 0 ? a.sizes()[da] : 1, sb = db >= 0 ? b.sizes()[db] : 1;
    ia.push_back(sa);
    ia.push_back(1);
    ib.push_back(1);
    ib.push_back(sb);
    out.push_back(sa * sb);
  }
  return reshape(mul(reshape(a, ia), reshape(b, ib)), out);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  EMBER_CHECK(dims >= 0, "[tensordot] expects dims >= 0, but got dims=", dims);
  EMBER_CHECK(dims <= a.dim() && dims <= b.dim(), "[tensordot] expects dims <= the number of dims ",
              "of both tensors, but got dims=", dims, " for tensors of ", a.dim(), " and ", b.dim(),
              " dims");
  DimVector da, db;
  for (int64_t i = 0; i < dims; ++i) {
    da.push_back(a.dim() - dims + i);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_CHECK(dims_a.size() == dims_b.size(),
              "[tensordot] both dimension lists should have the same length, got ", dims_a.size(),
              " and ", dims_b.size());
  check_numeric(a, "tensordot");
  check_same_dtype(a, b, "tensordot", "both tensors");
  std::vector<bool> used_a(size_t(a.dim()), false), used_b(size_t(b.dim()), false);
  DimVector perm_a, perm_b, shape;
  int64_t contracted = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t x = wrap_dim(dims_a[i], a.dim(), "tensordot");
    const int64_t y = wrap_dim(dims_b[i], b.dim(), "tensordot");
    EMBER_CHECK(!used_a[size_t(x)] && !used_b[size_t(y)], "[tensordot] dim ",
                used_a[size_t(x)] ? x : y, " appears multiple times in the list of dims");
    EMBER_CHECK(a.sizes()[x] == b.sizes()[y],
                "[tensordot] contracted dimensions need to match, but first has size ",
                a.sizes()[x], " in dim ", x, " and second has size ", b.sizes()[y], " in dim ", y);
    used_a[size_t(x)] = used_b[size_t(y)] = true;
    contracted *= a.sizes()[x];
  }
  // a as [free_a, contracted], b as [contracted, free_b]: one matrix product.
  int64_t free_a = 1, free_b = 1;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (used_a[size_t(d)]) continue;
    perm_a.push_back(d);
    shape.push_back(a.sizes()[d]);
    free_a *= a.sizes()[d];
  }
  for (size_t i = 0; i < dims_a.size(); ++i) perm_a.push_back(wrap_dim(dims_a[i], a.dim(), ""));
  for (size_t i = 0; i < dims_b.size(); ++i) perm_b.push_back(wrap_dim(dims_b[i], b.dim(), ""));
  for (int64_t d = 0; d < b.dim(); ++d) {
    if (used_b[size_t(d)]) continue;
    perm_b.push_back(d);
    shape.push_back(b.sizes()[d]);
    free_b *= b.sizes()[d];
  }
  const Tensor ma = reshape(permute(a, perm_a), {free_a, contracted});
  const Tensor mb = reshape(permute(b, perm_b), {contracted, free_b});
  return reshape(mm(ma, mb), shape);
}

// ---- einsum ----------------------------------------------------------------------------------
//
// Labels are numbered: 'A'-'Z' are 0-25, 'a'-'z' 26-51 (ASCII order, the implicit output's
// order), and the dims under "..." are 52 + k, right-aligned across operands. Each operand first
// takes the diagonal of repeated labels and drops its size-1 dims (they broadcast); then the
// operands are combined from left to right, two at a time, with one bmm: labels both have and
// need later are batch dims, labels both have and no longer need are contracted, labels only one
// has are summed out if no longer needed. The last tensor is summed to the output labels,
// permuted, and given back its size-1 dims.

namespace {

constexpr int kEllipsisLabel = 52;

struct Labeled {
  Tensor t;
  std::vector<int> labels;  // one per dim of t
};

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

char label_char(int l) {
  if (l < 26) return char('A' + l);
  if (l < kEllipsisLabel) return char('a' + l - 26);
  return '.';
}

// A term's letters and where its "..." is (-1 when none).
struct Term {
  std::vector<int> letters;
  int64_t ellipsis_at = -1;
};

Term parse_term(std::string_view s, const std::string& what) {
  Term term;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      EMBER_CHECK(s.substr(i, 3) == "...",
                  "[einsum] found a '.' that is not part of an ellipsis ('...') in ", what);
      EMBER_CHECK(term.ellipsis_at < 0, "[einsum] found more than one ellipsis ('...') in ", what);
      term.ellipsis_at = int64_t(term.letters.size());
      i += 2;
      continue;
    }
    const int l = label_of(s[i]);
    EMBER_CHECK(l >= 0, "[einsum] invalid subscript '", s[i], "' in ", what,
                ": subscripts must be letters in [a-zA-Z]");
    term.letters.push_back(l);
  }
  return term;
}

int64_t label_size(const Labeled& x, int l) {
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (x.labels[i] == l) return x.t.sizes()[int64_t(i)];
  }
  return 1;
}

bool has_label(const Labeled& x, int l) {
  return std::find(x.labels.begin(), x.labels.end(), l) != x.labels.end();
}

// Sums x over its labels in `drop`.
void sum_out(Labeled& x, const std::vector<bool>& drop) {
  DimVector dims;
  std::vector<int> kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (drop[size_t(x.labels[i])])
      dims.push_back(int64_t(i));
    else
      kept.push_back(x.labels[i]);
  }
  if (dims.empty()) return;
  x.t = sum_same_dtype(x.t, dims);
  x.labels = kept;
}

// The pairwise step: a and b into one tensor whose labels are those of a or b in `needed`.
Labeled contract(Labeled a, Labeled b, const std::vector<bool>& needed, int nlabels) {
  // Labels only one side has and nobody needs later: summed out first.
  std::vector<bool> drop_a(size_t(nlabels), false), drop_b(size_t(nlabels), false);
  for (int l : a.labels) drop_a[size_t(l)] = !needed[size_t(l)] && !has_label(b, l);
  for (int l : b.labels) drop_b[size_t(l)] = !needed[size_t(l)] && !has_label(a, l);
  sum_out(a, drop_a);
  sum_out(b, drop_b);
  std::vector<int> batch, left, right, summed;
  for (int l : a.labels) {
    if (!has_label(b, l))
      left.push_back(l);
    else if (needed[size_t(l)])
      batch.push_back(l);
    else
      summed.push_back(l);
  }
  for (int l : b.labels) {
    if (!has_label(a, l)) right.push_back(l);
  }
  auto position = [](const Labeled& x, int l) {
    return int64_t(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
  };
  auto product = [](const Labeled& x, const std::vector<int>& ls) {
    int64_t n = 1;
    for (int l : ls) n *= label_size(x, l);
    return n;
  };
  DimVector perm_a, perm_b, shape;
  for (int l : batch) perm_a.push_back(position(a, l));
  for (int l : left) perm_a.push_back(position(a, l));
  for (int l : summed) perm_a.push_back(position(a, l));
  for (int l : batch) perm_b.push_back(position(b, l));
  for (int l : summed) perm_b.push_back(position(b, l));
  for (int l : right) perm_b.push_back(position(b, l));
  const int64_t nb = product(a, batch), nl = product(a, left), ns = product(a, summed),
                nr = product(b, right);
  const Tensor ta = reshape(permute(a.t, perm_a), {nb, nl, ns});
  const Tensor tb = reshape(permute(b.t, perm_b), {nb, ns, nr});
  Labeled out;
  for (int l : batch) shape.push_back(label_size(a, l));
  for (int l : left) shape.push_back(label_size(a, l));
  for (int l : right) shape.push_back(label_size(b, l));
  out.t = reshape(bmm(ta, tb), shape);
  out.labels = batch;
  out.labels.insert(out.labels.end(), left.begin(), left.end());
  out.labels.insert(out.labels.end(), right.begin(), right.end());
  return out;
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands) {
  EMBER_CHECK(!operands.empty(), "[einsum] expected at least one operand");
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq += c;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  // The input terms.
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    const std::string part = lhs.substr(start, comma == std::string::npos ? comma : comma - start);
    terms.push_back(parse_term(part, "the term for operand " + std::to_string(terms.size())));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(terms.size() == operands.size(), "[einsum] the equation has ", terms.size(),
              " operand terms but ", operands.size(), " operands were given");
  for (size_t i = 0; i < operands.size(); ++i) {
    check_numeric(operands[i], "einsum");
    check_same_dtype(operands[0], operands[i], "einsum", "all operands");
  }
  // The dims under "..." per operand, and the most of them.
  int64_t n_ellipsis = 0;
  std::vector<int64_t> ell(operands.size(), 0);
  for (size_t i = 0; i < operands.size(); ++i) {
    const int64_t nl = int64_t(terms[i].letters.size()), nd = operands[i].dim();
    if (terms[i].ellipsis_at < 0) {
      EMBER_CHECK(nl == nd, "[einsum] the number of subscripts in the equation (", nl,
                  ") does not match the number of dimensions (", nd, ") for operand ", i,
                  " and no ellipsis was given");
    } else {
      EMBER_CHECK(nl <= nd, "[einsum] the number of subscripts in the equation (", nl,
                  ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell[i] = nd - nl;
      n_ellipsis = std::max(n_ellipsis, ell[i]);
    }
  }
  const int nlabels = kEllipsisLabel + int(n_ellipsis);
  std::vector<int64_t> count(size_t(nlabels), 0);
  std::vector<Labeled> xs;
  bool any_ellipsis = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    Labeled x{operands[i], {}};
    const Term& term = terms[i];
    for (size_t j = 0; j <= term.letters.size(); ++j) {
      if (int64_t(j) == term.ellipsis_at) {
        any_ellipsis = true;
        for (int64_t k = 0; k < ell[i]; ++k) {
          x.labels.push_back(kEllipsisLabel + int(n_ellipsis - ell[i] + k));
        }
      }
      if (j < term.letters.size()) x.labels.push_back(term.letters[j]);
    }
    for (int l : x.labels) ++count[size_t(l)];
    xs.push_back(std::move(x));
  }
  // The output labels: explicit, or the ellipsis dims then the letters seen once.
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    const Term out = parse_term(std::string_view(eq).substr(arrow + 2), "the output");
    for (size_t j = 0; j <= out.letters.size(); ++j) {
      if (int64_t(j) == out.ellipsis_at) {
        for (int64_t k = 0; k < n_ellipsis; ++k) out_labels.push_back(kEllipsisLabel + int(k));
      }
      if (j == out.letters.size()) continue;
      const int l = out.letters[j];
      EMBER_CHECK(count[size_t(l)] > 0, "[einsum] output subscript ", label_char(l),
                  " does not appear in the equation for any input operand");
      EMBER_CHECK(std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end(),
                  "[einsum] output subscript ", label_char(l),
                  " appears more than once in the "
                  "output");
      out_labels.push_back(l);
    }
  } else {
    if (any_ellipsis) {
      for (int64_t k = 0; k < n_ellipsis; ++k) out_labels.push_back(kEllipsisLabel + int(k));
    }
    for (int l = 0; l < kEllipsisLabel; ++l) {
      if (count[size_t(l)] == 1) out_labels.push_back(l);
    }
  }
  // Diagonals of repeated labels; then the sizes of each label must agree (or be 1).
  std::vector<int64_t> size(size_t(nlabels), 1);
  for (size_t i = 0; i < xs.size(); ++i) {
    Labeled& x = xs[i];
    for (size_t p = 0; p < x.labels.size(); ++p) {
      for (size_t q = x.labels.size(); q-- > p + 1;) {
        if (x.labels[q] != x.labels[p]) continue;
        const int64_t n = x.t.sizes()[int64_t(p)];
        EMBER_CHECK(x.t.sizes()[int64_t(q)] == n, "[einsum] subscript ", label_char(x.labels[p]),
                    " is repeated for operand ", i, " but the sizes don't match, ", n,
                    " != ", x.t.sizes()[int64_t(q)]);
        DimVector mask_shape(x.labels.size(), 1);
        mask_shape[p] = mask_shape[q] = n;
        const Tensor mask =
            reshape(eye(n, n, TensorOptions(x.t.dtype()).device(x.t.device())), mask_shape);
        x.t = sum_same_dtype(mul(x.t, mask), {int64_t(q)});
        x.labels.erase(x.labels.begin() + std::ptrdiff_t(q));
      }
    }
    for (size_t p = 0; p < x.labels.size(); ++p) {
      const int64_t s = x.t.sizes()[int64_t(p)];
      int64_t& seen = size[size_t(x.labels[p])];
      if (s == 1) continue;
      EMBER_CHECK(seen == 1 || seen == s, "[einsum] operands do not broadcast: subscript ",
                  label_char(x.labels[p]), " has size ", s, " for operand ", i, " but size ", seen,
                  " for an earlier operand");
      seen = s;
    }
    // Size-1 dims broadcast: drop them (the output gets them back).
    for (int64_t p = int64_t(x.labels.size()); p-- > 0;) {
      if (x.t.sizes()[p] == 1) {
        x.t = squeeze(x.t, p);
        x.labels.erase(x.labels.begin() + std::ptrdiff_t(p));
      }
    }
  }
  std::vector<bool> in_output(size_t(nlabels), false);
  for (int l : out_labels) in_output[size_t(l)] = true;
  Labeled acc = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) {
    std::vector<bool> needed = in_output;
    for (size_t j = i + 1; j < xs.size(); ++j) {
      for (int l : xs[j].labels) needed[size_t(l)] = true;
    }
    acc = contract(std::move(acc), xs[i], needed, nlabels);
  }
  std::vector<bool> drop(size_t(nlabels), false);
  for (int l : acc.labels) drop[size_t(l)] = !in_output[size_t(l)];
  sum_out(acc, drop);
  DimVector perm, shape;
  for (int l : out_labels) {
    const auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    if (it != acc.labels.end()) perm.push_back(int64_t(it - acc.labels.begin()));
    shape.push_back(size[size_t(l)]);
  }
  return reshape(permute(acc.t, perm), shape);
}

}  // namespace ember
