// Neural-network ops: resampling. interpolate (PyTorch's nn.functional.interpolate, argument
// handling included, and the upsample ops under it), pixel_shuffle/pixel_unshuffle (views and
// one copy), im2col/col2im (nn.functional.unfold/fold). Declarations in nn_pool.h.
//
// interpolate computes, per spatial dim, the input indices and weights each output coordinate
// reads (InterpPlan), with PyTorch's formulas and in its precision (the op-math type: float for
// float32, so sizes and scales round exactly as there); the kernel applies them separably. Its
// backward spreads the gradient with the same plan, and that backward's own backward is the
// forward again, so second derivatives work.
#include <cmath>
#include <memory>
#include <string>

#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_resample.h"
#include "ember/ops/creation.h"
#include "ember/ops/nn_pool.h"
#include "ember/ops/nn_pool_util.h"
#include "ember/ops/nn_resample.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kResampleOps[] = {
    {"nn.functional.interpolate", OpKind::Other, kFloatingTypes, true},
    {"pixel_shuffle", OpKind::Other, kAllTypesAndComplex, true},
    {"pixel_unshuffle", OpKind::Other, kAllTypesAndComplex, true},
    {"nn.functional.unfold", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.fold", OpKind::Other, kFloatingTypes, true},
};

using pool::dense;
using pool::empty_in;
using pool::expand_arg;
using pool::str_of;

const ResampleKernels& resample_kernels(const Tensor& x, const char* op) {
  return kernels_of(kernels(x.device()).nn_resample, x.device(), op);
}

TensorOptions like(const Tensor& t) { return TensorOptions(t.dtype()).device(t.device()); }

// ---- the interpolation plan (PyTorch's UpSample.h) ---------------------------------------------

enum class Mode { Nearest, NearestExact, Linear, Cubic };

// compute_scales_value: 1 / the given scale, or in / out.
template <class A>
A scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? A(1.0 / *scale) : A(in) / A(out);
}

// area_pixel_compute_scale.
template <class A>
A pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (out <= 1) return A(0);
  return align_corners ? A(in - 1) / A(out - 1) : scales_value<A>(scale, in, out);
}

// area_pixel_compute_source_index: the source coordinate of output o (the expression's mixed
// float/double arithmetic is PyTorch's).
template <class A>
A source_index(A scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * A(o);
  const A src = A(scale * (double(o) + 0.5) - 0.5);
  return (!cubic && src < 0) ? A(0) : src;
}

// guard_index_and_lambda: the integer part (clamped to the last index) and the fraction.
template <class A>
void guard_index(A real, int64_t in, int64_t* index, A* lambda) {
  *index = std::min(static_cast<int64_t>(floorf(float(real))), in - 1);
  *lambda = std::min(std::max(real - A(*index), A(0)), A(1));
}

template <class A>
A cubic1(A x, A a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <class A>
A cubic2(A x, A a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

// The taps of one dim into plan->index[d] / weight[d].
template <class A>
void dim_taps(InterpPlan* plan, int d, Mode mode, bool align_corners, std::optional<double> scale) {
  const int64_t in = plan->shape.in[d], out = plan->shape.out[d];
  const int64_t taps = mode == Mode::Linear ? 2 : mode == Mode::Cubic ? 4 : 1;
  plan->taps[d] = taps;
  auto& index = plan->index[d];
  auto& weight = plan->weight[d];
  index.resize(size_t(out * taps));
  weight.resize(size_t(out * taps));
  for (int64_t o = 0; o < out; ++o) {
    int64_t* idx = index.data() + o * taps;
    double* w = weight.data() + o * taps;
    switch (mode) {
      case Mode::Nearest: {  // nearest_idx, with its copy and 2x shortcuts
        if (out == in) {
          idx[0] = o;
        } else if (out == 2 * in) {
          idx[0] = o >> 1;
        } else {
          const float s = scales_value<float>(scale, in, out);
          idx[0] = std::min(static_cast<int64_t>(floorf(float(o) * s)), in - 1);
        }
        w[0] = 1;
        break;
      }
      case Mode::NearestExact: {  // nearest_exact_idx: the centre of the output pixel
        const float s = scales_value<float>(scale, in, out);
        idx[0] = std::min(static_cast<int64_t>(floorf(float((double(o) + 0.5) * s))), in - 1);
        w[0] = 1;
        break;
      }
      case Mode::Linear: {  // compute_source_index_and_lambda
        if (out == in) {
          idx[0] = idx[1] = o;
          w[0] = 1;
          w[1] = 0;
          break;
        }
        const A s = pixel_scale<A>(in, out, align_corners, scale);
        int64_t i0;
        A l1;
        guard_index(source_index(s, o, align_corners, false), in, &i0, &l1);
        idx[0] = i0;
        idx[1] = i0 + (i0 < in - 1 ? 1 : 0);
        w[0] = double(A(1) - l1);
        w[1] = double(l1);
        break;
      }
      case Mode::Cubic: {  // get_cubic_upsample_coefficients with A = -0.75, borders clamped
        const A s = pixel_scale<A>(in, out, align_corners, scale);
        int64_t i0;
        A t;
        guard_index(source_index(s, o, align_corners, true), in, &i0, &t);
        const A a = A(-0.75);
        w[0] = double(cubic2<A>(A(t + 1.0), a));
        w[1] = double(cubic1<A>(t, a));
        w[2] = double(cubic1<A>(A(1.0 - t), a));
        w[3] = double(cubic2<A>(A(A(1.0 - t) + 1.0), a));
        for (int64_t j = 0; j < 4; ++j) idx[j] = std::clamp<int64_t>(i0 - 1 + j, 0, in - 1);
        break;
      }
    }
  }
}

const char* upsample_node(Mode mode, int64_t nd) {
  static const char* const names[4][4] = {
      {"", "UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0",
       "UpsampleNearest3DBackward0"},
      {"", "UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0",
       "UpsampleNearestExact3DBackward0"},
      {"", "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0",
       "UpsampleTrilinear3DBackward0"},
      {"", "", "UpsampleBicubic2DBackward0", ""},
  };
  return names[int(mode)][nd];
}

using Plan = std::shared_ptr<const InterpPlan>;

DimVector plan_sizes(const InterpPlan& p, const int64_t (&spatial)[3], int64_t nd) {
  DimVector out{p.shape.batch, p.shape.channels};
  for (int64_t d = 3 - nd; d < 3; ++d) out.push_back(spatial[d]);
  return out;
}

Tensor interp_run(const Tensor& x, const Plan& plan, int64_t nd, const char* node);

// The backward of interpolate: each output gradient added to its taps; its own backward is
// interpolate again.
Tensor interp_grad(const Tensor& grad, const Plan& plan, int64_t nd) {
  const bool cl = plan->shape.channels_last;
  const Tensor g = dense(grad, cl);
  const Tensor gi = empty_in(plan_sizes(*plan, plan->shape.in, nd), like(g), cl);
  resample_kernels(g, "interpolate_backward").interpolate_backward(gi, g, *plan);
  if (any_requires_grad(g)) {
    record("UpsampleBackwardBackward0", {&g}, {&gi}, [plan, nd](TensorList& gg, Node&) {
      return TensorList{
          interp_run(dense(gg[0], plan->shape.channels_last), plan, nd, "UpsampleBackward0")};
    });
  }
  return gi;
}

Tensor interp_run(const Tensor& x, const Plan& plan, int64_t nd, const char* node) {
  Tensor out = empty_in(plan_sizes(*plan, plan->shape.out, nd), like(x), plan->shape.channels_last);
  resample_kernels(x, "interpolate").interpolate(out, x, *plan);
  if (any_requires_grad(x)) {
    record(node, {&x}, {&out},
           [plan, nd](TensorList& g, Node&) { return TensorList{interp_grad(g[0], plan, nd)}; });
  }
  return out;
}

// upsample_{nearest,linear,bicubic,...}: output sizes given (or from the scales), then the plan.
Tensor upsample(const Tensor& input,
                Mode mode,
                const std::vector<int64_t>& out_size,
                const std::vector<std::optional<double>>& scales,
                bool align_corners) {
  const char* op = "interpolate";
  const int64_t nd = input.dim() - 2;
  bool bad = false;
  for (int64_t i = 0; i < nd; ++i) bad |= input.size(2 + i) <= 0 || out_size[size_t(i)] <= 0;
  if (bad) {
    std::string msg;
    for (int64_t i = 0; i < nd; ++i) msg += (i ? ", " : "") + std::to_string(input.size(2 + i));
    msg += ") and output (";
    for (int64_t i = 0; i < nd; ++i) msg += (i ? ", " : "") + std::to_string(out_size[size_t(i)]);
    EMBER_FAIL("[", op, "] input and output sizes should be greater than 0, but got input (", msg,
               ")");
  }
  EMBER_CHECK(input.size(1) > 0, "[", op, "] non-empty ", nd + 2,
              "D data tensor expected but got a tensor with sizes ", str_of(input.sizes()));
  const bool cl = pool::is_channels_last(input);
  auto plan = std::make_shared<InterpPlan>();
  plan->shape.batch = input.size(0);
  plan->shape.channels = input.size(1);
  plan->shape.channels_last = cl;
  for (int64_t i = 0; i < nd; ++i) {
    plan->shape.in[3 - nd + i] = input.size(2 + i);
    plan->shape.out[3 - nd + i] = out_size[size_t(i)];
  }
  const bool wide = input.dtype() == kFloat64;
  // The leading dims of size 1 that a 1-d or 2-d input does not have: one tap, index 0.
  for (int d = 0; d < 3 - nd; ++d) dim_taps<float>(plan.get(), d, Mode::Nearest, false, {});
  for (int64_t i = 0; i < nd; ++i) {
    const int d = int(3 - nd + i);
    if (wide) {
      dim_taps<double>(plan.get(), d, mode, align_corners, scales[size_t(i)]);
    } else {
      dim_taps<float>(plan.get(), d, mode, align_corners, scales[size_t(i)]);
    }
  }
  return interp_run(dense(input, cl), plan, nd, upsample_node(mode, nd));
}

// ---- im2col / col2im
// ------------------------------------------------------------------------------

struct BlockArgs {
  DimVector kernel, dilation, pad, stride;
};

BlockArgs block_args(const char* op,
                     IntArrayRef kernel_size,
                     IntArrayRef dilation,
                     IntArrayRef padding,
                     IntArrayRef stride) {
  BlockArgs a{expand_arg(kernel_size, 2, op, "kernel_size"),
              expand_arg(dilation, 2, op, "dilation"), expand_arg(padding, 2, op, "padding"),
              expand_arg(stride, 2, op, "stride")};
  EMBER_CHECK(a.kernel[0] > 0 && a.kernel[1] > 0, "[", op,
              "] kernel size should be greater than zero, but got kernel_size ", str_of(a.kernel));
  EMBER_CHECK(a.dilation[0] > 0 && a.dilation[1] > 0, "[", op,
              "] dilation should be greater than zero, but got dilation ", str_of(a.dilation));
  EMBER_CHECK(a.pad[0] >= 0 && a.pad[1] >= 0, "[", op,
              "] padding should be non-negative, but got padding ", str_of(a.pad));
  EMBER_CHECK(a.stride[0] > 0 && a.stride[1] > 0, "[", op,
              "] stride should be greater than zero, but got stride ", str_of(a.stride));
  return a;
}

// The number of block positions along one dim (div_rtn, as PyTorch).
int64_t blocks_along(int64_t in, int64_t k, int64_t dil, int64_t pad, int64_t stride) {
  const int64_t num = in + 2 * pad - (dil * (k - 1) + 1);
  return (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
}

PoolShape block_shape(int64_t n, int64_t c, int64_t h, int64_t w, const BlockArgs& a) {
  PoolShape s;
  s.batch = n;
  s.channels = c;
  s.in[1] = h;
  s.in[2] = w;
  for (int i = 0; i < 2; ++i) {
    s.kernel[1 + i] = a.kernel[size_t(i)];
    s.dilation[1 + i] = a.dilation[size_t(i)];
    s.pad[1 + i] = a.pad[size_t(i)];
    s.stride[1 + i] = a.stride[size_t(i)];
    s.out[1 + i] = blocks_along(s.in[1 + i], s.kernel[1 + i], s.dilation[1 + i], s.pad[1 + i],
                                s.stride[1 + i]);
  }
  return s;
}

Tensor col2im_run(const Tensor& cols, const PoolShape& s);

// x: [N, C, H, W] contiguous -> [N, C * kh * kw, L].
Tensor im2col_run(const Tensor& x, const PoolShape& s) {
  const int64_t k = s.kernel[1] * s.kernel[2];
  Tensor out = empty({s.batch, s.channels * k, s.out[1] * s.out[2]}, like(x));
  resample_kernels(x, "unfold").im2col(out, x, s);
  if (any_requires_grad(x)) {
    record("Im2ColBackward0", {&x}, {&out},
           [s](TensorList& g, Node&) { return TensorList{col2im_run(g[0].contiguous(), s)}; });
  }
  return out;
}

// cols: [N, C * kh * kw, L] contiguous -> [N, C, H, W].
Tensor col2im_run(const Tensor& cols, const PoolShape& s) {
  Tensor out = empty({s.batch, s.channels, s.in[1], s.in[2]}, like(cols));
  resample_kernels(cols, "fold").col2im(out, cols, s);
  if (any_requires_grad(cols)) {
    record("Col2ImBackward0", {&cols}, {&out},
           [s](TensorList& g, Node&) { return TensorList{im2col_run(g[0].contiguous(), s)}; });
  }
  return out;
}

}  // namespace

std::span<const OpInfo> nn_resample_op_infos() { return kResampleOps; }

// ---- interpolate ------------------------------------------------------------------------------

Tensor interpolate(const Tensor& input,
                   std::optional<std::vector<int64_t>> size,
                   std::optional<std::vector<double>> scale_factor,
                   std::string_view mode,
                   std::optional<bool> align_corners,
                   std::optional<bool> recompute_scale_factor,
                   bool antialias) {
  const char* op = "interpolate";
  // PyTorch's Python-side argument handling (torch/nn/functional.py), in its order.
  const bool plain = mode == "nearest" || mode == "area" || mode == "nearest-exact";
  if (plain) {
    EMBER_CHECK_VALUE(!align_corners, "[", op,
                      "] align_corners option can only be set with the interpolating modes: "
                      "linear | bilinear | bicubic | trilinear");
  }
  const bool align = align_corners.value_or(false);
  const int64_t nd = input.dim() - 2;
  EMBER_CHECK_VALUE(!(size && scale_factor), "[", op,
                    "] only one of size or scale_factor should be defined");
  EMBER_CHECK_VALUE(size || scale_factor, "[", op,
                    "] either size or scale_factor should be defined");
  std::vector<int64_t> out_size;
  std::vector<std::optional<double>> scales(size_t(std::max<int64_t>(nd, 0)));
  if (size) {
    EMBER_CHECK_VALUE(int64_t(size->size()) == nd, "[", op,
                      "] input and output must have the same number of spatial dimensions, but "
                      "got input with spatial dimensions of ",
                      str_of(input.sizes().slice(2, size_t(std::max<int64_t>(nd, 0)))),
                      " and output size of ", str_of(*size),
                      ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                      "size in (o1, o2, ...,oK) format.");
    out_size = *size;
  } else {
    EMBER_CHECK_VALUE(int64_t(scale_factor->size()) == nd, "[", op,
                      "] input and scale_factor must have the same number of spatial dimensions, "
                      "but got input with spatial dimensions of ",
                      str_of(input.sizes().slice(2, size_t(std::max<int64_t>(nd, 0)))),
                      " and scale_factor of shape of ", scale_factor->size(),
                      " values. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                      "scale_factor in (s1, s2, ...,sK) format.");
  }
  EMBER_CHECK_VALUE(!(recompute_scale_factor.value_or(false) && size), "[", op,
                    "] recompute_scale_factor is not meaningful with an explicit size.");
  const bool recompute = recompute_scale_factor.value_or(false) || (mode == "area" && !size);
  if (scale_factor) {
    for (int64_t i = 0; i < nd; ++i) {
      const double sf = (*scale_factor)[size_t(i)];
      // Python's floor(size * scale) when recomputing, C++'s truncation otherwise (the same for
      // the positive sizes that pass the check below).
      out_size.push_back(recompute ? int64_t(std::floor(double(input.size(2 + i)) * sf))
                                   : int64_t(double(input.size(2 + i)) * sf));
      if (!recompute) scales[size_t(i)] = sf;
    }
  }
  EMBER_CHECK_VALUE(!antialias || ((mode == "bilinear" || mode == "bicubic") && input.dim() == 4),
                    "[", op,
                    "] anti-alias option is restricted to bilinear and bicubic modes and requires "
                    "a 4-D tensor as input");
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, !antialias, "[", op,
                   "] antialias=True is not supported by ember");
  const bool known =
      plain || mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, known && nd >= 1 && nd <= 3, "[", op,
                   "] input Error: Only 3D, 4D and 5D input Tensors supported (got ", input.dim(),
                   "D) for the modes: nearest | linear | bilinear | bicubic | "
                   "trilinear | area | nearest-exact (got ",
                   mode, ")");
  const int64_t need = mode == "linear"      ? 1
                       : mode == "bilinear"  ? 2
                       : mode == "bicubic"   ? 2
                       : mode == "trilinear" ? 3
                                             : nd;
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, need == nd, "[", op, "] got ", input.dim(),
                   "D input, but ", mode, " mode needs ", need + 2, "D input");
  pool::check_dtype(input, kFloatingTypes, op);
  if (mode == "area") {
    if (nd == 1) return adaptive_avg_pool1d(input, out_size);
    if (nd == 2) return adaptive_avg_pool2d(input, out_size);
    return adaptive_avg_pool3d(input, out_size);
  }
  const Mode m = mode == "nearest"         ? Mode::Nearest
                 : mode == "nearest-exact" ? Mode::NearestExact
                 : mode == "bicubic"       ? Mode::Cubic
                                           : Mode::Linear;
  return upsample(input, m, out_size, scales, align);
}

// ---- pixel_shuffle ----------------------------------------------------------------------------

Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor) {
  const char* op = "pixel_shuffle";
  const int64_t nd = input.dim(), r = upscale_factor;
  EMBER_CHECK(nd >= 3, "[", op,
              "] pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              nd, " dimension(s)");
  EMBER_CHECK(r > 0, "[", op, "] pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "[", op,
              "] pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
              "square of upscale_factor, but input.size(-3)=",
              c, " is not divisible by ", r * r);
  DimVector batch(input.sizes().data(), input.sizes().size() - 3);
  const int64_t b = int64_t(batch.size());
  // (*, C, r, r, H, W) -> (*, C, H, r, W, r) -> (*, C, H * r, W * r)
  DimVector split = batch, perm, out = batch;
  for (int64_t v : {c / (r * r), r, r, h, w}) split.push_back(v);
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t v : {0, 3, 1, 4, 2}) perm.push_back(b + v);
  for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  const Tensor y = reshape(permute(reshape(input, split), perm), out);
  return pool::is_channels_last(input) ? dense(y, true) : y;
}

Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor) {
  const char* op = "pixel_unshuffle";
  const int64_t nd = input.dim(), r = downscale_factor;
  EMBER_CHECK(nd >= 3, "[", op,
              "] pixel_unshuffle expects input to have at least 3 dimensions, but got input "
              "with ",
              nd, " dimension(s)");
  EMBER_CHECK(r > 0, "[", op, "] pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "[", op,
              "] pixel_unshuffle expects height to be divisible by downscale_factor, but "
              "input.size(-2)=",
              h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "[", op,
              "] pixel_unshuffle expects width to be divisible by downscale_factor, but "
              "input.size(-1)=",
              w, " is not divisible by ", r);
  DimVector batch(input.sizes().data(), input.sizes().size() - 3);
  const int64_t b = int64_t(batch.size());
  // (*, C, H / r, r, W / r, r) -> (*, C, r, r, H / r, W / r) -> (*, C * r * r, H / r, W / r)
  DimVector split = batch, perm, out = batch;
  for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t v : {0, 2, 4, 1, 3}) perm.push_back(b + v);
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  const Tensor y = reshape(permute(reshape(input, split), perm), out);
  return pool::is_channels_last(input) ? dense(y, true) : y;
}

// ---- unfold / fold ------------------------------------------------------------------------------

Tensor im2col(const Tensor& input,
              IntArrayRef kernel_size,
              IntArrayRef dilation,
              IntArrayRef padding,
              IntArrayRef stride) {
  const char* op = "unfold";
  const BlockArgs a = block_args(op, kernel_size, dilation, padding, stride);
  const int64_t nd = input.dim();
  EMBER_CHECK((nd == 3 || nd == 4) && input.size(nd - 1) != 0 && input.size(nd - 2) != 0 &&
                  input.size(nd - 3) != 0,
              "[", op,
              "] expected 3D or 4D (batch mode) tensor input with possible 0 batch size and "
              "non-zero dimensions, but got: ",
              str_of(input.sizes()));
  pool::check_dtype(input, kFloatingTypes, op);
  const Tensor x = nd == 4 ? input : unsqueeze(input, 0);
  const PoolShape s = block_shape(x.size(0), x.size(1), x.size(2), x.size(3), a);
  EMBER_CHECK(s.out[1] >= 1 && s.out[2] >= 1, "[", op, "] given input with spatial size (", s.in[1],
              ", ", s.in[2], "), kernel_size=", str_of(a.kernel), ", dilation=", str_of(a.dilation),
              ", padding=", str_of(a.pad), ", calculated shape of the array of sliding blocks as (",
              s.out[1], ", ", s.out[2], "), but its components must be at least one.");
  const Tensor out = im2col_run(x.contiguous(), s);
  return nd == 4 ? out : squeeze(out, 0);
}

Tensor col2im(const Tensor& input,
              IntArrayRef output_size,
              IntArrayRef kernel_size,
              IntArrayRef dilation,
              IntArrayRef padding,
              IntArrayRef stride) {
  const char* op = "fold";
  const DimVector size = expand_arg(output_size, 2, op, "output_size");
  const BlockArgs a = block_args(op, kernel_size, dilation, padding, stride);
  EMBER_CHECK(size[0] > 0 && size[1] > 0, "[", op,
              "] expected output_size to be greater than zero, but got ", str_of(size));
  const int64_t nd = input.dim();
  EMBER_CHECK((nd == 2 || nd == 3) && input.size(nd - 1) != 0 && input.size(nd - 2) != 0, "[", op,
              "] expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
              "non-zero dimensions for input, but got: ",
              str_of(input.sizes()));
  pool::check_dtype(input, kFloatingTypes, op);
  const Tensor x = nd == 3 ? input : unsqueeze(input, 0);
  const int64_t k = a.kernel[0] * a.kernel[1];
  EMBER_CHECK(x.size(1) % k == 0, "[", op,
              "] expected size of input's dimension 1 to be divisible by the product of "
              "kernel_size, but got input.size(1)=",
              x.size(1), " and kernel_size=", str_of(a.kernel), ".");
  const PoolShape s = block_shape(x.size(0), x.size(1) / k, size[0], size[1], a);
  EMBER_CHECK(s.out[1] >= 1 && s.out[2] >= 1, "[", op, "] given output_size=", str_of(size),
              ", kernel_size=", str_of(a.kernel), ", dilation=", str_of(a.dilation),
              ", padding=", str_of(a.pad), ", stride=", str_of(a.stride),
              ", calculated shape of the array of sliding blocks as (", s.out[1], ", ", s.out[2],
              "), which is too small (non-positive)");
  EMBER_CHECK(x.size(2) == s.out[1] * s.out[2], "[", op, "] given output_size=", str_of(size),
              ", kernel_size=", str_of(a.kernel), ", dilation=", str_of(a.dilation),
              ", padding=", str_of(a.pad), ", stride=", str_of(a.stride),
              ", expected size of input's dimension 2 to match the calculated number of sliding "
              "blocks ",
              s.out[1], " * ", s.out[2], " = ", s.out[1] * s.out[2],
              ", but got input.size(2)=", x.size(2), ".");
  const Tensor out = col2im_run(x.contiguous(), s);
  return nd == 3 ? out : squeeze(out, 0);
}

}  // namespace ember
