// scaled_dot_product_attention: checks, broadcasting of the batch dims, grouped-query heads, and
// the choice between the blocked kernel (kernels_nn_rnn.h, backend/cpu/nn_attention.cpp) and the
// materialised composite (dropout, or a floating mask that requires grad).
#include <cmath>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_attention.h"
#include "ember/core/shape.h"
#include "ember/ops/nn_attention.h"
#include "ember/ops/nn_rnn_util.h"
#include "ember/ops/ops.h"
#include "ember/ops/registry.h"

namespace ember {
namespace {

const OpInfo kAttentionOps[] = {
    {"nn.functional.scaled_dot_product_attention", OpKind::Other, kRnnTypes, true},
};

constexpr const char* kName = "scaled_dot_product_attention";
constexpr double kInf = std::numeric_limits<double>::infinity();

const AttentionKernels& attention_kernels(const Tensor& q) {
  return kernels_of(kernels(q.device()).nn_attention, q.device(), kName);
}

// scale * q k^T with the mask applied: -inf where a bool mask is false or a causal key lies after
// the query, a floating mask added.
Tensor masked_scores(
    const Tensor& q, const Tensor& k, const Tensor& mask, bool causal, double scale) {
  Tensor s = matmul(q, k.transpose(-2, -1)) * scale;
  if (causal) {
    const Tensor keep =
        tril(ones({q.size(-2), k.size(-2)}, TensorOptions(kBool).device(q.device())));
    s = where(keep, s, Scalar(-kInf));
  }
  if (mask.defined()) s = mask.dtype() == kBool ? where(mask, s, Scalar(-kInf)) : s + mask;
  return s;
}

// softmax over the last dim, with 0 in rows where every score is -inf (PyTorch gives 0 there).
// Such rows are set to 0 before the softmax too, so no NaN reaches the gradient.
Tensor safe_softmax(const Tensor& s) {
  Tensor empty_row;
  {
    NoGradGuard no_grad;
    empty_row = amax(s, {-1}, true) == Scalar(-kInf);
  }
  const Tensor p = softmax(where(empty_row, Scalar(0.0), s), -1);
  return where(empty_row, Scalar(0.0), p);
}

// The materialised path: every score exists at once. Differentiable through public ops.
Tensor attention_math(const Tensor& q,
                      const Tensor& k,
                      const Tensor& v,
                      const Tensor& mask,
                      double dropout_p,
                      bool causal,
                      double scale,
                      Generator* gen) {
  Tensor p = safe_softmax(masked_scores(q, k, mask, causal, scale));
  if (dropout_p >= 1) {
    p = p * 0.0;
  } else if (dropout_p > 0) {
    Tensor keep;
    {
      NoGradGuard no_grad;
      keep = bernoulli(p, 1 - dropout_p, gen) * (1.0 / (1 - dropout_p));
    }
    p = p * keep;
  }
  return matmul(p, v);
}

// The gradient of the blocked kernel written with public ops (backward under create_graph).
TensorList composite_backward(const Tensor& g,
                              const Tensor& q,
                              const Tensor& k,
                              const Tensor& v,
                              const Tensor& mask,
                              bool causal,
                              double scale) {
  const Tensor p = safe_softmax(masked_scores(q, k, mask, causal, scale));
  const Tensor dv = matmul(p.transpose(-2, -1), g);
  const Tensor dp = matmul(g, v.transpose(-2, -1));
  const Tensor ds = p * (dp - sum(dp * p, {-1}, true));
  return {matmul(ds, k) * scale, matmul(ds.transpose(-2, -1), q) * scale, dv};
}

// [B, H, L, E] inputs; mask undefined or [B, H, L, S] (any strides).
Tensor flash_attention(const Tensor& q,
                       const Tensor& k,
                       const Tensor& v,
                       const Tensor& mask,
                       bool causal,
                       double scale) {
  const AttentionKernels& kern = attention_kernels(q);
  const int64_t B = q.size(0), H = q.size(1), L = q.size(2), Ev = v.size(3);
  const TensorOptions opts = TensorOptions(q.dtype()).device(q.device());
  const Tensor out = empty({B, H, L, Ev}, opts);
  const Tensor lse = empty({B, H, L}, opts);
  kern.attention_forward(out, lse, rnn_detail::unit_rows(q), rnn_detail::unit_rows(k),
                         rnn_detail::unit_rows(v), mask, causal, scale);
  if (any_requires_grad({&q, &k, &v})) {
    record("ScaledDotProductFlashAttentionBackward0", {&q, &k, &v}, {&out},
           [sq = SavedTensor(q), sk = SavedTensor(k), sv = SavedTensor(v),
            sm = mask.defined() ? SavedTensor(mask) : SavedTensor(), so = SavedTensor(out, 0), lse,
            causal, scale](TensorList& g, Node& n) -> TensorList {
             const Tensor q = sq.unpack(n), k = sk.unpack(n), v = sv.unpack(n);
             const Tensor mask = sm.defined() ? sm.unpack(n) : Tensor();
             if (GradMode::is_enabled())
               return composite_backward(g[0], q, k, v, mask, causal, scale);
             const Tensor dq = empty(q.sizes(), TensorOptions(q.dtype()).device(q.device()));
             const Tensor dk = empty(k.sizes(), TensorOptions(k.dtype()).device(k.device()));
             const Tensor dv = empty(v.sizes(), TensorOptions(v.dtype()).device(v.device()));
             attention_kernels(q).attention_backward(
                 dq, dk, dv, rnn_detail::unit_rows(g[0]), rnn_detail::unit_rows(q),
                 rnn_detail::unit_rows(k), rnn_detail::unit_rows(v), so.unpack(n), lse, mask,
                 causal, scale);
             return {dq, dk, dv};
           });
  }
  return out;
}

// t with its batch dims (all but the last two) made exactly two: [B, H, n, d].
Tensor as_4d(const Tensor& t) {
  Tensor r = t;
  while (r.dim() < 4) r = r.unsqueeze(0);
  if (r.dim() > 4) r = reshape(r, {-1, r.size(-3), r.size(-2), r.size(-1)});
  return r;
}

}  // namespace

std::span<const OpInfo> nn_attention_op_infos() { return kAttentionOps; }

Tensor scaled_dot_product_attention(const Tensor& query,
                                    const Tensor& key,
                                    const Tensor& value,
                                    const std::optional<Tensor>& attn_mask,
                                    double dropout_p,
                                    bool is_causal,
                                    std::optional<double> scale,
                                    bool enable_gqa,
                                    Generator* generator) {
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, "[", kName,
              "] Expected query, key, and value to all be at least 2 dimensional, but got "
              "query.dim: ",
              query.dim(), " key.dim: ", key.dim(), " and value.dim: ", value.dim(), " instead.");
  rnn_detail::check_floating(query, kName);
  EMBER_CHECK(key.dtype() == query.dtype() && value.dtype() == query.dtype(), "[", kName,
              "] Expected query, key, and value to have the same dtype, but got query.dtype: ",
              query.dtype(), " key.dtype: ", key.dtype(), " and value.dtype: ", value.dtype(),
              " instead.");
  rnn_detail::check_like(key, query, kName);
  rnn_detail::check_like(value, query, kName);
  const int64_t L = query.size(-2), E = query.size(-1), S = key.size(-2);
  EMBER_CHECK(key.size(-1) == E, "[", kName, "] expected key's last dim to be query's (", E,
              "), got ", key.size(-1));
  EMBER_CHECK(value.size(-2) == S, "[", kName,
              "] expected value to have as many positions (dim -2) as key (", S, "), got ",
              value.size(-2));
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, "[", kName,
              "] dropout probability has to be between 0 and 1, but got ", dropout_p);
  const Tensor mask = attn_mask ? *attn_mask : Tensor();
  if (mask.defined()) {
    EMBER_CHECK(!is_causal, "[", kName,
                "] Explicit attn_mask should not be set when is_causal=True");
    EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == query.dtype(), "[", kName,
                "] Expected attn_mask dtype to be bool or to match query dtype (", query.dtype(),
                "), got ", mask.dtype());
    EMBER_CHECK(mask.device() == query.device(), "[", kName,
                "] expected attn_mask on the query's device ", query.device(), ", got ",
                mask.device());
  }
  Tensor k = key, v = value;
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3 && value.dim() >= 3 &&
      (key.size(-3) != query.size(-3) || value.size(-3) != query.size(-3))) {
    const int64_t hq = query.size(-3), hk = key.size(-3), hv = value.size(-3);
    EMBER_CHECK(hk > 0 && hv > 0 && hq % hk == 0 && hq % hv == 0, "[", kName,
                "] Number of heads in key and value must divide the number of heads in query "
                "(got ",
                hq, " query heads, ", hk, " key heads and ", hv, " value heads)");
    if (hk != hq) k = repeat_interleave(key, hq / hk, -3);
    if (hv != hq) v = repeat_interleave(value, hq / hv, -3);
  }
  const double sc = scale ? *scale : 1.0 / std::sqrt(double(E));
  const bool mask_grad =
      mask.defined() && mask.dtype() != kBool && mask.requires_grad() && GradMode::is_enabled();
  if (dropout_p > 0 || mask_grad) {
    return attention_math(query, k, v, mask, dropout_p, is_causal, sc, generator);
  }
  const IntArrayRef qs = query.sizes(), ks = k.sizes(), vs = v.sizes();
  DimVector batch = broadcast_shapes(qs.slice(0, qs.size() - 2), ks.slice(0, ks.size() - 2), kName);
  batch = broadcast_shapes(batch, vs.slice(0, vs.size() - 2), kName);
  auto with = [&](int64_t a, int64_t b) {
    DimVector s = batch;
    s.push_back(a);
    s.push_back(b);
    return s;
  };
  const Tensor q4 = as_4d(query.expand(with(L, E)));
  const Tensor k4 = as_4d(k.expand(with(S, E)));
  const Tensor v4 = as_4d(v.expand(with(S, v.size(-1))));
  Tensor m4;
  if (mask.defined()) {
    const DimVector ms = with(L, S);
    EMBER_CHECK(is_expandable_to(mask.sizes(), ms), "[", kName, "] attn_mask of shape ",
                mask.sizes(), " does not broadcast to the attention weights' shape ",
                IntArrayRef(ms));
    NoGradGuard no_grad;
    m4 = as_4d(mask.expand(ms));
  }
  return reshape(flash_attention(q4, k4, v4, m4, is_causal, sc), with(L, v.size(-1)));
}

}  // namespace ember
