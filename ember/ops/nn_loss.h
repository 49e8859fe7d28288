// Losses (cross_entropy, nll, mse, ...), with torch.nn.functional's names, arguments and
// semantics (docs/design/nn_loss.md).
//
// `reduction` is "none" (one loss per element, or per sample), "mean" or "sum"; any other string
// is a ValueError. The legacy size_average/reduce arguments are mapped in Python
// (ember/nn/functional/loss.py). Weights (`weight`, `pos_weight`) take no gradient, as in
// PyTorch: a weight that requires grad is refused.
#pragma once

#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// ---- classification
// ------------------------------------------------------------------------------

// Cross entropy of logits `input` ((C), (N, C) or (N, C, d1, ...), classes along dim 1) against
// class indices (int64 or uint8, shape (), (N) or (N, d1, ...)) or class probabilities (the
// input's shape). `weight` (C) rescales each class; targets equal to ignore_index count nothing;
// label_smoothing mixes the target with the uniform distribution. "mean" over class indices
// divides by the summed weight of the counted targets (PyTorch's rule), over probabilities by the
// number of samples. A fused log_softmax + nll kernel: the log-probabilities are never stored.
Tensor cross_entropy(const Tensor& input,
                     const Tensor& target,
                     const Tensor& weight = {},
                     std::string_view reduction = "mean",
                     int64_t ignore_index = -100,
                     double label_smoothing = 0.0);
// Negative log-likelihood of log-probabilities `input` at class indices `target` (the shapes of
// cross_entropy): -weight[t] * input[n, t, ...], 0 where t == ignore_index.
Tensor nll_loss(const Tensor& input,
                const Tensor& target,
                const Tensor& weight = {},
                std::string_view reduction = "mean",
                int64_t ignore_index = -100);
// -weight * (t log(x) + (1 - t) log(1 - x)) with each log clamped at -100; input and target of
// the same shape, input in [0, 1]; weight broadcasts to the input.
Tensor binary_cross_entropy(const Tensor& input,
                            const Tensor& target,
                            const Tensor& weight = {},
                            std::string_view reduction = "mean");
// The same on logits x, computed stably: weight * ((1 - t) x + (1 + (pos_weight - 1) t) *
// softplus(-x)); pos_weight broadcasts along the last dim (one per class).
Tensor binary_cross_entropy_with_logits(const Tensor& input,
                                        const Tensor& target,
                                        const Tensor& weight = {},
                                        std::string_view reduction = "mean",
                                        const Tensor& pos_weight = {});
// target * (log(target) - input) (0 where target == 0), or with log_target exp(target) *
// (target - input); "batchmean" divides the sum by input.size(0).
Tensor kl_div(const Tensor& input,
              const Tensor& target,
              std::string_view reduction = "mean",
              bool log_target = false);
// Per sample: sum over j != y of max(0, margin - x[y] + x[j])^p * weight[y] / C; input (C) or
// (N, C), target int64 () or (N); p is 1 or 2.
Tensor multi_margin_loss(const Tensor& input,
                         const Tensor& target,
                         int64_t p = 1,
                         double margin = 1.0,
                         const Tensor& weight = {},
                         std::string_view reduction = "mean");
// log(1 + exp(-target * input)).
Tensor soft_margin_loss(const Tensor& input,
                        const Tensor& target,
                        std::string_view reduction = "mean");

// ---- regression
// -----------------------------------------------------------------------------------

// (input - target)^2, |input - target|, input and target broadcast together (F.mse_loss warns
// when their shapes differ). With `weight` (input's shape) the losses are weighted and "mean"
// divides by the sum of the weights.
Tensor mse_loss(const Tensor& input,
                const Tensor& target,
                std::string_view reduction = "mean",
                const Tensor& weight = {});
Tensor l1_loss(const Tensor& input,
               const Tensor& target,
               std::string_view reduction = "mean",
               const Tensor& weight = {});
// 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (beta = 0: l1_loss; beta >= 0).
Tensor smooth_l1_loss(const Tensor& input,
                      const Tensor& target,
                      std::string_view reduction = "mean",
                      double beta = 1.0);
// 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere (delta > 0); with `weight`,
// weighted, and "mean" is the mean of the weighted losses.
Tensor huber_loss(const Tensor& input,
                  const Tensor& target,
                  std::string_view reduction = "mean",
                  double delta = 1.0,
                  const Tensor& weight = {});
// exp(input) - target * input (log_input), or input - target * log(input + eps); `full` adds
// Stirling's approximation of log(target!) where target > 1.
Tensor poisson_nll_loss(const Tensor& input,
                        const Tensor& target,
                        bool log_input = true,
                        bool full = false,
                        double eps = 1e-8,
                        std::string_view reduction = "mean");
// 0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) when full).
// var has the input's shape, or one dim less, or size 1 in one dim; the clamp passes the gradient
// through unchanged, as PyTorch's in-place clamp under no_grad does.
Tensor gaussian_nll_loss(const Tensor& input,
                         const Tensor& target,
                         const Tensor& var,
                         bool full = false,
                         double eps = 1e-6,
                         std::string_view reduction = "mean");

// ---- embedding / ranking
// --------------------------------------------------------------------------

// 1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1, over the
// last dim of (N, D) inputs with target (N), or (D) inputs with a 0-d target.
Tensor cosine_embedding_loss(const Tensor& input1,
                             const Tensor& input2,
                             const Tensor& target,
                             double margin = 0.0,
                             std::string_view reduction = "mean");
// max(0, -target * (input1 - input2) + margin), broadcast.
Tensor margin_ranking_loss(const Tensor& input1,
                           const Tensor& input2,
                           const Tensor& target,
                           double margin = 0.0,
                           std::string_view reduction = "mean");
// input where target != -1 plus max(0, margin - input) where target != 1.
Tensor hinge_embedding_loss(const Tensor& input,
                            const Tensor& target,
                            double margin = 1.0,
                            std::string_view reduction = "mean");
// max(0, margin + d(a, p) - d(a, n)) with d(x, y) = ||x - y + eps||_p over the last dim; with
// swap, d(a, n) is replaced by min(d(a, n), d(p, n)).
Tensor triplet_margin_loss(const Tensor& anchor,
                           const Tensor& positive,
                           const Tensor& negative,
                           double margin = 1.0,
                           double p = 2.0,
                           double eps = 1e-6,
                           bool swap = false,
                           std::string_view reduction = "mean");

}  // namespace ember
