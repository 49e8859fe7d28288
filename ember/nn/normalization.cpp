#include "ember/nn/normalization.h"

#include <algorithm>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/init.h"
#include "ember/nn/repr_util.h"
#include "ember/ops/creation.h"
#include "ember/ops/nn_norm.h"

namespace ember::nn {
namespace detail {

static std::optional<Tensor> opt(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

NormBase::NormBase(const char* name,
                   int64_t num_features,
                   double eps,
                   std::optional<double> momentum,
                   bool affine,
                   bool track_running_stats,
                   bool use_bias)
    : Module(name),
      num_features(num_features),
      eps(eps),
      momentum(momentum),
      affine(affine),
      track_running_stats(track_running_stats) {
  EMBER_CHECK_VALUE(num_features > 0, "[", name, "] num_features must be positive, got ",
                    num_features);
  weight = register_parameter("weight", affine ? empty({num_features}) : Tensor());
  bias = register_parameter("bias", affine && use_bias ? empty({num_features}) : Tensor());
  if (track_running_stats) {
    running_mean = register_buffer("running_mean", zeros({num_features}));
    running_var = register_buffer("running_var", ones({num_features}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  } else {
    register_buffer("running_mean", Tensor());
    register_buffer("running_var", Tensor());
    register_buffer("num_batches_tracked", Tensor());
  }
  reset_parameters();
}

void NormBase::reset_running_stats() {
  if (!track_running_stats) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  init::zeros_(num_batches_tracked);
}

void NormBase::reset_parameters() {
  reset_running_stats();
  if (affine) init::ones_(weight);
  if (bias.defined()) init::zeros_(bias);
}

double NormBase::update_factor() {
  double factor = momentum.value_or(0.0);
  if (training_ && track_running_stats) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    if (!momentum) factor = 1.0 / num_batches_tracked.item<double>();
  }
  return factor;
}

std::string NormBase::extra_repr() const {
  return std::to_string(num_features) + ", eps=" + py_float(eps) +
         ", momentum=" + (momentum ? py_float(*momentum) : "None") + ", affine=" + py_bool(affine) +
         ", bias=" + py_bool(bias.defined()) +
         ", track_running_stats=" + py_bool(track_running_stats);
}

BatchNormBase::BatchNormBase(const char* name,
                             int64_t num_features,
                             const BatchNormOptions& o,
                             std::vector<int64_t> dims)
    : NormBase(name, num_features, o.eps, o.momentum, o.affine, o.track_running_stats, o.bias),
      dims_(std::move(dims)) {}

Tensor BatchNormBase::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(std::find(dims_.begin(), dims_.end(), input.dim()) != dims_.end(), "[",
                    type_name(), "] expected ",
                    dims_.size() == 2 ? "2D or 3D" : std::to_string(dims_[0]) + "D", " input (got ",
                    input.dim(), "D input)");
  const double factor = update_factor();
  // Batch statistics in training, or in evaluation when no running stats exist (PyTorch's
  // bn_training); the running stats are updated only in training.
  const bool use_batch = training_ || !running_mean.defined();
  const bool pass_stats = !training_ || track_running_stats;
  return batch_norm(input, opt(weight), opt(bias), pass_stats ? opt(running_mean) : std::nullopt,
                    pass_stats ? opt(running_var) : std::nullopt, use_batch, factor, eps);
}

InstanceNormBase::InstanceNormBase(const char* name,
                                   int64_t num_features,
                                   const InstanceNormOptions& o,
                                   int64_t spatial)
    : NormBase(name, num_features, o.eps, o.momentum, o.affine, o.track_running_stats, o.bias),
      spatial_(spatial) {}

Tensor InstanceNormBase::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() == spatial_ + 1 || input.dim() == spatial_ + 2, "[", type_name(),
                    "] expected ", spatial_ + 1, "D or ", spatial_ + 2, "D input (got ",
                    input.dim(), "D input)");
  const double factor = update_factor();
  // Unbatched (C, *) input is normalised as a batch of one.
  const bool unbatched = input.dim() == spatial_ + 1;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  const bool use_input_stats = training_ || !track_running_stats;
  Tensor out = instance_norm(x, opt(weight), opt(bias), opt(running_mean), opt(running_var),
                             use_input_stats, factor, eps);
  return unbatched ? out.squeeze(0) : out;
}

}  // namespace detail

LayerNorm::LayerNorm(std::vector<int64_t> normalized_shape, LayerNormOptions o)
    : Module("LayerNorm"),
      normalized_shape(std::move(normalized_shape)),
      eps(o.eps),
      elementwise_affine(o.elementwise_affine) {
  weight =
      register_parameter("weight", elementwise_affine ? ones(this->normalized_shape) : Tensor());
  bias = register_parameter(
      "bias", elementwise_affine && o.bias ? zeros(this->normalized_shape) : Tensor());
}

Tensor LayerNorm::forward(const Tensor& input) const {
  return layer_norm(input, normalized_shape, detail::opt(weight), detail::opt(bias), eps);
}

std::string LayerNorm::extra_repr() const {
  return detail::py_tuple(normalized_shape) + ", eps=" + detail::py_float(eps) +
         ", elementwise_affine=" + detail::py_bool(elementwise_affine) +
         ", bias=" + detail::py_bool(bias.defined());
}

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, GroupNormOptions o)
    : Module("GroupNorm"),
      num_groups(num_groups),
      num_channels(num_channels),
      eps(o.eps),
      affine(o.affine) {
  EMBER_CHECK_VALUE(num_groups > 0 && num_channels % num_groups == 0,
                    "[GroupNorm] num_channels must be divisible by num_groups, got ", num_channels,
                    " and ", num_groups);
  weight = register_parameter("weight", affine ? ones({num_channels}) : Tensor());
  bias = register_parameter("bias", affine && o.bias ? zeros({num_channels}) : Tensor());
}

Tensor GroupNorm::forward(const Tensor& input) const {
  return group_norm(input, num_groups, detail::opt(weight), detail::opt(bias), eps);
}

std::string GroupNorm::extra_repr() const {
  return std::to_string(num_groups) + ", " + std::to_string(num_channels) +
         ", eps=" + detail::py_float(eps) + ", affine=" + detail::py_bool(affine) +
         ", bias=" + detail::py_bool(bias.defined());
}

}  // namespace ember::nn
