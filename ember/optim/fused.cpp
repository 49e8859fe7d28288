#include "ember/optim/fused.h"

#include <cmath>
#include <cstdint>

#include "ember/backend/cpu/optim_fused.h"
#include "ember/core/error.h"
#include "ember/ops/creation.h"

namespace ember::optim {
namespace {

// The kernels are CPU-only (memory-bound loops; a CUDA version would be a kernel-table slot).
void check_cpu(const Tensor& t, const char* op, const char* what, size_t i) {
  EMBER_CHECK(t.device().is_cpu(), "[", op, "] ", what, "[", i, "] is on ", t.device(),
              ": the fused optimizer kernels run on CPU tensors only");
}

void check_params(const std::vector<Tensor>& params, const char* op) {
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    EMBER_CHECK_VALUE(p.defined(), "[", op, "] params[", i, "] is an undefined tensor");
    check_cpu(p, op, "params", i);
    EMBER_CHECK_TYPE(p.is_floating_point(), "[", op, "] params[", i, "] has dtype ", p.dtype(),
                     ": expected a floating-point dtype");
    EMBER_CHECK(p.is_contiguous(), "[", op, "] params[", i, "] must be contiguous");
  }
}

// `list` must hold, per parameter, a contiguous tensor of the parameter's shape, dtype, device.
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
    check_cpu(t, op, what, i);
    EMBER_CHECK_TYPE(t.dtype() == p.dtype(), "[", op, "] ", what, "[", i, "] has dtype ", t.dtype(),
                     " but its param has dtype ", p.dtype());
    EMBER_CHECK(t.sizes() == p.sizes(), "[", op, "] ", what, "[", i, "] has shape ", t.sizes(),
                " but its param has shape ", p.sizes());
    EMBER_CHECK(t.is_contiguous(), "[", op, "] ", what, "[", i, "] must be contiguous");
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
    check_cpu(s, op, "state_steps", i);
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

// Gradients may come strided from backward (an expanded or transposed result): they are only
// read, so a contiguous copy is taken rather than refusing them.
std::vector<Tensor> contiguous_grads(const std::vector<Tensor>& grads,
                                     const std::vector<Tensor>& params,
                                     const char* op) {
  std::vector<Tensor> out(grads);
  for (size_t i = 0; i < out.size() && i < params.size(); ++i)
    if (out[i].defined() && !out[i].is_contiguous()) out[i] = out[i].contiguous();
  check_list(out, params, op, "grads");
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

}  // namespace

void adam_(const std::vector<Tensor>& params,
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
  const char* op = "adam_";
  check_params(params, op);
  const std::vector<Tensor> g = contiguous_grads(grads, params, op);
  check_list(exp_avgs, params, op, "exp_avgs");
  check_list(exp_avg_sqs, params, op, "exp_avg_sqs");
  if (amsgrad) check_list(max_exp_avg_sqs, params, op, "max_exp_avg_sqs");
  if (params.empty()) return;
  const std::vector<double> steps = bump_steps(state_steps, params.size(), op);
  std::vector<double> step_size(params.size()), bc2_sqrt(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    step_size[i] = lr / (1 - std::pow(beta1, steps[i]));
    bc2_sqrt[i] = std::sqrt(1 - std::pow(beta2, steps[i]));
  }
  for (const auto& idx : by_dtype(params))
    cpu::fused_adam(pick(params, idx), pick(g, idx), pick(exp_avgs, idx), pick(exp_avg_sqs, idx),
                    amsgrad ? pick(max_exp_avg_sqs, idx) : std::vector<Tensor>{},
                    pick(step_size, idx), pick(bc2_sqrt, idx),
                    {lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled});
  bump(params);
  bump(exp_avgs);
  bump(exp_avg_sqs);
  if (amsgrad) bump(max_exp_avg_sqs);
}

std::vector<Tensor> sgd_(const std::vector<Tensor>& params,
                         const std::vector<Tensor>& grads,
                         const std::vector<Tensor>& momentum_buffers,
                         double lr,
                         double momentum,
                         double dampening,
                         double weight_decay,
                         bool nesterov,
                         bool maximize) {
  const char* op = "sgd_";
  check_params(params, op);
  const std::vector<Tensor> g = contiguous_grads(grads, params, op);
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
        bufs[i] = empty(params[i].sizes(), TensorOptions(params[i].dtype()));
        first[i] = 1;
      }
    }
    check_list(bufs, params, op, "momentum_buffers");
  }
  for (const auto& idx : by_dtype(params))
    cpu::fused_sgd(pick(params, idx), pick(g, idx), pick(bufs, idx), pick(first, idx),
                   {lr, momentum, dampening, weight_decay, nesterov, maximize});
  bump(params);
  bump(bufs);
  return bufs;
}

void rmsprop_(const std::vector<Tensor>& params,
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
  const char* op = "rmsprop_";
  check_params(params, op);
  const std::vector<Tensor> g = contiguous_grads(grads, params, op);
  check_list(square_avgs, params, op, "square_avgs");
  if (centered) check_list(grad_avgs, params, op, "grad_avgs");
  if (momentum > 0) check_list(momentum_buffers, params, op, "momentum_buffers");
  if (params.empty()) return;
  bump_steps(state_steps, params.size(), op);  // RMSprop's update does not use the count
  for (const auto& idx : by_dtype(params))
    cpu::fused_rmsprop(pick(params, idx), pick(g, idx), pick(square_avgs, idx),
                       centered ? pick(grad_avgs, idx) : std::vector<Tensor>{},
                       momentum > 0 ? pick(momentum_buffers, idx) : std::vector<Tensor>{},
                       {lr, alpha, eps, weight_decay, momentum, centered, maximize});
  bump(params);
  bump(square_avgs);
  if (centered) bump(grad_avgs);
  if (momentum > 0) bump(momentum_buffers);
}

void adagrad_(const std::vector<Tensor>& params,
              const std::vector<Tensor>& grads,
              const std::vector<Tensor>& state_sums,
              const std::vector<Tensor>& state_steps,
              double lr,
              double lr_decay,
              double weight_decay,
              double eps,
              bool maximize) {
  const char* op = "adagrad_";
  check_params(params, op);
  const std::vector<Tensor> g = contiguous_grads(grads, params, op);
  check_list(state_sums, params, op, "state_sums");
  if (params.empty()) return;
  std::vector<double> clr = bump_steps(state_steps, params.size(), op);
  for (double& c : clr) c = lr / (1 + (c - 1) * lr_decay);
  for (const auto& idx : by_dtype(params))
    cpu::fused_adagrad(pick(params, idx), pick(g, idx), pick(state_sums, idx), pick(clr, idx),
                       {eps, weight_decay, maximize});
  bump(params);
  bump(state_sums);
}

}  // namespace ember::optim
