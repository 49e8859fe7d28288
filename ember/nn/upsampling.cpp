#include "ember/nn/upsampling.h"

#include "ember/nn/repr_util.h"
#include "ember/ops/nn_pool.h"
#include "ember/ops/nn_resample.h"

namespace ember::nn {

Upsample::Upsample(UpsampleOptions o) : Module("Upsample"), options(std::move(o)) {
  EMBER_CHECK_VALUE(options.size.has_value() != options.scale_factor.has_value(),
                    "[Upsample] give exactly one of size and scale_factor");
}

Tensor Upsample::forward(const Tensor& input) const {
  return interpolate(input, options.size, options.scale_factor, options.mode,
                     options.align_corners);
}

std::string Upsample::extra_repr() const {
  std::string s;
  if (options.size) {
    s = "size=" + detail::py_tuple(*options.size, true);
  } else {
    const auto& f = *options.scale_factor;
    s = "scale_factor=";
    if (f.size() == 1) {
      s += detail::py_float(f[0]);
    } else {
      s += "(";
      for (size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + detail::py_float(f[i]);
      s += ")";
    }
  }
  return s + ", mode='" + options.mode + "'";
}

Tensor PixelShuffle::forward(const Tensor& input) const {
  return pixel_shuffle(input, upscale_factor);
}
Tensor PixelUnshuffle::forward(const Tensor& input) const {
  return pixel_unshuffle(input, downscale_factor);
}

}  // namespace ember::nn
