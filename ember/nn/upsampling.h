// Resampling layers: Upsample (ember::interpolate), PixelShuffle and PixelUnshuffle.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

struct UpsampleOptions {
  std::optional<std::vector<int64_t>> size = std::nullopt;  // exactly one of size, scale_factor
  std::optional<std::vector<double>> scale_factor = std::nullopt;
  std::string mode = "nearest";
  std::optional<bool> align_corners = std::nullopt;
};

// ember::interpolate as a module.
class Upsample : public Module {
 public:
  explicit Upsample(UpsampleOptions options);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  UpsampleOptions options;
};

class PixelShuffle : public Module {
 public:
  explicit PixelShuffle(int64_t upscale_factor)
      : Module("PixelShuffle"), upscale_factor(upscale_factor) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override {
    return "upscale_factor=" + std::to_string(upscale_factor);
  }
  int64_t upscale_factor;
};

class PixelUnshuffle : public Module {
 public:
  explicit PixelUnshuffle(int64_t downscale_factor)
      : Module("PixelUnshuffle"), downscale_factor(downscale_factor) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override {
    return "downscale_factor=" + std::to_string(downscale_factor);
  }
  int64_t downscale_factor;
};

}  // namespace ember::nn
