// Kernel slots of the fused optimizer updates (ops/optim.cpp): each walks the concatenated element
// range of all its tensors in one parallel loop, reading and writing every element once; results
// do not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

using TensorVec = std::vector<Tensor>;

// All lists hold contiguous tensors of one floating dtype (any of the four), the shapes of
// params. step_size[i] = lr / (1 - beta1^step_i), bc2_sqrt[i] = sqrt(1 - beta2^step_i).
struct AdamKernelArgs {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;  // decoupled: AdamW's p *= 1 - lr * wd
};
// bufs: empty when momentum == 0; first[i]: bufs[i] is new and is set to the (decayed) gradient.
struct SgdKernelArgs {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
};
// grad_avgs: empty unless centered; bufs: empty unless momentum > 0.
struct RmspropKernelArgs {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};
// clr[i] = lr / (1 + (step_i - 1) * lr_decay).
struct AdagradKernelArgs {
  double eps, weight_decay;
  bool maximize;
};

struct OptimKernels {
  using Adam = void (*)(const TensorVec& params,
                        const TensorVec& grads,
                        const TensorVec& exp_avgs,
                        const TensorVec& exp_avg_sqs,
                        const TensorVec& max_exp_avg_sqs,  // empty unless amsgrad
                        const std::vector<double>& step_size,
                        const std::vector<double>& bc2_sqrt,
                        const AdamKernelArgs& a);
  using Sgd = void (*)(const TensorVec& params,
                       const TensorVec& grads,
                       const TensorVec& bufs,
                       const std::vector<uint8_t>& first,
                       const SgdKernelArgs& a);
  using Rmsprop = void (*)(const TensorVec& params,
                           const TensorVec& grads,
                           const TensorVec& square_avgs,
                           const TensorVec& grad_avgs,
                           const TensorVec& bufs,
                           const RmspropKernelArgs& a);
  using Adagrad = void (*)(const TensorVec& params,
                           const TensorVec& grads,
                           const TensorVec& state_sums,
                           const std::vector<double>& clr,
                           const AdagradKernelArgs& a);

  Adam adam = nullptr;
  Sgd sgd = nullptr;
  Rmsprop rmsprop = nullptr;
  Adagrad adagrad = nullptr;
};

}  // namespace ember
