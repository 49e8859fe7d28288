// Neural-network ops: the losses, and the registry records of the losses and embeddings
// (docs/design/nn_loss.md); the embeddings are in ops/nn_embedding.cpp.
//
// cross_entropy over class indices runs a kernel (backend/cpu/nn_loss.cpp) with a backward
// function of its own. Their backward switches to a formula written with public
// ops when it is itself being recorded (create_graph), so second derivatives still work; the
// kernel path is the one that runs in training. The other losses are composites of public ops
// (design.md section 4); where PyTorch's gradient differs from the composite's at the edges
// (binary_cross_entropy at 0 and 1, kl_div at target 0) the pointwise term has a backward of its
// own, written with public ops.
#include "ember/ops/nn_loss.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_loss.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/shape.h"
#include "ember/ops/softmax.h"
#include "ember/ops/statistics.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kLossOps[] = {
    {"nn.functional.cross_entropy", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.nll_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.binary_cross_entropy", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.binary_cross_entropy_with_logits", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.kl_div", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.multi_margin_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.soft_margin_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.mse_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.l1_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.smooth_l1_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.huber_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.poisson_nll_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.gaussian_nll_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.cosine_embedding_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.margin_ranking_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.hinge_embedding_loss", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.triplet_margin_loss", OpKind::Other, kFloatingTypes, true},
    // The lookup copies rows of any dtype; gradients exist for floating weights only.
};

enum class Reduction { None, Mean, Sum };

Reduction parse_reduction(std::string_view r, const char* op) {
  if (r == "none") return Reduction::None;
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  EMBER_FAIL_KIND(ErrorKind::Value, "[", op, "] ", r,
                  " is not a valid value for reduction (expected 'none', 'mean' or 'sum')");
}

Tensor reduce(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None:
      return loss;
    case Reduction::Mean:
      return mean(loss);  // NaN over no elements, as PyTorch
    case Reduction::Sum:
      return sum(loss);
  }
  return loss;
}

bool low_precision(DType t) { return t == kFloat16 || t == kBFloat16; }

void check_floating(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK_TYPE(is_floating(t.dtype()), "[", op, "] expected a floating-point ", what,
                   ", got dtype ", t.dtype());
}

// PyTorch refuses weights that require grad ("not differentiable with respect to 'weight'").
void check_no_grad(const Tensor& w, const char* op, const char* what) {
  EMBER_CHECK(!w.defined() || !any_requires_grad(w), "[", op,
              "] is not differentiable with respect to ", what, ": it cannot require grad");
}

// A weight that must broadcast to the loss's shape without growing it.
void check_broadcasts_to(const Tensor& w, IntArrayRef shape, const char* op, const char* what) {
  EMBER_CHECK(!w.defined() || is_expandable_to(w.sizes(), shape), "[", op, "] ", what, " of shape ",
              w.sizes(), " does not broadcast to the input's shape ", shape);
}

Tensor clamp_min(const Tensor& x, double lo) { return clamp(x, Scalar(lo), std::nullopt); }

// ---- class-index targets
// -------------------------------------------------------------------------

// The [N, C, S] view of an input with classes along dim 1 ((C) is one sample) and the shape of
// the per-sample losses, with PyTorch's checks and exception types (nll_loss_nd).
struct ClassShape {
  int64_t n = 1, c = 1, s = 1;
  DimVector out_shape;
};

ClassShape class_shape(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_VALUE(input.dim() >= 1, "[", op, "] expected an input of 1 or more dims, got ",
                    input.dim());
  ClassShape cs;
  if (input.dim() == 1) {
    EMBER_CHECK(target.dim() <= 1, "[", op,
                "] expected a 0-d or 1-d target (multi-target is not supported), got shape ",
                target.sizes());
    EMBER_CHECK_VALUE(target.dim() == 0 || target.sizes()[0] == 1, "[", op,
                      "] for 1-d input, a 1-d target must have size 1, got size ",
                      target.sizes()[0]);
    cs.c = input.sizes()[0];
    return cs;
  }
  const int64_t tb = target.dim() ? target.sizes()[0] : 0;
  EMBER_CHECK_VALUE(input.sizes()[0] == tb, "[", op, "] expected input batch_size (",
                    input.sizes()[0], ") to match target batch_size (", tb, ")");
  DimVector expected{input.sizes()[0]};
  for (int64_t d = 2; d < input.dim(); ++d) expected.push_back(input.sizes()[d]);
  EMBER_CHECK(target.sizes() == IntArrayRef(expected), "[", op, "] expected a target of shape ",
              expected, " for input of shape ", input.sizes(), ", got ", target.sizes());
  cs.n = input.sizes()[0];
  cs.c = input.sizes()[1];
  for (int64_t d = 2; d < input.dim(); ++d) cs.s *= input.sizes()[d];
  cs.out_shape = expected;
  return cs;
}

// The targets as a contiguous int64 [N, S] tensor, checked against the class count.
Tensor class_targets(const Tensor& target,
                     const ClassShape& cs,
                     int64_t ignore_index,
                     const char* op) {
  EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, "[", op,
              "] expected class indices of dtype int64 or uint8, got dtype ", target.dtype());
  Tensor t = reshape(target.to(kInt64), {cs.n, cs.s}).contiguous();
  int64_t bad = 0;
  EMBER_CHECK_INDEX(kernels_of(kernels(t.device()).nn_loss, t.device(), op)
                        .check_targets(t, cs.c, ignore_index, &bad),
                    "[", op, "] Target ", bad, " is out of bounds (expected a class in [0, ", cs.c,
                    ") or ignore_index ", ignore_index, ")");
  return t;
}

void check_class_weight(const Tensor& w, int64_t classes, DType dtype, const char* op) {
  if (!w.defined()) return;
  EMBER_CHECK(w.dim() == 1 && w.numel() == classes, "[", op,
              "] weight should have one entry per class (", classes, "), got shape ", w.sizes());
  EMBER_CHECK(w.dtype() == dtype, "[", op, "] expected weight of dtype ", dtype,
              " (the input's), got ", w.dtype());
}

// x as [N, C, S] without a copy when its dims after the class dim collapse into one stride (any
// contiguous or channels-last input: NHWC's classes are then contiguous, the kernel's best
// case); otherwise a reshape (a copy).
// The stride of S, or nullopt when the dims after the class dim do not collapse.
std::optional<int64_t> collapsed_stride(const Tensor& x) {
  const IntArrayRef sz = x.sizes(), st = x.strides();
  int64_t inner = 1, expect = -1;
  for (int64_t d = x.dim() - 1; d >= 2; --d) {
    if (sz[d] == 1) continue;
    if (expect < 0) {
      inner = st[d];
    } else if (st[d] != expect) {
      return std::nullopt;
    }
    expect = st[d] * sz[d];
  }
  return inner;
}

Tensor lines_view(const Tensor& x, int64_t n, int64_t c, int64_t s) {
  // (C) and (N, C) gain size-1 dims only: always a view.
  if (x.dim() <= 2) return reshape(x, {n, c, s});
  const std::optional<int64_t> inner = collapsed_stride(x);
  if (!inner) return reshape(x, {n, c, s});
  return as_strided(x, {n, c, s}, {x.strides()[0], x.strides()[1], *inner}, x.storage_offset());
}

// d loss / d x of the fused cross entropy, with public ops (for create_graph): x3 [N, C, S],
// t [N, S], gl [N, S] the gradient of each line's loss.
Tensor cross_entropy_grad(const Tensor& x3,
                          const Tensor& t,
                          const Tensor& w,
                          const Tensor& gl,
                          int64_t ignore_index,
                          double eps) {
  const int64_t n = x3.sizes()[0], c = x3.sizes()[1], s = x3.sizes()[2];
  const TensorOptions opts = TensorOptions(x3.dtype()).device(x3.device());
  const Tensor valid = ne(t, Scalar(ignore_index));
  const Tensor ts = where(valid, t, Scalar(int64_t(0)));
  const Tensor vf = unsqueeze(valid.to(x3.dtype()), 1);  // [N, 1, S]
  const Tensor onehot =
      eq(reshape(arange(Scalar(c), TensorOptions(kInt64).device(x3.device())), {1, c, 1}),
         unsqueeze(ts, 1))
          .to(x3.dtype());
  const Tensor wt = w.defined() ? reshape(index_select(w, 0, flatten(ts)), {n, 1, s}) * vf : vf;
  const Tensor wc = w.defined() ? reshape(w, {1, c, 1}) * vf : vf;
  const Tensor wtotal = w.defined() ? sum(w) : full({}, Scalar(double(c)), opts);
  const Tensor p = softmax(x3, 1);
  const Tensor g3 = unsqueeze(gl, 1);
  return g3 * (p * (wt * (1 - eps) + vf * wtotal * (eps / double(c))) - onehot * wt * (1 - eps) -
               wc * (eps / double(c)));
}

Tensor cross_entropy_indices(const Tensor& input,
                             const Tensor& target,
                             const Tensor& weight,
                             Reduction red,
                             int64_t ignore_index,
                             double eps) {
  const char* op = "cross_entropy";
  const ClassShape cs = class_shape(input, target, op);
  check_class_weight(weight, cs.c, input.dtype(), op);
  const Tensor t = class_targets(target, cs, ignore_index, op);
  // 16-bit floats are computed in float32 (the kernel's dtypes), as PyTorch's opmath does.
  const bool low = low_precision(input.dtype());
  const Tensor x = low ? input.to(kFloat32) : input;
  const Tensor w = weight.defined() ? (low ? weight.to(kFloat32) : weight).contiguous() : Tensor();
  const TensorOptions opts = TensorOptions(x.dtype()).device(x.device());
  const int64_t n = cs.n, c = cs.c, s = cs.s;
  Tensor out, lse, denom;
  {
    NoGradGuard no_grad;
    const Tensor x3 = lines_view(x, n, c, s);
    // The 'none' result is allocated in its final shape (the same memory as [N, S]).
    Tensor loss =
        empty(red == Reduction::None ? IntArrayRef(cs.out_shape) : IntArrayRef({n, s}), opts);
    lse = empty({n, s}, opts);
    Tensor wt = empty({n, s}, opts);
    kernels_of(kernels(x.device()).nn_loss, x.device(), op)
        .cross_entropy_forward(reshape(loss, {n, s}), lse, wt, x3, t, w, ignore_index, eps);
    if (red == Reduction::None) {
      out = loss;
    } else {
      out = sum(loss);
      // "mean" divides by the summed weight of the counted targets (the count without weights).
      if (red == Reduction::Mean) {
        denom = sum(wt);
        out = out / denom;
      }
    }
  }
  if (any_requires_grad(x)) {
    record("CrossEntropyLossBackward0", {&x}, {&out},
           [sx = SavedTensor(x), st = SavedTensor(t), w, lse, denom, red, n, c, s, ignore_index,
            eps](TensorList& g, Node& node) {
             const Tensor xv = sx.unpack(node), tv = st.unpack(node);
             Tensor gl;
             if (red == Reduction::None) {
               gl = reshape(g[0], {n, s});
             } else {
               const Tensor g0 = red == Reduction::Mean ? g[0] / denom : g[0];
               gl = expand(reshape(g0, {1, 1}), {n, s});
             }
             const Tensor x3 = reshape(xv, {n, c, s});
             if (any_requires_grad(x3, gl)) {  // create_graph: differentiable formula
               return TensorList{
                   reshape(cross_entropy_grad(x3, tv, w, gl, ignore_index, eps), xv.sizes())};
             }
             Tensor gx = empty({n, c, s}, TensorOptions(xv.dtype()).device(xv.device()));
             kernels_of(kernels(xv.device()).nn_loss, xv.device(), "cross_entropy")
                 .cross_entropy_backward(gx, gl.to(xv.dtype()), x3, tv, w, lse, ignore_index, eps);
             return TensorList{reshape(gx, xv.sizes())};
           });
  }
  return low ? out.to(input.dtype()) : out;
}

// Probability targets: -sum(w_c * y_c * log_softmax(x)_c) per sample, a composite.
Tensor cross_entropy_probs(const Tensor& input,
                           const Tensor& target,
                           const Tensor& weight,
                           Reduction red,
                           int64_t ignore_index,
                           double eps) {
  const char* op = "cross_entropy";
  check_floating(target, op, "target (class probabilities)");
  EMBER_CHECK(ignore_index < 0, "[", op,
              "] ignore_index is not supported for class-probability targets, got ", ignore_index);
  const int64_t cdim = input.dim() == 1 ? 0 : 1, c = input.sizes()[cdim];
  check_class_weight(weight, c, input.dtype(), op);
  const bool low = low_precision(input.dtype());
  const Tensor x = low ? input.to(kFloat32) : input;
  const Tensor y0 = low_precision(target.dtype()) ? target.to(kFloat32) : target;
  const Tensor y = eps > 0 ? y0 * (1 - eps) + eps / double(c) : y0;
  Tensor prod = log_softmax(x, cdim) * y;
  if (weight.defined()) {
    DimVector wshape(size_t(input.dim()), 1);
    wshape[size_t(cdim)] = c;
    prod = prod * reshape(low ? weight.to(kFloat32) : weight, wshape);
  }
  Tensor out;
  if (red == Reduction::None) {
    out = -sum(prod, {cdim});
  } else {
    out = -sum(prod);
    // "mean" is over the samples (numel / C); nothing at all gives NaN.
    if (red == Reduction::Mean) out = out / (double(input.numel()) / double(c));
  }
  return low && out.dtype() == kFloat32 ? out.to(input.dtype()) : out;
}

// ---- pointwise terms with a backward of their own
// ------------------------------------------------

// -(t log(x) + (1 - t) log(1 - x)), logs clamped at -100; PyTorch's gradients
// g (x - t) / max(x (1 - x), 1e-12) and g (log(1 - x) - log(x)), finite at x = 0 and 1.
Tensor bce_term(const Tensor& x, const Tensor& t) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = -(t * clamp_min(log(x), -100) + (1 - t) * clamp_min(log1p(-x), -100));
  }
  if (any_requires_grad(x, t)) {
    record("BinaryCrossEntropyBackward0", {&x, &t}, {&out},
           [sx = SavedTensor(x), st = SavedTensor(t)](TensorList& g, Node& n) {
             const Tensor xv = sx.unpack(n), tv = st.unpack(n);
             return TensorList{g[0] * (xv - tv) / clamp_min((1 - xv) * xv, 1e-12),
                               g[0] * (log1p(-xv) - log(xv))};
           });
  }
  return out;
}

// xlogy(t, t) - t x, or exp(t) (t - x) for log targets; the target's gradient is 0 where t == 0.
Tensor kl_term(const Tensor& x, const Tensor& t, bool log_target) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = log_target ? exp(t) * (t - x) : where(eq(t, Scalar(0)), Scalar(0), t * log(t)) - t * x;
  }
  if (any_requires_grad(x, t)) {
    record("KlDivBackward0", {&x, &t}, {&out},
           [sx = SavedTensor(x), st = SavedTensor(t), log_target](TensorList& g, Node& n) {
             const Tensor xv = sx.unpack(n), tv = st.unpack(n);
             if (log_target) {
               const Tensor e = exp(tv);
               return TensorList{-g[0] * e, g[0] * e * (tv + 1 - xv)};
             }
             return TensorList{-g[0] * tv,
                               where(eq(tv, Scalar(0)), Scalar(0), g[0] * (log(tv) + 1 - xv))};
           });
  }
  return out;
}

// max(v, eps) with the gradient passed through unchanged (PyTorch clamps a clone in place under
// no_grad, which autograd does not see).
Tensor clamp_straight_through(const Tensor& v, double eps) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = clamp_min(v, eps);
  }
  if (any_requires_grad(v)) {
    record("CloneBackward0", {&v}, {&out}, [](TensorList& g, Node&) { return TensorList{g[0]}; });
  }
  return out;
}

// ---- shared pieces of the regression losses
// ------------------------------------------------------

// The dtype the pair computes in: floating (else a TypeError naming the op).
DType regression_dtype(const Tensor& input, const Tensor& target, const char* op) {
  check_floating(input, op, "input");
  const DType dt = result_type(input, target);
  EMBER_CHECK_TYPE(is_floating(dt), "[", op, "] expected floating-point operands, got dtypes ",
                   input.dtype(), " and ", target.dtype());
  return dt;
}

Tensor up(const Tensor& t) { return low_precision(t.dtype()) ? t.to(kFloat32) : t; }
Tensor down(const Tensor& t, DType dt) { return low_precision(dt) ? t.to(dt) : t; }

// A weighted elementwise loss: weight of the input's shape (PyTorch's Python check), and "mean"
// dividing by the weights' sum (mse, l1) or by the element count (huber).
Tensor weighted(const Tensor& loss,
                const Tensor& weight,
                IntArrayRef input_shape,
                Reduction red,
                bool mean_over_weights,
                const char* op) {
  if (!weight.defined()) return reduce(loss, red);
  EMBER_CHECK_VALUE(weight.sizes() == input_shape, "[", op,
                    "] weights and input must have the same size, got ", weight.sizes(), " and ",
                    input_shape);
  const Tensor wl = loss * up(weight);
  if (red == Reduction::Mean && mean_over_weights) return sum(wl) / sum(up(weight));
  return reduce(wl, red);
}

}  // namespace

std::span<const OpInfo> nn_loss_op_infos() { return kLossOps; }

// ---- classification
// ------------------------------------------------------------------------------

Tensor cross_entropy(const Tensor& input,
                     const Tensor& target,
                     const Tensor& weight,
                     std::string_view reduction,
                     int64_t ignore_index,
                     double label_smoothing) {
  const char* op = "cross_entropy";
  const Reduction red = parse_reduction(reduction, op);
  check_floating(input, op, "input");
  EMBER_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "[", op,
              "] label_smoothing must be between 0.0 and 1.0, got ", label_smoothing);
  check_no_grad(weight, op, "weight");
  EMBER_CHECK_VALUE(input.dim() >= 1, "[", op, "] expected an input of 1 or more dims, got ",
                    input.dim());
  // Same shape: class probabilities (PyTorch's rule); otherwise class indices.
  if (input.sizes() == target.sizes())
    return cross_entropy_probs(input, target, weight, red, ignore_index, label_smoothing);
  return cross_entropy_indices(input, target, weight, red, ignore_index, label_smoothing);
}

Tensor nll_loss(const Tensor& input,
                const Tensor& target,
                const Tensor& weight,
                std::string_view reduction,
                int64_t ignore_index) {
  const char* op = "nll_loss";
  const Reduction red = parse_reduction(reduction, op);
  check_floating(input, op, "input");
  check_no_grad(weight, op, "weight");
  const ClassShape cs = class_shape(input, target, op);
  check_class_weight(weight, cs.c, input.dtype(), op);
  const Tensor t = class_targets(target, cs, ignore_index, op);
  const Tensor x = up(input);
  const Tensor valid = ne(t, Scalar(ignore_index));
  const Tensor ts = where(valid, t, Scalar(int64_t(0)));
  // With no classes every target is ignore_index (checked above): nothing to gather.
  const Tensor picked =
      cs.c == 0 ? zeros({cs.n, cs.s}, TensorOptions(x.dtype()).device(x.device()))
                : squeeze(gather(reshape(x, {cs.n, cs.c, cs.s}), 1, unsqueeze(ts, 1)), 1);
  const Tensor wt =
      weight.defined()
          ? where(valid, reshape(index_select(up(weight), 0, flatten(ts)), {cs.n, cs.s}), Scalar(0))
          : valid.to(x.dtype());
  const Tensor loss = where(valid, -(picked * wt), Scalar(0));
  Tensor out;
  switch (red) {
    case Reduction::None:
      out = reshape(loss, cs.out_shape);
      break;
    case Reduction::Sum:
      out = sum(loss);
      break;
    case Reduction::Mean:
      out = sum(loss) / sum(wt);
      break;
  }
  return down(out, input.dtype());
}

Tensor binary_cross_entropy(const Tensor& input,
                            const Tensor& target,
                            const Tensor& weight,
                            std::string_view reduction) {
  const char* op = "binary_cross_entropy";
  const Reduction red = parse_reduction(reduction, op);
  check_floating(input, op, "input");
  EMBER_CHECK_VALUE(input.sizes() == target.sizes(), "[", op, "] using a target size (",
                    target.sizes(), ") that is different to the input size (", input.sizes(),
                    ") is deprecated; please ensure they have the same size");
  EMBER_CHECK(target.dtype() == input.dtype(), "[", op, "] expected a target of dtype ",
              input.dtype(), " (the input's), got ", target.dtype());
  check_no_grad(weight, op, "weight");
  check_broadcasts_to(weight, input.sizes(), op, "weight");
  {
    NoGradGuard no_grad;
    // NaN fails both comparisons, as in PyTorch's check.
    EMBER_CHECK(all(logical_and(ge(input, Scalar(0)), le(input, Scalar(1)))).item<bool>(), "[", op,
                "] all elements of input should be between 0 and 1");
    EMBER_CHECK(all(logical_and(ge(target, Scalar(0)), le(target, Scalar(1)))).item<bool>(), "[",
                op, "] all elements of target should be between 0 and 1");
  }
  Tensor loss = bce_term(up(input), up(target));
  if (weight.defined()) loss = loss * up(weight);
  return down(reduce(loss, red), input.dtype());
}

Tensor binary_cross_entropy_with_logits(const Tensor& input,
                                        const Tensor& target,
                                        const Tensor& weight,
                                        std::string_view reduction,
                                        const Tensor& pos_weight) {
  const char* op = "binary_cross_entropy_with_logits";
  const Reduction red = parse_reduction(reduction, op);
  check_floating(input, op, "input");
  EMBER_CHECK_VALUE(input.sizes() == target.sizes(), "[", op, "] target size (", target.sizes(),
                    ") must be the same as input size (", input.sizes(), ")");
  check_no_grad(weight, op, "weight");
  check_no_grad(pos_weight, op, "pos_weight");
  check_broadcasts_to(weight, input.sizes(), op, "weight");
  check_broadcasts_to(pos_weight, input.sizes(), op, "pos_weight");
  const Tensor x = up(input), t = up(target);
  // -log(sigmoid(x)) = softplus(-x): no overflow for any x.
  const Tensor sp = softplus(-x);
  Tensor loss =
      pos_weight.defined() ? (1 - t) * x + (1 + (up(pos_weight) - 1) * t) * sp : (1 - t) * x + sp;
  if (weight.defined()) loss = loss * up(weight);
  return down(reduce(loss, red), input.dtype());
}

Tensor kl_div(const Tensor& input,
              const Tensor& target,
              std::string_view reduction,
              bool log_target) {
  const char* op = "kl_div";
  const bool batchmean = reduction == "batchmean";
  const Reduction red = batchmean ? Reduction::Sum : parse_reduction(reduction, op);
  check_floating(input, op, "input");
  Tensor out = reduce(kl_term(up(input), up(target), log_target), red);
  // batchmean: the sum over the batch size (a 0-d input has no batch dim: the sum).
  if (batchmean && input.dim() > 0) out = out / double(input.sizes()[0]);
  return down(out, input.dtype());
}

Tensor multi_margin_loss(const Tensor& input,
                         const Tensor& target,
                         int64_t p,
                         double margin,
                         const Tensor& weight,
                         std::string_view reduction) {
  const char* op = "multi_margin_loss";
  const Reduction red = parse_reduction(reduction, op);
  check_floating(input, op, "input");
  EMBER_CHECK_VALUE(p == 1 || p == 2, "[", op, "] only p == 1 and p == 2 are supported, got ", p);
  check_no_grad(weight, op, "weight");
  EMBER_CHECK(
      (input.dim() <= 1 && input.numel() != 0) || (input.dim() == 2 && input.sizes()[1] != 0), "[",
      op, "] expected a non-empty vector or matrix with optional 0-dim batch size, got ",
      input.sizes());
  const int64_t nframe = input.dim() <= 1 ? 1 : input.sizes()[0];
  const int64_t c = input.dim() == 0 ? 1 : input.sizes()[input.dim() - 1];
  EMBER_CHECK(target.dtype() == kInt64, "[", op, "] expected a target of dtype int64, got ",
              target.dtype());
  EMBER_CHECK(target.dim() <= 1 && target.numel() == nframe, "[", op,
              "] expected a target of shape [", nframe, "] (one class per sample), got ",
              target.sizes(), " for input of shape ", input.sizes());
  if (weight.defined()) {
    EMBER_CHECK_VALUE(weight.dim() == 1, "[", op, "] weight must be one-dimensional, got shape ",
                      weight.sizes());
    EMBER_CHECK(weight.numel() == c, "[", op, "] inconsistent weight size, expected ", c,
                " but got ", weight.sizes());
  }
  const Tensor t = reshape(target, {nframe, 1});
  if (nframe > 0) {
    NoGradGuard no_grad;
    const int64_t lo = amin(t).item<int64_t>(), hi = amax(t).item<int64_t>();
    EMBER_CHECK(lo >= 0 && hi < c, "[", op, "] target out of range: expected classes in [0, ", c,
                "), got ", lo < 0 ? lo : hi);
  }
  const Tensor x = reshape(up(input), {nframe, c});
  Tensor z = clamp_min(x - gather(x, 1, t) + margin, 0);
  if (p == 2) z = z * z;
  if (weight.defined()) z = z * index_select(up(weight), 0, flatten(t)).unsqueeze(1);
  const Tensor own =
      eq(reshape(arange(Scalar(c), TensorOptions(kInt64).device(x.device())), {1, c}), t);
  const Tensor per_sample = sum(where(own, Scalar(0), z), {1}) / double(c);
  Tensor out;
  if (red == Reduction::None)
    out = input.dim() == 2 ? per_sample : reshape(per_sample, target.sizes());
  else
    out = reduce(per_sample, red);
  return down(out, input.dtype());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, std::string_view reduction) {
  const char* op = "soft_margin_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input, target, op);
  // log(1 + exp(-t x)) as softplus, which does not overflow for large -t x.
  return down(reduce(softplus(-(up(target) * up(input))), red), dt);
}

// ---- regression
// -----------------------------------------------------------------------------------

Tensor mse_loss(const Tensor& input,
                const Tensor& target,
                std::string_view reduction,
                const Tensor& weight) {
  const char* op = "mse_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input, target, op);
  const Tensor d = up(input) - up(target);
  return down(weighted(d * d, weight, input.sizes(), red, true, op), dt);
}

Tensor l1_loss(const Tensor& input,
               const Tensor& target,
               std::string_view reduction,
               const Tensor& weight) {
  const char* op = "l1_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input, target, op);
  return down(weighted(abs(up(input) - up(target)), weight, input.sizes(), red, true, op), dt);
}

Tensor smooth_l1_loss(const Tensor& input,
                      const Tensor& target,
                      std::string_view reduction,
                      double beta) {
  const char* op = "smooth_l1_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input, target, op);
  EMBER_CHECK(beta >= 0, "[", op, "] does not support negative values for beta, got ", beta);
  const Tensor d = up(input) - up(target), ad = abs(d);
  if (beta == 0) return down(reduce(ad, red), dt);
  return down(reduce(where(lt(ad, Scalar(beta)), d * d * (0.5 / beta), ad - 0.5 * beta), red), dt);
}

Tensor huber_loss(const Tensor& input,
                  const Tensor& target,
                  std::string_view reduction,
                  double delta,
                  const Tensor& weight) {
  const char* op = "huber_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input, target, op);
  EMBER_CHECK(delta > 0, "[", op, "] does not support non-positive values for delta, got ", delta);
  const Tensor d = up(input) - up(target), ad = abs(d);
  const Tensor loss = where(lt(ad, Scalar(delta)), d * d * 0.5, (ad - 0.5 * delta) * delta);
  return down(weighted(loss, weight, input.sizes(), red, false, op), dt);
}

Tensor poisson_nll_loss(const Tensor& input,
                        const Tensor& target,
                        bool log_input,
                        bool full,
                        double eps,
                        std::string_view reduction) {
  const char* op = "poisson_nll_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input, target, op);
  const Tensor x = up(input), t = up(target);
  Tensor loss = log_input ? exp(x) - t * x : x - t * log(x + eps);
  if (full) {
    // Stirling's term where t > 1; the masked-out entries see t = 2, so their (zero) gradient
    // does not become 0 * log(0) = NaN.
    const Tensor big = gt(t, Scalar(1));
    const Tensor ts = where(big, t, Scalar(2.0));
    const Tensor stirling = ts * log(ts) - ts + 0.5 * log(ts * (2 * std::numbers::pi));
    loss = loss + where(big, stirling, Scalar(0));
  }
  return down(reduce(loss, red), dt);
}

Tensor gaussian_nll_loss(const Tensor& input,
                         const Tensor& target,
                         const Tensor& var,
                         bool full,
                         double eps,
                         std::string_view reduction) {
  const char* op = "gaussian_nll_loss";
  const DType dt = regression_dtype(input, target, op);
  check_floating(var, op, "var");
  {
    NoGradGuard no_grad;
    EMBER_CHECK_VALUE(!any(lt(var, Scalar(0))).item<bool>(), "[", op,
                      "] var has negative entry/entries");
  }
  // var: the input's shape; or one dim short (unsqueezed); or the same rank with size 1 in the
  // one dim that differs (PyTorch's rule).
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef is = input.sizes(), vs = var.sizes();
    bool ok = false;
    if (input.dim() >= 1 && vs == is.slice(0, is.size() - 1)) {
      v = unsqueeze(var, -1);
      ok = true;
    } else if (input.dim() == var.dim()) {
      int64_t mismatch = 0;
      for (size_t d = 0; d < is.size(); ++d)
        if (is[d] != vs[d]) mismatch += vs[d];
      ok = mismatch == 1;
    }
    EMBER_CHECK_VALUE(ok, "[", op, "] var is of incorrect size: ", var.sizes(),
                      " for input of shape ", input.sizes());
  }
  const Reduction red = parse_reduction(reduction, op);
  const Tensor vc = clamp_straight_through(up(v), eps);
  const Tensor d = up(input) - up(target);
  Tensor loss = 0.5 * (log(vc) + d * d / vc);
  if (full) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return down(reduce(loss, red), dt);
}

// ---- embedding / ranking
// --------------------------------------------------------------------------

Tensor cosine_embedding_loss(const Tensor& input1,
                             const Tensor& input2,
                             const Tensor& target,
                             double margin,
                             std::string_view reduction) {
  const char* op = "cosine_embedding_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input1, input2, op);
  EMBER_CHECK(target.dim() <= 1, "[", op,
              "] expected a 0-d or 1-d target (multi-target is not supported), got shape ",
              target.sizes());
  if (target.dim() == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, "[", op,
                "] a 1-d target expects 2-d inputs, got inputs of shapes ", input1.sizes(), " and ",
                input2.sizes());
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, "[", op,
                "] a 0-d target expects 1-d inputs, got inputs of shapes ", input1.sizes(), " and ",
                input2.sizes());
  }
  constexpr double kEps = 1e-12;  // PyTorch's EPSILON, keeps the denominator positive
  const Tensor a = up(input1), b = up(input2);
  const int64_t d = target.dim();
  const Tensor prod = sum(a * b, {d});
  const Tensor m1 = sum(a * a, {d}) + kEps, m2 = sum(b * b, {d}) + kEps;
  const Tensor cosine = prod / sqrt(m1 * m2);
  const Tensor loss = where(eq(target, Scalar(1)), 1 - cosine, Scalar(0)) +
                      where(eq(target, Scalar(-1)), clamp_min(cosine - margin, 0), Scalar(0));
  return down(reduce(loss, red), dt);
}

Tensor margin_ranking_loss(const Tensor& input1,
                           const Tensor& input2,
                           const Tensor& target,
                           double margin,
                           std::string_view reduction) {
  const char* op = "margin_ranking_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input1, input2, op);
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), "[", op,
              "] all input tensors should have the same number of dims, got shapes input1: ",
              input1.sizes(), ", input2: ", input2.sizes(), ", target: ", target.sizes());
  const Tensor loss = clamp_min(-up(target) * (up(input1) - up(input2)) + margin, 0);
  return down(reduce(loss, red), dt);
}

Tensor hinge_embedding_loss(const Tensor& input,
                            const Tensor& target,
                            double margin,
                            std::string_view reduction) {
  const char* op = "hinge_embedding_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(input, target, op);
  const Tensor x = up(input);
  const Tensor loss = where(ne(target, Scalar(1)), clamp_min(margin - x, 0), Scalar(0)) +
                      where(ne(target, Scalar(-1)), x, Scalar(0));
  return down(reduce(loss, red), dt);
}

Tensor triplet_margin_loss(const Tensor& anchor,
                           const Tensor& positive,
                           const Tensor& negative,
                           double margin,
                           double p,
                           double eps,
                           bool swap,
                           std::string_view reduction) {
  const char* op = "triplet_margin_loss";
  const Reduction red = parse_reduction(reduction, op);
  const DType dt = regression_dtype(anchor, positive, op);
  check_floating(negative, op, "negative");
  EMBER_CHECK_VALUE(margin > 0, "[", op, "] margin must be greater than 0, got ", margin);
  EMBER_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(), "[", op,
              "] the anchor, positive, and negative tensors are expected to have the same number "
              "of dimensions, got ",
              anchor.dim(), "-d, ", positive.dim(), "-d and ", negative.dim(), "-d");
  // pairwise_distance: ||a - b + eps||_p over the last dim (all of a 0-d tensor).
  auto distance = [&](const Tensor& a, const Tensor& b) {
    const Tensor diff = up(a) - up(b) + eps;
    return diff.dim() == 0 ? linalg_vector_norm(diff, p, {}, false)
                           : linalg_vector_norm(diff, p, {-1}, false);
  };
  const Tensor d_pos = distance(anchor, positive);
  Tensor d_neg = distance(anchor, negative);
  if (swap) d_neg = minimum(d_neg, distance(positive, negative));
  return down(reduce(clamp_min(margin + d_pos - d_neg, 0), red), dt);
}

}  // namespace ember
