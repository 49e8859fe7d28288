// Fused multi-tensor optimizer updates: each call updates whole lists of tensors in place, in one
// pass over memory, as torch._fused_adam_ and friends do. Python's ember.optim and C++'s
// ember::optim classes both call these once per parameter group and step.
#pragma once

#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// Every list holds, for parameter i, a tensor of params[i]'s shape, dtype and device; all must be
// floating-point tensors on the device of params[0], whose backend runs the update (the kernel
// slots of kernels_optim.h; the CPU has them) (a clear error otherwise; parameters of several
// dtypes may be mixed in one call). Any layout works; a dense parameter (contiguous or
// channels-last) whose state has its layout is updated in place in one pass, others are staged
// (Note [Fused layouts]). float16 and bfloat16 tensors are updated in float arithmetic and rounded
// once per stored value. The updates do not record autograd history (they run as under no_grad) and
// bump the version counter of every tensor they change.
//
// state_steps: one scalar tensor (float32, float64 or int64) per parameter, or a single one
// shared by the group. Each call adds 1 to each step tensor first and uses the new value, as
// PyTorch's optimizers do with state['step'].

// Adam (decoupled = false) or AdamW (decoupled = true): torch.optim.Adam / AdamW's algorithm,
// with bias correction, amsgrad (max_exp_avg_sqs must then match params; otherwise it may be
// empty) and maximize.
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
                 bool decoupled = false);

// SGD with momentum, dampening, nesterov, weight_decay and maximize. momentum_buffers: empty, or
// one entry per parameter where an undefined entry means "no buffer yet": it is created from the
// gradient on this step (as PyTorch does on the first step). Returns the buffers (empty when
// momentum == 0), for the caller to keep in its state.
std::vector<Tensor> fused_sgd_(const std::vector<Tensor>& params,
                               const std::vector<Tensor>& grads,
                               const std::vector<Tensor>& momentum_buffers,
                               double lr,
                               double momentum,
                               double dampening,
                               double weight_decay,
                               bool nesterov,
                               bool maximize);

// RMSprop: grad_avgs are used when centered, momentum_buffers when momentum > 0 (otherwise
// either list may be empty).
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
                    bool maximize);

// Adagrad: clr = lr / (1 + (step - 1) * lr_decay), state_sums start at initial_accumulator_value
// (the caller creates them).
void fused_adagrad_(const std::vector<Tensor>& params,
                    const std::vector<Tensor>& grads,
                    const std::vector<Tensor>& state_sums,
                    const std::vector<Tensor>& state_steps,
                    double lr,
                    double lr_decay,
                    double weight_decay,
                    double eps,
                    bool maximize);

// The others of torch.optim, PyTorch's single-tensor algorithms fused the same way.
// Adadelta: square_avgs and acc_deltas start at zero.
void fused_adadelta_(const std::vector<Tensor>& params,
                     const std::vector<Tensor>& grads,
                     const std::vector<Tensor>& square_avgs,
                     const std::vector<Tensor>& acc_deltas,
                     const std::vector<Tensor>& state_steps,
                     double lr,
                     double rho,
                     double eps,
                     double weight_decay,
                     bool maximize);

// Adamax: exp_infs is the exponentially weighted infinity norm.
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
                   bool maximize);

// NAdam: mu_products holds one float32/float64 scalar tensor per parameter (starting at 1), the
// running product of the momentum cache, updated here.
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
                  bool maximize);

// RAdam, with its rectification switch (the adaptive step once rho_t > 5).
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
                  bool maximize);

// ASGD: etas and mus are one scalar tensor per parameter (starting at lr and 1), read for this
// step and set for the next; axs is the running average of the parameter.
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
                 bool maximize);

// Rprop: prevs (the last gradient kept, starting at zero) and step_sizes (starting at lr).
void fused_rprop_(const std::vector<Tensor>& params,
                  const std::vector<Tensor>& grads,
                  const std::vector<Tensor>& prevs,
                  const std::vector<Tensor>& step_sizes,
                  const std::vector<Tensor>& state_steps,
                  double etaminus,
                  double etaplus,
                  double step_size_min,
                  double step_size_max,
                  bool maximize);

}  // namespace ember
