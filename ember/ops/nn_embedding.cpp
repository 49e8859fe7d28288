// Neural-network ops: embedding, embedding_renorm_ and embedding_bag (docs/design/nn_loss.md;
// their registry records are in ops/nn_loss.cpp). The lookups and their dense backward run
// kernels (backend/cpu/nn_loss.cpp); the backward of embedding switches to index_add when it is
// itself recorded (create_graph), so its second derivative works.
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_embedding.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/indexing.h"
#include "ember/ops/nn_embedding.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/shape.h"
#include "ember/ops/sort.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kEmbeddingOps[] = {
    {"nn.functional.embedding", OpKind::Other, kAllTypes, true},
    {"nn.functional.embedding_bag", OpKind::Other, kFloatingTypes, true},
};

void check_floating_weight(const Tensor& w, const char* op) {
  EMBER_CHECK_TYPE(is_floating(w.dtype()), "[", op,
                   "] expected a floating-point weight, got dtype ", w.dtype());
}

// The indices as a contiguous int64 vector; int32 and int64 are accepted, as PyTorch.
Tensor index_vector(const Tensor& indices, const char* op, const char* what) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, "[", op, "] expected ", what,
              " of dtype int64 or int32, got dtype ", indices.dtype());
  return reshape(indices.to(kInt64), {-1}).contiguous();
}

int64_t normalise_padding(std::optional<int64_t> padding_idx, int64_t rows, const char* op) {
  if (!padding_idx) return -1;
  EMBER_CHECK(*padding_idx >= -rows && *padding_idx < rows, "[", op,
              "] padding_idx must be within the number of embeddings, ", -rows, " through ",
              rows - 1, ", got ", *padding_idx);
  return *padding_idx < 0 ? *padding_idx + rows : *padding_idx;
}

// Second derivatives of embedding_bag are not implemented (nor in PyTorch): a gradient computed
// under create_graph gets a node that raises if it is differentiated.
void refuse_double_backward(const Tensor& result, std::initializer_list<const Tensor*> inputs) {
  record("EmbeddingBagBackwardBackward0", inputs, {&result}, [](TensorList&, Node&) -> TensorList {
    EMBER_FAIL_KIND(ErrorKind::NotImplemented,
                    "[embedding_bag] the derivative of embedding_bag's backward is not "
                    "implemented (nor in PyTorch)");
  });
}

}  // namespace

std::span<const OpInfo> nn_embedding_op_infos() { return kEmbeddingOps; }

Tensor& embedding_renorm_(Tensor& weight, const Tensor& input, double max_norm, double norm_type) {
  const char* op = "embedding_renorm_";
  EMBER_CHECK(weight.dim() == 2, "[", op, "] expected a 2-d weight, got ", weight.dim(), "-d");
  check_floating_weight(weight, op);
  const Tensor idx = index_vector(input, op, "indices");
  if (idx.numel() == 0) return weight;
  NoGradGuard no_grad;
  const Tensor rows = std::get<0>(unique(idx));
  const int64_t lo = rows[0].item<int64_t>(), hi = rows[rows.numel() - 1].item<int64_t>();
  EMBER_CHECK_INDEX(lo >= 0 && hi < weight.sizes()[0], "[", op, "] index ", lo < 0 ? lo : hi,
                    " is out of range for a weight of ", weight.sizes()[0], " rows");
  kernels_of(kernels(weight.device()).nn_embedding, weight.device(), op)
      .embedding_renorm(weight, rows, max_norm, norm_type);
  weight.storage()->bump_version();
  return weight;
}

Tensor embedding(const Tensor& input,
                 const Tensor& weight,
                 std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm,
                 double norm_type,
                 bool scale_grad_by_freq,
                 bool sparse) {
  const char* op = "embedding";
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !sparse, "[", op,
                   "] sparse=True needs sparse gradients, which ember does not have; use "
                   "sparse=False (the gradient is then dense)");
  EMBER_CHECK(weight.dim() == 2, "[", op, "] 'weight' must be 2-D, got ", weight.dim(), "-D");
  // The gradient kernel sums real rows only.
  EMBER_CHECK_TYPE(!is_complex(weight.dtype()), "[", op, "] not implemented for dtype ",
                   weight.dtype());
  const int64_t rows = weight.sizes()[0], dim = weight.sizes()[1];
  const int64_t pad = normalise_padding(padding_idx, rows, op);
  const Tensor idx = index_vector(input, op, "indices");
  if (max_norm) {
    Tensor w = weight;
    embedding_renorm_(w, idx, *max_norm, norm_type);
  }
  DimVector out_shape(input.sizes().data(), input.sizes().size());
  out_shape.push_back(dim);
  Tensor out = empty(out_shape, TensorOptions(weight.dtype()).device(weight.device()));
  const EmbeddingKernels& k =
      kernels_of(kernels(weight.device()).nn_embedding, weight.device(), op);
  int64_t bad = 0;
  if (!k.embedding_forward(reshape(out, {idx.numel(), dim}), weight, idx, &bad)) {
    const int64_t v = idx[bad].item<int64_t>();
    EMBER_FAIL_KIND(ErrorKind::Index, "[", op, "] index out of range in self: index ", v,
                    " for a weight of ", rows, " rows");
  }
  if (any_requires_grad(weight)) {
    record("EmbeddingBackward0", {&weight}, {&out},
           [si = SavedTensor(idx), rows, dim, pad, scale_grad_by_freq](TensorList& g, Node& node) {
             // Saved: an index changed in place after the forward is an error at backward.
             const Tensor idx = si.unpack(node);
             const Tensor g2 = reshape(g[0], {idx.numel(), dim});
             if (any_requires_grad(g2)) {
               // create_graph: the same sum with public ops (index_add is differentiable).
               const TensorOptions opts = TensorOptions(g2.dtype()).device(g2.device());
               Tensor s = ne(idx, Scalar(pad)).to(g2.dtype());
               if (scale_grad_by_freq) {
                 const Tensor counts =
                     index_add(zeros({rows}, opts), 0, idx, ones({idx.numel()}, opts));
                 s = s / index_select(counts, 0, idx);
               }
               return TensorList{index_add(zeros({rows, dim}, opts), 0, idx, g2 * unsqueeze(s, 1))};
             }
             Tensor gw = empty({rows, dim}, TensorOptions(g2.dtype()).device(g2.device()));
             kernels_of(kernels(g2.device()).nn_embedding, g2.device(), "embedding")
                 .embedding_backward(gw, g2.contiguous(), idx, Tensor(), Tensor(), Tensor(), pad,
                                     scale_grad_by_freq);
             return TensorList{gw};
           });
  }
  return out;
}

Tensor embedding_bag(const Tensor& input,
                     const Tensor& weight,
                     const Tensor& offsets,
                     std::optional<double> max_norm,
                     double norm_type,
                     bool scale_grad_by_freq,
                     std::string_view mode,
                     bool sparse,
                     const Tensor& per_sample_weights,
                     bool include_last_offset,
                     std::optional<int64_t> padding_idx) {
  const char* op = "embedding_bag";
  int64_t m = 0;
  if (mode == "sum") {
    m = 0;
  } else if (mode == "mean") {
    m = 1;
  } else if (mode == "max") {
    m = 2;
    EMBER_CHECK_VALUE(!scale_grad_by_freq, "[", op,
                      "] max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK_VALUE(!sparse, "[", op, "] max mode does not support sparse weights");
  } else {
    EMBER_FAIL_KIND(ErrorKind::Value, "[", op, "] mode has to be one of sum, mean or max, got '",
                    mode, "'");
  }
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !sparse, "[", op,
                   "] sparse=True needs sparse gradients, which ember does not have; use "
                   "sparse=False (the gradient is then dense)");
  EMBER_CHECK_VALUE(weight.dim() == 2, "[", op, "] weight has to be a 2D Tensor, got ",
                    weight.dim(), " dims");
  check_floating_weight(weight, op);
  const Tensor& psw = per_sample_weights;
  if (psw.defined()) {
    EMBER_CHECK_VALUE(psw.sizes() == input.sizes(), "[", op, "] per_sample_weights (shape ",
                      psw.sizes(), ") must have the same shape as the input (", input.sizes(), ")");
    EMBER_CHECK_KIND(ErrorKind::NotImplemented, m == 0, "[", op,
                     "] per_sample_weights is only supported for mode='sum', got mode='", mode,
                     "'");
    EMBER_CHECK(psw.dtype() == weight.dtype(), "[", op, "] expected per_sample_weights of dtype ",
                weight.dtype(), " (the weight's), got ", psw.dtype());
  }
  const int64_t rows = weight.sizes()[0], dim = weight.sizes()[1];
  const Tensor idx = index_vector(input, op, "indices");
  const int64_t n = idx.numel();
  // starts [B + 1]: bag b is idx[starts[b]:starts[b + 1]].
  std::vector<int64_t> st;
  if (input.dim() == 2) {
    EMBER_CHECK_VALUE(!offsets.defined(), "[", op,
                      "] if input is 2D, then offsets has to be None, as input is treated as a "
                      "mini-batch of fixed length sequences");
    const int64_t bags = input.sizes()[0], len = input.sizes()[1];
    for (int64_t b = 0; b <= bags; ++b) st.push_back(b * len);
  } else {
    EMBER_CHECK_VALUE(input.dim() == 1, "[", op,
                      "] input has to be 1D or 2D Tensor, but got Tensor of dimension ",
                      input.dim());
    EMBER_CHECK_VALUE(offsets.defined(), "[", op,
                      "] offsets has to be a 1D Tensor but got None (1-d input needs offsets)");
    EMBER_CHECK_VALUE(offsets.dim() == 1, "[", op, "] offsets has to be a 1D Tensor, got ",
                      offsets.dim(), " dims");
    st = index_vector(offsets, op, "offsets").to_vector<int64_t>();
    if (!st.empty()) {
      EMBER_CHECK(st[0] == 0, "[", op,
                  "] offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                  "start from position 0; got ",
                  st[0]);
      for (size_t b = 1; b < st.size(); ++b)
        EMBER_CHECK(st[b] >= st[b - 1], "[", op, "] offsets must be non-decreasing, got ",
                    st[b - 1], " then ", st[b], " at position ", b);
      EMBER_CHECK(st.back() <= n, "[", op, "] offsets[-1] can not be greater than input's length ",
                  n, ", got ", st.back());
    }
    if (!include_last_offset || st.empty()) st.push_back(n);
  }
  const int64_t bags = int64_t(st.size()) - 1;
  const int64_t pad = normalise_padding(padding_idx, rows, op);
  if (max_norm) {
    Tensor w = weight;
    embedding_renorm_(w, idx, *max_norm, norm_type);
  }
  const TensorOptions opts = TensorOptions(weight.dtype()).device(weight.device());
  const TensorOptions iopts = TensorOptions(kInt64).device(weight.device());
  const Tensor starts = tensor(st, {bags + 1}, iopts);
  const Tensor pw = psw.defined() ? reshape(psw, {-1}).contiguous() : Tensor();
  Tensor out = empty({bags, dim}, opts), bag_size = empty({bags}, iopts);
  Tensor max_idx = m == 2 ? empty({bags, dim}, iopts) : Tensor();
  const EmbeddingKernels& k =
      kernels_of(kernels(weight.device()).nn_embedding, weight.device(), op);
  int64_t bad = 0;
  if (!k.embedding_bag_forward(out, bag_size, max_idx, weight, idx, starts, pw, m, pad, &bad)) {
    EMBER_FAIL("[", op, "] Index ", bad, " of input takes value ", idx[bad].item<int64_t>(),
               " which is not in the valid range [0, ", rows, ")");
  }
  if (any_requires_grad(weight, pw)) {
    record(
        "EmbeddingBagBackward0", {&weight, &pw}, {&out},
        [sw = SavedTensor(weight), pw, si = SavedTensor(idx), starts, bag_size, max_idx, m, pad,
         scale_grad_by_freq, rows, dim, bags, n](TensorList& g, Node& node) {
          const Tensor g2 = g[0].contiguous(), idx = si.unpack(node);
          const bool create_graph = GradMode::is_enabled();
          TensorList grads(2);
          const EmbeddingKernels& kk =
              kernels_of(kernels(g2.device()).nn_embedding, g2.device(), "embedding_bag");
          if (node.next_edges()[0].valid()) {
            Tensor gw = empty({rows, dim}, TensorOptions(g2.dtype()).device(g2.device()));
            if (m == 2) {
              kk.embedding_bag_max_backward(gw, g2, max_idx);
            } else {
              kk.embedding_backward(gw, g2, idx, starts, pw.defined() ? pw.detach() : Tensor(),
                                    m == 1 ? bag_size : Tensor(), pad, scale_grad_by_freq);
            }
            if (create_graph && any_requires_grad(g2, pw)) refuse_double_backward(gw, {&g2, &pw});
            grads[0] = gw;
          }
          if (pw.defined() && node.next_edges()[1].valid()) {
            // d/dpsw[k] = <grad[bag(k)], weight[idx[k]]>, 0 for padding and for indices after
            // the last bag.
            const Tensor w = sw.unpack(node);
            const int64_t used = starts[bags].item<int64_t>();
            const Tensor lengths = starts.slice(0, 1, bags + 1) - starts.slice(0, 0, bags);
            Tensor bag_of = repeat_interleave(arange(Scalar(bags), TensorOptions(kInt64)), lengths);
            if (used < n) bag_of = cat({bag_of, zeros({n - used}, TensorOptions(kInt64))});
            Tensor keep = ne(idx, Scalar(pad));
            if (used < n)
              keep = logical_and(keep, lt(arange(Scalar(n), TensorOptions(kInt64)), Scalar(used)));
            Tensor gp;
            {
              NoGradGuard no_grad;
              gp = where(keep,
                         sum(index_select(g2, 0, bag_of) * index_select(w.detach(), 0, idx), {1}),
                         Scalar(0));
            }
            if (create_graph && any_requires_grad({&g2, &w})) refuse_double_backward(gp, {&g2, &w});
            grads[1] = gp;
          }
          return grads;
        });
  }
  return out;
}

}  // namespace ember
