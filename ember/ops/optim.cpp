#include "ember/ops/optim.h"

#include <cmath>
#include <cstdint>

#include "ember/autograd/grad_mode.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_optim.h"
#include "ember/core/error.h"
#include "ember/ops/creation.h"
#include "ember/ops/registry.h"

namespace ember {
namespace {

// Python binds them in ember._C._optim (ember.optim's classes call them), hence the names.
const OpInfo kOptimOps[] = {
    {"_optim.adam_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.sgd_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.rmsprop_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.adagrad_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.adadelta_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.adamax_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.nadam_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.radam_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.asgd_", OpKind::Inplace, kFloatingTypes, false},
    {"_optim.rprop_", OpKind::Inplace, kFloatingTypes, false},
};

// Every list lives on the device of the first parameter (the kernels of that device's backend
// run the update); the step counts are read on the host, so they are CPU tensors.
void check_device(const Tensor& t, Device device, const char* op, const char* what, size_t i) {
  EMBER_CHECK(t.device() == device, "[", op, "] ", what, "[", i, "] is on ", t.device(),
              ", expected ", device, " (the device of params[0])");
}

const OptimKernels& optim_kernels(const std::vector<Tensor>& params, const char* op) {
  const Device device = params.front().device();
  return kernels_of(kernels(device).optim, device, op);
}

void check_params(const std::vector<Tensor>& params, const char* op) {
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    EMBER_CHECK_VALUE(p.defined(), "[", op, "] params[", i, "] is an undefined tensor");
    check_device(p, params[0].device(), op, "params", i);
    EMBER_CHECK_TYPE(p.is_floating_point(), "[", op, "] params[", i, "] has dtype ", p.dtype(),
                     ": expected a floating-point dtype");
  }
}

// `list` must hold, per parameter, a tensor of the parameter's shape, dtype and device (any
// layout: see Note [Fused layouts]).
void check_list(const std::vector<Tensor>& list,
                const std::vector<Tensor>& params,
                const char* op,
                const char* what) {
  EMBER_CHECK_VALUE(list.size() == params.size(), "[", op, "] expected ", params.size(), " ", what,
                    " (one per param), got ", list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const Tensor& t = list[i];
    const Tensor& p = params[i];
    EMBER_CHECK_VALUE(t.defined(), "[", op, "] ", what, "[", i, "] is an undefined tensor");
    check_device(t, p.device(), op, what, i);
    EMBER_CHECK_TYPE(t.dtype() == p.dtype(), "[", op, "] ", what, "[", i, "] has dtype ", t.dtype(),
                     " but its param has dtype ", p.dtype());
    EMBER_CHECK(t.sizes() == p.sizes(), "[", op, "] ", what, "[", i, "] has shape ", t.sizes(),
                " but its param has shape ", p.sizes());
  }
}

// Adds 1 to each step tensor and returns the new counts, one per parameter. All are checked
// before any changes, so a bad list leaves every count as it was.
std::vector<double> bump_steps(const std::vector<Tensor>& steps, size_t n, const char* op) {
  EMBER_CHECK_VALUE(steps.size() == n || steps.size() == 1, "[", op,
                    "] expected one state_steps tensor per param (", n,
                    ") or one for the group, got ", steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const Tensor& s = steps[i];
    EMBER_CHECK_VALUE(s.defined(), "[", op, "] state_steps[", i, "] is an undefined tensor");
    check_device(s, kCPU, op, "state_steps", i);
    EMBER_CHECK(s.numel() == 1, "[", op, "] state_steps[", i,
                "] must hold one value, got a tensor of shape ", s.sizes());
    EMBER_CHECK_TYPE(s.dtype() == kFloat32 || s.dtype() == kFloat64 || s.dtype() == kInt64, "[", op,
                     "] state_steps[", i, "] has dtype ", s.dtype(),
                     ": expected float32, float64 or int64");
  }
  std::vector<double> out(n);
  for (size_t i = 0; i < steps.size(); ++i) {
    const Tensor& s = steps[i];
    if (s.dtype() == kFloat32)
      out[i] = double(*static_cast<float*>(s.data_ptr()) += 1);
    else if (s.dtype() == kFloat64)
      out[i] = *static_cast<double*>(s.data_ptr()) += 1;
    else
      out[i] = double(*static_cast<int64_t*>(s.data_ptr()) += 1);
    s.storage()->bump_version();
  }
  if (steps.size() == 1) out.assign(n, out[0]);
  return out;
}

// Note [Fused layouts]: the kernels walk each tensor's memory as one flat array. That is right
// when the parameter is dense (contiguous, channels-last, any permutation of dims) and its
// gradient and state tensors lay their elements out in the same order. Anything else is staged:
// copied into the parameter's layout (a contiguous one for a parameter with gaps), updated there,
// and, for the tensors updated in place, copied back. Models keep one layout throughout, so the
// staging is the rare path (a strided gradient, state loaded from a checkpoint in another layout).
bool same_memory_order(const Tensor& t, const Tensor& p) {
  if (!p.is_non_overlapping_and_dense() || !t.is_non_overlapping_and_dense()) return false;
  for (int64_t d = 0; d < p.dim(); ++d)
    if (p.size(d) > 1 && t.stride(d) != p.stride(d)) return false;
  return true;
}

class Staging {
 public:
  // What the kernel reads for `t`, which belongs with parameter `p`.
  Tensor in(const Tensor& t, const Tensor& p) const {
    return same_memory_order(t, p) ? t : layout_copy(t, p);
  }
  // What the kernel updates in place for `t`; write_back() copies staged values home.
  Tensor inout(const Tensor& t, const Tensor& p) {
    if (same_memory_order(t, p)) return t;
    Tensor s = layout_copy(t, p);
    back_.emplace_back(t, s);
    return s;
  }
  std::vector<Tensor> inout(const std::vector<Tensor>& list, const std::vector<Tensor>& params) {
    std::vector<Tensor> out(list.size());
    for (size_t i = 0; i < list.size(); ++i) out[i] = inout(list[i], params[i]);
    return out;
  }
  void write_back() {
    NoGradGuard no_grad;  // a parameter is a leaf that requires grad
    for (auto& [t, s] : back_) t.copy_(s);
  }

 private:
  static Tensor layout_copy(const Tensor& t, const Tensor& p) {
    Tensor s = p.is_non_overlapping_and_dense() ? empty_like(p)
                                                : empty(p.sizes(), TensorOptions(p.dtype()));
    s.copy_(t);
    return s;
  }
  std::vector<std::pair<Tensor, Tensor>> back_;
};

// Gradients are only read: one in a different layout (an expanded or transposed result of
// backward) is copied into its parameter's.
std::vector<Tensor> staged_grads(const std::vector<Tensor>& grads,
                                 const std::vector<Tensor>& params,
                                 const Staging& st,
                                 const char* op) {
  check_list(grads, params, op, "grads");
  std::vector<Tensor> out(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) out[i] = st.in(grads[i], params[i]);
  return out;
}

// The kernels take one dtype per call: parameter indices grouped by dtype, in first-seen order
// (one group, the usual case, costs a copy of the handles and nothing else).
std::vector<std::vector<size_t>> by_dtype(const std::vector<Tensor>& params) {
  std::vector<std::vector<size_t>> groups;
  std::vector<DType> dtypes;
  for (size_t i = 0; i < params.size(); ++i) {
    size_t g = 0;
    while (g < dtypes.size() && dtypes[g] != params[i].dtype()) ++g;
    if (g == dtypes.size()) {
      dtypes.push_back(params[i].dtype());
      groups.emplace_back();
    }
    groups[g].push_back(i);
  }
  return groups;
}

// v's entries at idx; an empty (unused) list stays empty.
template <class T>
std::vector<T> pick(const std::vector<T>& v, const std::vector<size_t>& idx) {
  std::vector<T> out;
  if (v.empty()) return out;
  out.reserve(idx.size());
  for (size_t i : idx) out.push_back(v[i]);
  return out;
}

void bump(const std::vector<Tensor>& list) {
  for (const Tensor& t : list) t.storage()->bump_version();
}

// Per-parameter scalar state (NAdam's mu_product, ASGD's eta and mu): one-element CPU float
// tensors, read and written on the host.
void check_scalars(const std::vector<Tensor>& list, size_t n, const char* op, const char* what) {
  EMBER_CHECK_VALUE(list.size() == n, "[", op, "] expected ", n, " ", what,
                    " (one per param), got ", list.size());
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = list[i];
    EMBER_CHECK_VALUE(t.defined(), "[", op, "] ", what, "[", i, "] is an undefined tensor");
    check_device(t, kCPU, op, what, i);
    EMBER_CHECK(t.numel() == 1, "[", op, "] ", what, "[", i,
                "] must hold one value, got a tensor of shape ", t.sizes());
    EMBER_CHECK_TYPE(t.dtype() == kFloat32 || t.dtype() == kFloat64, "[", op, "] ", what, "[", i,
                     "] has dtype ", t.dtype(), ": expected float32 or float64");
  }
}
double read_scalar(const Tensor& t) {
  return t.dtype() == kFloat32 ? double(*static_cast<const float*>(t.data_ptr()))
                               : *static_cast<const double*>(t.data_ptr());
}
// Stores v in t's dtype and returns the stored value (float32 state rounds, as PyTorch's).
double write_scalar(const Tensor& t, double v) {
  if (t.dtype() == kFloat32)
    v = double(*static_cast<float*>(t.data_ptr()) = float(v));
  else
    *static_cast<double*>(t.data_ptr()) = v;
  t.storage()->bump_version();
  return v;
}

// The parameters, gradients and state lists of one update, checked and staged: what every
// update below starts with. `state` names the lists in order.
struct Prepared {
  Staging st;
  std::vector<Tensor> p, g;
  std::vector<std::vector<Tensor>> state;
};
Prepared prepare(const std::vector<Tensor>& params,
                 const std::vector<Tensor>& grads,
                 std::initializer_list<std::pair<const std::vector<Tensor>*, const char*>> lists,
                 const char* op) {
  check_params(params, op);
  Prepared r;
  r.g = staged_grads(grads, params, r.st, op);
  for (const auto& [list, what] : lists) check_list(*list, params, op, what);
  r.p = r.st.inout(params, params);
  for (const auto& [list, what] : lists) r.state.push_back(r.st.inout(*list, params));
  return r;
}
void finish(Prepared& r,
            const std::vector<Tensor>& params,
            std::initializer_list<const std::vector<Tensor>*> lists) {
  r.st.write_back();
  bump(params);
  for (const auto* list : lists) bump(*list);
}

}  // namespace

std::span<const OpInfo> optim_op_infos() { return kOptimOps; }

void fused_adam_(const std::vector<Tensor>& params,
                 const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& exp_avgs,
                 const std::vector<Tensor>& exp_avg_sqs,
                 const std::vector<Tensor>& max_exp_avg_sqs,
                 const std::vector<Tensor>& state_steps,
                 double lr,
                 double beta1,
                 double beta2,
                 double weight_decay,
                 double eps,
                 bool amsgrad,
                 bool maximize,
                 bool decoupled) {
  const char* op = "fused_adam_";
  check_params(params, op);
  Staging st;
  const std::vector<Tensor> g = staged_grads(grads, params, st, op);
  check_list(exp_avgs, params, op, "exp_avgs");
  check_list(exp_avg_sqs, params, op, "exp_avg_sqs");
  if (amsgrad) check_list(max_exp_avg_sqs, params, op, "max_exp_avg_sqs");
  if (params.empty()) return;
  const std::vector<Tensor> p = st.inout(params, params), m = st.inout(exp_avgs, params),
                            v = st.inout(exp_avg_sqs, params),
                            vmax =
                                amsgrad ? st.inout(max_exp_avg_sqs, params) : std::vector<Tensor>{};
  const std::vector<double> steps = bump_steps(state_steps, params.size(), op);
  std::vector<double> step_size(params.size()), bc2_sqrt(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    step_size[i] = lr / (1 - std::pow(beta1, steps[i]));
    bc2_sqrt[i] = std::sqrt(1 - std::pow(beta2, steps[i]));
  }
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .adam(pick(p, idx), pick(g, idx), pick(m, idx), pick(v, idx), pick(vmax, idx),
              pick(step_size, idx), pick(bc2_sqrt, idx),
              {lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled});
  st.write_back();
  bump(params);
  bump(exp_avgs);
  bump(exp_avg_sqs);
  if (amsgrad) bump(max_exp_avg_sqs);
}

std::vector<Tensor> fused_sgd_(const std::vector<Tensor>& params,
                               const std::vector<Tensor>& grads,
                               const std::vector<Tensor>& momentum_buffers,
                               double lr,
                               double momentum,
                               double dampening,
                               double weight_decay,
                               bool nesterov,
                               bool maximize) {
  const char* op = "fused_sgd_";
  check_params(params, op);
  Staging st;
  const std::vector<Tensor> g = staged_grads(grads, params, st, op);
  std::vector<Tensor> bufs;
  std::vector<uint8_t> first(params.size(), 0);
  if (momentum != 0) {
    EMBER_CHECK_VALUE(momentum_buffers.empty() || momentum_buffers.size() == params.size(), "[", op,
                      "] expected ", params.size(),
                      " momentum_buffers (one per param, undefined for none yet), got ",
                      momentum_buffers.size());
    bufs.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      if (!momentum_buffers.empty() && momentum_buffers[i].defined()) {
        bufs[i] = momentum_buffers[i];
      } else {
        bufs[i] = empty_like(params[i]);  // in the parameter's layout, so never staged
        first[i] = 1;
      }
    }
    check_list(bufs, params, op, "momentum_buffers");
  }
  const std::vector<Tensor> p = st.inout(params, params), b = st.inout(bufs, params);
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .sgd(pick(p, idx), pick(g, idx), pick(b, idx), pick(first, idx),
             {lr, momentum, dampening, weight_decay, nesterov, maximize});
  st.write_back();
  bump(params);
  bump(bufs);
  return bufs;
}

void fused_rmsprop_(const std::vector<Tensor>& params,
                    const std::vector<Tensor>& grads,
                    const std::vector<Tensor>& square_avgs,
                    const std::vector<Tensor>& grad_avgs,
                    const std::vector<Tensor>& momentum_buffers,
                    const std::vector<Tensor>& state_steps,
                    double lr,
                    double alpha,
                    double eps,
                    double weight_decay,
                    double momentum,
                    bool centered,
                    bool maximize) {
  const char* op = "fused_rmsprop_";
  check_params(params, op);
  Staging st;
  const std::vector<Tensor> g = staged_grads(grads, params, st, op);
  check_list(square_avgs, params, op, "square_avgs");
  if (centered) check_list(grad_avgs, params, op, "grad_avgs");
  if (momentum > 0) check_list(momentum_buffers, params, op, "momentum_buffers");
  if (params.empty()) return;
  bump_steps(state_steps, params.size(), op);  // RMSprop's update does not use the count
  const std::vector<Tensor> p = st.inout(params, params), sq = st.inout(square_avgs, params),
                            ga = centered ? st.inout(grad_avgs, params) : std::vector<Tensor>{},
                            mb = momentum > 0 ? st.inout(momentum_buffers, params)
                                              : std::vector<Tensor>{};
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .rmsprop(pick(p, idx), pick(g, idx), pick(sq, idx), pick(ga, idx), pick(mb, idx),
                 {lr, alpha, eps, weight_decay, momentum, centered, maximize});
  st.write_back();
  bump(params);
  bump(square_avgs);
  if (centered) bump(grad_avgs);
  if (momentum > 0) bump(momentum_buffers);
}

void fused_adagrad_(const std::vector<Tensor>& params,
                    const std::vector<Tensor>& grads,
                    const std::vector<Tensor>& state_sums,
                    const std::vector<Tensor>& state_steps,
                    double lr,
                    double lr_decay,
                    double weight_decay,
                    double eps,
                    bool maximize) {
  const char* op = "fused_adagrad_";
  check_params(params, op);
  Staging st;
  const std::vector<Tensor> g = staged_grads(grads, params, st, op);
  check_list(state_sums, params, op, "state_sums");
  if (params.empty()) return;
  std::vector<double> clr = bump_steps(state_steps, params.size(), op);
  for (double& c : clr) c = lr / (1 + (c - 1) * lr_decay);
  const std::vector<Tensor> p = st.inout(params, params), sums = st.inout(state_sums, params);
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .adagrad(pick(p, idx), pick(g, idx), pick(sums, idx), pick(clr, idx),
                 {eps, weight_decay, maximize});
  st.write_back();
  bump(params);
  bump(state_sums);
}

void fused_adadelta_(const std::vector<Tensor>& params,
                     const std::vector<Tensor>& grads,
                     const std::vector<Tensor>& square_avgs,
                     const std::vector<Tensor>& acc_deltas,
                     const std::vector<Tensor>& state_steps,
                     double lr,
                     double rho,
                     double eps,
                     double weight_decay,
                     bool maximize) {
  const char* op = "fused_adadelta_";
  Prepared r =
      prepare(params, grads, {{&square_avgs, "square_avgs"}, {&acc_deltas, "acc_deltas"}}, op);
  if (params.empty()) return;
  bump_steps(state_steps, params.size(), op);  // Adadelta's update does not use the count
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .adadelta(pick(r.p, idx), pick(r.g, idx), pick(r.state[0], idx), pick(r.state[1], idx),
                  {lr, rho, eps, weight_decay, maximize});
  finish(r, params, {&square_avgs, &acc_deltas});
}

void fused_adamax_(const std::vector<Tensor>& params,
                   const std::vector<Tensor>& grads,
                   const std::vector<Tensor>& exp_avgs,
                   const std::vector<Tensor>& exp_infs,
                   const std::vector<Tensor>& state_steps,
                   double lr,
                   double beta1,
                   double beta2,
                   double eps,
                   double weight_decay,
                   bool maximize) {
  const char* op = "fused_adamax_";
  Prepared r = prepare(params, grads, {{&exp_avgs, "exp_avgs"}, {&exp_infs, "exp_infs"}}, op);
  if (params.empty()) return;
  std::vector<double> clr = bump_steps(state_steps, params.size(), op);
  for (double& c : clr) c = lr / (1 - std::pow(beta1, c));
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .adamax(pick(r.p, idx), pick(r.g, idx), pick(r.state[0], idx), pick(r.state[1], idx),
                pick(clr, idx), {beta1, beta2, eps, weight_decay, maximize});
  finish(r, params, {&exp_avgs, &exp_infs});
}

void fused_nadam_(const std::vector<Tensor>& params,
                  const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& exp_avgs,
                  const std::vector<Tensor>& exp_avg_sqs,
                  const std::vector<Tensor>& mu_products,
                  const std::vector<Tensor>& state_steps,
                  double lr,
                  double beta1,
                  double beta2,
                  double eps,
                  double weight_decay,
                  double momentum_decay,
                  bool decoupled_weight_decay,
                  bool maximize) {
  const char* op = "fused_nadam_";
  Prepared r = prepare(params, grads, {{&exp_avgs, "exp_avgs"}, {&exp_avg_sqs, "exp_avg_sqs"}}, op);
  check_scalars(mu_products, params.size(), op, "mu_products");
  if (params.empty()) return;
  const std::vector<double> steps = bump_steps(state_steps, params.size(), op);
  const size_t n = params.size();
  std::vector<double> bc2(n), c1(n), c2(n);
  for (size_t i = 0; i < n; ++i) {
    // The momentum cache mu_t and mu_{t+1} (Dozat's schedule), and their running product.
    const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, steps[i] * momentum_decay));
    const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (steps[i] + 1) * momentum_decay));
    const double prod = write_scalar(mu_products[i], read_scalar(mu_products[i]) * mu);
    bc2[i] = 1 - std::pow(beta2, steps[i]);
    c1[i] = lr * (1.0 - mu) / (1.0 - prod);
    c2[i] = lr * mu_next / (1.0 - prod * mu_next);
  }
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .nadam(pick(r.p, idx), pick(r.g, idx), pick(r.state[0], idx), pick(r.state[1], idx),
               pick(bc2, idx), pick(c1, idx), pick(c2, idx),
               {lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, maximize});
  finish(r, params, {&exp_avgs, &exp_avg_sqs});
}

void fused_radam_(const std::vector<Tensor>& params,
                  const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& exp_avgs,
                  const std::vector<Tensor>& exp_avg_sqs,
                  const std::vector<Tensor>& state_steps,
                  double lr,
                  double beta1,
                  double beta2,
                  double eps,
                  double weight_decay,
                  bool decoupled_weight_decay,
                  bool maximize) {
  const char* op = "fused_radam_";
  Prepared r = prepare(params, grads, {{&exp_avgs, "exp_avgs"}, {&exp_avg_sqs, "exp_avg_sqs"}}, op);
  if (params.empty()) return;
  const std::vector<double> steps = bump_steps(state_steps, params.size(), op);
  const size_t n = params.size();
  std::vector<double> bc1(n), bc2_sqrt(n), rect(n);
  // The length of the approximated simple moving average: the variance is tractable, and the
  // adaptive step taken, only when it exceeds 5 (Liu et al., 2020).
  const double rho_inf = 2 / (1 - beta2) - 1;
  for (size_t i = 0; i < n; ++i) {
    const double t = steps[i], bc2 = 1 - std::pow(beta2, t);
    bc1[i] = 1 - std::pow(beta1, t);
    bc2_sqrt[i] = std::sqrt(bc2);
    const double rho_t = rho_inf - 2 * t * std::pow(beta2, t) / bc2;
    rect[i] = rho_t > 5.0 ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                      ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                          : 0.0;
  }
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .radam(pick(r.p, idx), pick(r.g, idx), pick(r.state[0], idx), pick(r.state[1], idx),
               pick(bc1, idx), pick(bc2_sqrt, idx), pick(rect, idx),
               {lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, maximize});
  finish(r, params, {&exp_avgs, &exp_avg_sqs});
}

void fused_asgd_(const std::vector<Tensor>& params,
                 const std::vector<Tensor>& grads,
                 const std::vector<Tensor>& axs,
                 const std::vector<Tensor>& etas,
                 const std::vector<Tensor>& mus,
                 const std::vector<Tensor>& state_steps,
                 double lr,
                 double lambd,
                 double alpha,
                 double t0,
                 double weight_decay,
                 bool maximize) {
  const char* op = "fused_asgd_";
  Prepared r = prepare(params, grads, {{&axs, "axs"}}, op);
  check_scalars(etas, params.size(), op, "etas");
  check_scalars(mus, params.size(), op, "mus");
  if (params.empty()) return;
  const std::vector<double> steps = bump_steps(state_steps, params.size(), op);
  const size_t n = params.size();
  std::vector<double> eta(n), mu(n);
  for (size_t i = 0; i < n; ++i) {
    eta[i] = read_scalar(etas[i]);
    mu[i] = read_scalar(mus[i]);
    // The next step's values (Polyak averaging from step t0 on).
    write_scalar(etas[i], lr / std::pow(1 + lambd * lr * steps[i], alpha));
    write_scalar(mus[i], 1 / std::max(1.0, steps[i] - t0));
  }
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .asgd(pick(r.p, idx), pick(r.g, idx), pick(r.state[0], idx), pick(eta, idx), pick(mu, idx),
              {lambd, weight_decay, maximize});
  finish(r, params, {&axs});
}

void fused_rprop_(const std::vector<Tensor>& params,
                  const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& prevs,
                  const std::vector<Tensor>& step_sizes,
                  const std::vector<Tensor>& state_steps,
                  double etaminus,
                  double etaplus,
                  double step_size_min,
                  double step_size_max,
                  bool maximize) {
  const char* op = "fused_rprop_";
  Prepared r = prepare(params, grads, {{&prevs, "prevs"}, {&step_sizes, "step_sizes"}}, op);
  if (params.empty()) return;
  bump_steps(state_steps, params.size(), op);
  for (const auto& idx : by_dtype(params))
    optim_kernels(params, op)
        .rprop(pick(r.p, idx), pick(r.g, idx), pick(r.state[0], idx), pick(r.state[1], idx),
               {etaminus, etaplus, step_size_min, step_size_max, maximize});
  finish(r, params, {&prevs, &step_sizes});
}

}  // namespace ember
