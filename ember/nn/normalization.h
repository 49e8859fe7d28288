// Normalisation layers: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, over
// ember::batch_norm / instance_norm / layer_norm / group_norm. Buffers and their names are
// PyTorch's (running_mean, running_var, num_batches_tracked).
#pragma once

#include <optional>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

struct BatchNormOptions {
  double eps = 1e-5;
  // nullopt: a cumulative moving average (factor 1 / num_batches_tracked), as PyTorch's None.
  std::optional<double> momentum = 0.1;
  bool affine = true;
  bool track_running_stats = true;
  bool bias = true;  // with affine: whether the shift exists (PyTorch 2.x's keyword)
};

struct InstanceNormOptions {
  double eps = 1e-5;
  std::optional<double> momentum = 0.1;
  bool affine = false;
  bool track_running_stats = false;
  bool bias = true;
};

namespace detail {

// Shared by BatchNorm and InstanceNorm: weight (ones) and bias (zeros) when affine; the running
// stats (zeros, ones) and num_batches_tracked (int64 0) when tracking.
class NormBase : public Module {
 public:
  int64_t num_features;
  double eps;
  std::optional<double> momentum;
  bool affine, track_running_stats;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

  void reset_running_stats();
  void reset_parameters();
  std::string extra_repr() const override;

 protected:
  NormBase(const char* name,
           int64_t num_features,
           double eps,
           std::optional<double> momentum,
           bool affine,
           bool track_running_stats,
           bool use_bias);
  // Counts the batch when training with tracked stats, and returns the running-average factor.
  double update_factor();
};

class BatchNormBase : public NormBase {
 public:
  Tensor forward(const Tensor& input);

 protected:
  BatchNormBase(const char* name,
                int64_t num_features,
                const BatchNormOptions& o,
                std::vector<int64_t> dims);
  std::vector<int64_t> dims_;  // accepted input dims
};

}  // namespace detail

class BatchNorm1d : public detail::BatchNormBase {
 public:
  explicit BatchNorm1d(int64_t num_features, BatchNormOptions options = {})
      : BatchNormBase("BatchNorm1d", num_features, options, {2, 3}) {}
};

class BatchNorm2d : public detail::BatchNormBase {
 public:
  explicit BatchNorm2d(int64_t num_features, BatchNormOptions options = {})
      : BatchNormBase("BatchNorm2d", num_features, options, {4}) {}
};

class BatchNorm3d : public detail::BatchNormBase {
 public:
  explicit BatchNorm3d(int64_t num_features, BatchNormOptions options = {})
      : BatchNormBase("BatchNorm3d", num_features, options, {5}) {}
};

namespace detail {

// InstanceNorm1d/2d/3d: inputs with `spatial` spatial dims, batched or not.
class InstanceNormBase : public NormBase {
 public:
  Tensor forward(const Tensor& input);

 protected:
  InstanceNormBase(const char* name,
                   int64_t num_features,
                   const InstanceNormOptions& o,
                   int64_t spatial);
  int64_t spatial_;
};

}  // namespace detail

class InstanceNorm1d : public detail::InstanceNormBase {
 public:
  explicit InstanceNorm1d(int64_t num_features, InstanceNormOptions options = {})
      : InstanceNormBase("InstanceNorm1d", num_features, options, 1) {}
};

class InstanceNorm2d : public detail::InstanceNormBase {
 public:
  explicit InstanceNorm2d(int64_t num_features, InstanceNormOptions options = {})
      : InstanceNormBase("InstanceNorm2d", num_features, options, 2) {}
};

class InstanceNorm3d : public detail::InstanceNormBase {
 public:
  explicit InstanceNorm3d(int64_t num_features, InstanceNormOptions options = {})
      : InstanceNormBase("InstanceNorm3d", num_features, options, 3) {}
};

struct LayerNormOptions {
  double eps = 1e-5;
  bool elementwise_affine = true;
  bool bias = true;
};

class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, LayerNormOptions options = {});
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

  std::vector<int64_t> normalized_shape;
  double eps;
  bool elementwise_affine;
  Tensor weight, bias;
};

struct GroupNormOptions {
  double eps = 1e-5;
  bool affine = true;
  bool bias = true;
};

class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, GroupNormOptions options = {});
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

  int64_t num_groups, num_channels;
  double eps;
  bool affine;
  Tensor weight, bias;
};

}  // namespace ember::nn
