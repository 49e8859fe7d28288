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

// The six below follow PyTorch's single-tensor algorithms operation by operation; per-tensor
// values that depend on the step count are computed on the host (ops/optim.cpp).
struct AdadeltaKernelArgs {
  double lr, rho, eps, weight_decay;
  bool maximize;
};
// clr[i] = lr / (1 - beta1^step_i).
struct AdamaxKernelArgs {
  double beta1, beta2, eps, weight_decay;
  bool maximize;
};
// bc2[i] = 1 - beta2^step_i; c1[i], c2[i]: the gradient's and the average's step sizes.
struct NadamKernelArgs {
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled, maximize;
};
// bc1[i] = 1 - beta1^step_i, bc2_sqrt[i] = sqrt(1 - beta2^step_i); rect[i] = 0 below the
// rectification threshold (a plain momentum step), the rectification term otherwise.
struct RadamKernelArgs {
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled, maximize;
};
// eta[i], mu[i]: the step size and averaging weight before this step.
struct AsgdKernelArgs {
  double lambd, weight_decay;
  bool maximize;
};
struct RpropKernelArgs {
  double etaminus, etaplus, step_min, step_max;
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

  using Adadelta = void (*)(const TensorVec& params,
                            const TensorVec& grads,
                            const TensorVec& square_avgs,
                            const TensorVec& acc_deltas,
                            const AdadeltaKernelArgs& a);
  using Adamax = void (*)(const TensorVec& params,
                          const TensorVec& grads,
                          const TensorVec& exp_avgs,
                          const TensorVec& exp_infs,
                          const std::vector<double>& clr,
                          const AdamaxKernelArgs& a);
  using Nadam = void (*)(const TensorVec& params,
                         const TensorVec& grads,
                         const TensorVec& exp_avgs,
                         const TensorVec& exp_avg_sqs,
                         const std::vector<double>& bc2,
                         const std::vector<double>& c1,
                         const std::vector<double>& c2,
                         const NadamKernelArgs& a);
  using Radam = void (*)(const TensorVec& params,
                         const TensorVec& grads,
                         const TensorVec& exp_avgs,
                         const TensorVec& exp_avg_sqs,
                         const std::vector<double>& bc1,
                         const std::vector<double>& bc2_sqrt,
                         const std::vector<double>& rect,
                         const RadamKernelArgs& a);
  using Asgd = void (*)(const TensorVec& params,
                        const TensorVec& grads,
                        const TensorVec& axs,
                        const std::vector<double>& eta,
                        const std::vector<double>& mu,
                        const AsgdKernelArgs& a);
  using Rprop = void (*)(const TensorVec& params,
                         const TensorVec& grads,
                         const TensorVec& prevs,
                         const TensorVec& step_sizes,
                         const RpropKernelArgs& a);

  Adam adam = nullptr;
  Sgd sgd = nullptr;
  Rmsprop rmsprop = nullptr;
  Adagrad adagrad = nullptr;
  Adadelta adadelta = nullptr;
  Adamax adamax = nullptr;
  Nadam nadam = nullptr;
  Radam radam = nullptr;
  Asgd asgd = nullptr;
  Rprop rprop = nullptr;
};

}  // namespace ember
