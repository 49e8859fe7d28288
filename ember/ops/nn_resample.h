// Resampling ops: interpolate (torch.nn.functional.interpolate and the upsample modes),
// pixel_shuffle / pixel_unshuffle, and unfold / fold (im2col / col2im). Names, arguments and
// semantics follow PyTorch (docs/design/nn_pool.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// torch.nn.functional.interpolate: input (N, C, L), (N, C, H, W) or (N, C, D, H, W) resized to
// `size` or by `scale_factor` (exactly one given; one value or one per spatial dim). mode:
// "nearest", "nearest-exact", "linear" (3-d), "bilinear" (4-d), "bicubic" (4-d, A = -0.75, border
// pixels repeated), "trilinear" (5-d), "area" (adaptive average pooling). align_corners (linear
// modes only, default false) maps the corner pixels' centres onto each other. A scale_factor is
// used as given for the coordinate mapping unless recompute_scale_factor, which derives it from the
// output size. antialias is not supported.
Tensor interpolate(const Tensor& input,
                   std::optional<std::vector<int64_t>> size,
                   std::optional<std::vector<double>> scale_factor = std::nullopt,
                   std::string_view mode = "nearest",
                   std::optional<bool> align_corners = std::nullopt,
                   std::optional<bool> recompute_scale_factor = std::nullopt,
                   bool antialias = false);

// (*, C * r * r, H, W) -> (*, C, H * r, W * r), and the inverse.
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);

// torch.nn.functional.unfold: the sliding blocks of (N, C, H, W) (or (C, H, W)) as columns,
// (N, C * kh * kw, L) with L the number of block positions.
Tensor im2col(const Tensor& input,
              IntArrayRef kernel_size,
              IntArrayRef dilation = 1,
              IntArrayRef padding = 0,
              IntArrayRef stride = 1);
// torch.nn.functional.fold: sums columns (N, C * kh * kw, L) (or unbatched) back into
// (N, C, output_size...), the adjoint of im2col.
Tensor col2im(const Tensor& input,
              IntArrayRef output_size,
              IntArrayRef kernel_size,
              IntArrayRef dilation = 1,
              IntArrayRef padding = 0,
              IntArrayRef stride = 1);

}  // namespace ember
