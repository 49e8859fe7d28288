// Matrix products. mm and bmm are primitives (one kernel: bmm); matmul is composed from them and
// views, so its backward comes from theirs.
#include "ember/ops/linalg.h"

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kLinalgOps[] = {
    {"mm", OpKind::Linalg, kNumericTypes, true},
    {"bmm", OpKind::Linalg, kNumericTypes, true},
    {"matmul", OpKind::Linalg, kNumericTypes, true},
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
  EMBER_CHECK_TYPE(kNumericTypes.contains(a.dtype()), "[", op, "] not implemented for dtype ",
                   a.dtype());
}

// out = a @ b for 3-d operands, through the kernel, without autograd.
Tensor bmm_nograd(const Tensor& a, const Tensor& b) {
  Tensor out = empty({a.sizes()[0], a.sizes()[1], b.sizes()[2]},
                     TensorOptions(a.dtype()).device(a.device()));
  kernel(kernels(a.device()).bmm, a.device(), "bmm")(out, a, b);
  return out;
}

// The view of a 2-d tensor as a batch of one, with no graph attached.
Tensor as_batch(const Tensor& m) {
  return Tensor(
      make_ref<TensorImpl>(m.storage(), m.dtype(), DimVector{1, m.sizes()[0], m.sizes()[1]},
                           DimVector{0, m.strides()[0], m.strides()[1]}, m.storage_offset()));
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
            sb = SavedTensor(a.requires_grad() ? b : Tensor())](TensorList& g, Node& n) {
             TensorList r(2);
             if (n.next_edges()[0].valid()) r[0] = mm(g[0], t(sb.unpack(n)));
             if (n.next_edges()[1].valid()) r[1] = mm(t(sa.unpack(n)), g[0]);
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
             if (n.next_edges()[0].valid()) r[0] = bmm(g[0], transpose(sb.unpack(n), 1, 2));
             if (n.next_edges()[1].valid()) r[1] = bmm(transpose(sa.unpack(n), 1, 2), g[0]);
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

}  // namespace ember
