// Neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d/3d) through oneDNN, linear
// and bilinear.
//
// Every convolution, transposed or not, is made of three differentiable primitives over one
// geometry (ConvGeometry: a convolution x [N, C, *in] * w [O, C / g, *k] -> y [N, O, *out]):
//   forward(x, w)          y  = conv(x, w)           (+ bias over O)
//   backward_data(dy, w)   dx = conv^T(dy, w)        (+ bias over C; conv_transpose's forward)
//   backward_weight(x, dy) dw = the weight gradient
// Each one's gradients are the other two (and itself), because all three are bilinear forms of
// the same sum  <dy, conv(x, w)>:
//   forward:         dx = backward_data(gy, w)     dw = backward_weight(x, gy)
//   backward_data:   ddy = forward(gx, w)          dw = backward_weight(gx, dy)
//   backward_weight: dx = backward_data(dy, gw)    ddy = forward(x, gw)
// so first and second derivatives come from the same three kernels (ConvKernels). Bias
// gradients are sums over the batch and spatial dims; the kernel computes the forward's bias
// gradient together with the weight gradient when no graph is being built.
//
// Layout (struct Layout): a convolution is channels-last when its input or its weight is (4-d
// and 5-d tensors; PyTorch's rule), and so are its output and the activation gradients of its
// backward; weight gradients take the weight's layout. Inputs in another layout are copied
// into the convolution's before the kernel runs.
#include "ember/ops/nn_conv.h"

#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_conv.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/linalg.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kConvOps[] = {
    {"conv1d", OpKind::Other, kFloatingTypes, true},
    {"conv2d", OpKind::Other, kFloatingTypes, true},
    {"conv3d", OpKind::Other, kFloatingTypes, true},
    {"conv_transpose1d", OpKind::Other, kFloatingTypes, true},
    {"conv_transpose2d", OpKind::Other, kFloatingTypes, true},
    {"conv_transpose3d", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.linear", OpKind::Linalg, kNumericTypes, true},
    {"bilinear", OpKind::Linalg, kNumericTypes, true},
};

// ---- layouts ---------------------------------------------------------------------------------

// The channels-last format of a tensor of `dim` dims (4: NHWC, 5: NDHWC), else contiguous.
MemoryFormat format_for(size_t dim, bool channels_last) {
  if (!channels_last || (dim != 4 && dim != 5)) return MemoryFormat::Contiguous;
  return dim == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
}

// PyTorch's test for a convolution's operands (suggest_memory_format, which also settles the
// tensors that are both, such as [N, C, 1, 1]).
bool is_channels_last(const Tensor& t) {
  return t.suggest_memory_format() != MemoryFormat::Contiguous;
}

Tensor empty_in_layout(IntArrayRef sizes, DType dtype, Device device, bool channels_last) {
  return empty(sizes, TensorOptions(dtype).device(device), format_for(sizes.size(), channels_last));
}

// `t` in dtype `dtype` and dense in the given layout: itself when it already is, else one copy.
// Not recorded (callers hold a NoGradGuard and record against the original tensors).
Tensor to_layout(const Tensor& t, DType dtype, bool channels_last) {
  const MemoryFormat format = format_for(size_t(t.dim()), channels_last);
  if (t.dtype() == dtype && t.is_contiguous(format)) return t;
  Tensor out = empty(t.sizes(), TensorOptions(dtype).device(t.device()), format);
  out.copy_(t);
  return out;
}

// Weights go to the kernel as they are when dense in either layout (the kernels read strides).
Tensor weight_for_kernel(const Tensor& w, DType dtype) {
  return to_layout(w, dtype, is_channels_last(w));
}

// The dtype the kernels compute in: float32 for the 16-bit floats.
DType compute_dtype(DType d) { return d == kFloat64 ? kFloat64 : kFloat32; }

// The result in `dtype` (the inputs'), keeping the kernel output's layout.
Tensor cast_back(const Tensor& out, DType dtype, bool channels_last) {
  if (out.dtype() == dtype) return out;
  Tensor r = empty_in_layout(out.sizes(), dtype, out.device(), channels_last);
  r.copy_(out);
  return r;
}

const ConvKernels& conv_kernels(const Tensor& t, const char* op) {
  return kernels_of(kernels(t.device()).nn_conv, t.device(), op);
}

// [1, channels, 1, ...]: a bias viewed to broadcast over dim 1 of a `dim`-d tensor.
DimVector bias_shape(int64_t dim, int64_t channels) {
  DimVector s(size_t(dim), 1);
  s[1] = channels;
  return s;
}

DimVector bias_sum_dims(int64_t dim) {
  DimVector dims{0};
  for (int64_t d = 2; d < dim; ++d) dims.push_back(d);
  return dims;
}

// The gradient of a bias added over dim 1, in the bias's dtype.
Tensor bias_grad(const Tensor& g) { return sum(g, bias_sum_dims(g.dim())); }

bool need(const Node& n, size_t i) { return n.next_edges()[i].valid(); }

// ---- the three primitives --------------------------------------------------------------------

// The layouts of one convolution, decided once by the op the user called (channels-last when
// the input or the weight is) and kept by every primitive its gradients call, as PyTorch does
// (a contiguous incoming gradient is brought to the forward's layout, not the reverse).
struct Layout {
  bool activations_cl;  // inputs and outputs [N, C, *] channels-last
  bool weight_cl;       // weight gradients channels-last (the weight's own layout)
};

Tensor conv_forward(const Tensor& x,
                    const Tensor& w,
                    const Tensor& b,
                    const ConvGeometry& g,
                    IntArrayRef out_spatial,
                    Layout layout);
Tensor conv_backward_data(const Tensor& dy,
                          const Tensor& w,
                          const Tensor& b,
                          const ConvGeometry& g,
                          IntArrayRef in_spatial,
                          Layout layout);
Tensor conv_backward_weight(const Tensor& x,
                            const Tensor& dy,
                            const ConvGeometry& g,
                            IntArrayRef k_spatial,
                            Layout layout,
                            Tensor* db);

DimVector spatial_of(const Tensor& t) {
  return DimVector(t.sizes().data() + 2, size_t(t.dim() - 2));
}

// [a, b, *rest].
DimVector shape_of(int64_t a, int64_t b, IntArrayRef rest) {
  DimVector s{a, b};
  for (int64_t v : rest) s.push_back(v);
  return s;
}

// y [N, O, *out_spatial] = conv(x, w) + b.
Tensor conv_forward(const Tensor& x,
                    const Tensor& w,
                    const Tensor& b,
                    const ConvGeometry& g,
                    IntArrayRef out_spatial,
                    Layout layout) {
  const bool cl = layout.activations_cl;
  const DimVector shape = shape_of(x.sizes()[0], w.sizes()[0], out_spatial);
  Tensor y;
  {
    NoGradGuard no_grad;
    const DType ct = compute_dtype(x.dtype());
    Tensor out = empty_in_layout(shape, ct, x.device(), cl);
    const Tensor bk = b.defined() ? to_layout(b, ct, false) : Tensor();
    if (x.numel() == 0 || w.numel() == 0 || out.numel() == 0) {
      // No products to add: the bias alone (an empty channel dim), or nothing at all.
      out.zero_();
      if (bk.defined() && out.numel()) out.add_(bk.view(bias_shape(out.dim(), bk.numel())));
    } else {
      conv_kernels(x, "convolution")
          .forward(out, to_layout(x, ct, cl), weight_for_kernel(w, ct),
                   bk.defined() ? &bk : nullptr, g);
    }
    y = cast_back(out, x.dtype(), cl);
  }
  if (any_requires_grad({&x, &w, &b})) {
    record("ConvolutionBackward0", {&x, &w, &b}, {&y},
           [sx = SavedTensor(w.requires_grad() ? x : Tensor()),
            sw = SavedTensor(x.requires_grad() ? w : Tensor()), g, layout, in = spatial_of(x),
            k = spatial_of(w)](TensorList& grads, Node& n) {
             // Both gradients read gy: bring it to the convolution's layout once.
             const Tensor gy =
                 grads[0].contiguous(format_for(size_t(grads[0].dim()), layout.activations_cl));
             TensorList r(3);
             if (need(n, 0)) r[0] = conv_backward_data(gy, sw.unpack(n), Tensor(), g, in, layout);
             if (need(n, 1)) {
               Tensor db;
               r[1] =
                   conv_backward_weight(sx.unpack(n), gy, g, k, layout, need(n, 2) ? &db : nullptr);
               r[2] = db;
             } else if (need(n, 2)) {
               r[2] = bias_grad(gy);
             }
             return r;
           });
  }
  return y;
}

// dx [N, C, *in_spatial] = the transposed convolution of dy with w, + b over C.
Tensor conv_backward_data(const Tensor& dy,
                          const Tensor& w,
                          const Tensor& b,
                          const ConvGeometry& g,
                          IntArrayRef in_spatial,
                          Layout layout) {
  const bool cl = layout.activations_cl;
  const DimVector shape = shape_of(dy.sizes()[0], w.sizes()[1] * g.groups, in_spatial);
  Tensor dx;
  {
    NoGradGuard no_grad;
    const DType ct = compute_dtype(dy.dtype());
    Tensor out = empty_in_layout(shape, ct, dy.device(), cl);
    if (dy.numel() == 0 || w.numel() == 0 || out.numel() == 0) {
      out.zero_();
    } else {
      conv_kernels(dy, "convolution")
          .backward_data(out, to_layout(dy, ct, cl), weight_for_kernel(w, ct), g);
    }
    if (b.defined() && out.numel())
      out.add_(to_layout(b, ct, false).view(bias_shape(out.dim(), b.numel())));
    dx = cast_back(out, dy.dtype(), cl);
  }
  if (any_requires_grad({&dy, &w, &b})) {
    record("ConvolutionBackward0", {&dy, &w, &b}, {&dx},
           [sdy = SavedTensor(w.requires_grad() ? dy : Tensor()),
            sw = SavedTensor(dy.requires_grad() ? w : Tensor()), g, layout, out = spatial_of(dy),
            k = spatial_of(w)](TensorList& grads, Node& n) {
             const Tensor& gx = grads[0];
             TensorList r(3);
             if (need(n, 0)) r[0] = conv_forward(gx, sw.unpack(n), Tensor(), g, out, layout);
             if (need(n, 1)) r[1] = conv_backward_weight(gx, sdy.unpack(n), g, k, layout, nullptr);
             if (need(n, 2)) r[2] = bias_grad(gx);
             return r;
           });
  }
  return dx;
}

// dw [O, C / groups, *k_spatial] of the convolution x -> dy; with db, also the bias gradient
// (by the kernel, in the same pass, when no graph is recorded).
Tensor conv_backward_weight(const Tensor& x,
                            const Tensor& dy,
                            const ConvGeometry& g,
                            IntArrayRef k_spatial,
                            Layout layout,
                            Tensor* db) {
  const bool cl = layout.activations_cl;
  const bool recording = any_requires_grad({&x, &dy});
  const DimVector shape = shape_of(dy.sizes()[1], x.sizes()[1] / g.groups, k_spatial);
  Tensor dw;
  {
    NoGradGuard no_grad;
    const DType ct = compute_dtype(x.dtype());
    Tensor out = empty_in_layout(shape, ct, x.device(), layout.weight_cl);
    const bool fused_bias = db && !recording;
    Tensor dbk =
        fused_bias ? empty({dy.sizes()[1]}, TensorOptions(ct).device(x.device())) : Tensor();
    if (x.numel() == 0 || dy.numel() == 0 || out.numel() == 0) {
      out.zero_();
      if (fused_bias) dbk.zero_();
    } else {
      conv_kernels(x, "convolution")
          .backward_weight(out, fused_bias ? &dbk : nullptr, to_layout(x, ct, cl),
                           to_layout(dy, ct, cl), g);
    }
    dw = cast_back(out, x.dtype(), layout.weight_cl);
    if (fused_bias) *db = cast_back(dbk, x.dtype(), false);
  }
  if (db && recording) *db = bias_grad(dy);
  if (recording) {
    record("ConvolutionBackwardBackward0", {&x, &dy}, {&dw},
           [sx = SavedTensor(dy.requires_grad() ? x : Tensor()),
            sdy = SavedTensor(x.requires_grad() ? dy : Tensor()), g, layout, in = spatial_of(x),
            out = spatial_of(dy)](TensorList& grads, Node& n) {
             const Tensor& gw = grads[0];
             TensorList r(2);
             if (need(n, 0)) r[0] = conv_backward_data(sdy.unpack(n), gw, Tensor(), g, in, layout);
             if (need(n, 1)) r[1] = conv_forward(sx.unpack(n), gw, Tensor(), g, out, layout);
             return r;
           });
  }
  return dw;
}

// The layout of a convolution of `x` with `w` (the weight [O, C / g, *] or, transposed,
// [C_in, C_out / g, *]).
Layout layout_of(const Tensor& x, const Tensor& w) {
  return {is_channels_last(x) || is_channels_last(w), is_channels_last(w)};
}

// ---- argument checks -------------------------------------------------------------------------

std::string joined(IntArrayRef v, const char* sep) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

// stride, padding, dilation, output_padding: one value for all spatial dims or one per dim.
DimVector expand_param(IntArrayRef v, int64_t spatial, const char* name, const char* op) {
  EMBER_CHECK(int64_t(v.size()) == 1 || int64_t(v.size()) == spatial, "[", op, "] expected ", name,
              " to be a single integer value or a list of ", spatial,
              " values to match the convolution dimensions, but got ", name, "=", v);
  return int64_t(v.size()) == 1 ? DimVector(size_t(spatial), v[0]) : DimVector(v.data(), v.size());
}

void check_tensors(const Tensor& input,
                   const Tensor& weight,
                   const Tensor& bias,
                   int64_t spatial,
                   const char* op) {
  EMBER_CHECK(input.defined() && weight.defined(), "[", op, "] expected input and weight tensors");
  EMBER_CHECK_TYPE(is_floating(input.dtype()), "[", op,
                   "] expected a floating-point input (float16, bfloat16, float32, float64), got ",
                   input.dtype());
  EMBER_CHECK(weight.dtype() == input.dtype(), "[", op,
              "] expected input and weight of the same dtype, got ", input.dtype(), " and ",
              weight.dtype());
  EMBER_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "[", op,
              "] expected input and bias of the same dtype, got ", input.dtype(), " and ",
              bias.dtype());
  EMBER_CHECK(
      weight.device() == input.device() && (!bias.defined() || bias.device() == input.device()),
      "[", op, "] expected input, weight and bias on the same device, got ", input.device(),
      " and ", weight.device());
  EMBER_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, "[", op, "] Expected ",
              spatial + 1, "D (unbatched) or ", spatial + 2, "D (batched) input to ", op,
              ", but got input of size: ", input.sizes());
  EMBER_CHECK(weight.dim() == spatial + 2, "[", op, "] expected a weight of ", spatial + 2,
              " dims (",
              spatial + 2 == 3   ? "out, in / groups, kW"
              : spatial + 2 == 4 ? "out, in / groups, kH, kW"
                                 : "out, in / groups, kD, kH, kW",
              "), got weight of size ", weight.sizes());
}

void check_positive(IntArrayRef v, const char* what, const char* op) {
  for (int64_t s : v) EMBER_CHECK(s > 0, "[", op, "] non-positive ", what, " is not supported");
}
void check_nonnegative(IntArrayRef v, const char* what, const char* op) {
  for (int64_t s : v) EMBER_CHECK(s >= 0, "[", op, "] negative ", what, " is not supported");
}

// The batched input ([N, C, *]) and whether a batch dim was added.
std::pair<Tensor, bool> batched(const Tensor& input, int64_t spatial) {
  if (input.dim() == spatial + 1) return {unsqueeze(input, 0), true};
  return {input, false};
}

// ---- convolution ---------------------------------------------------------------------------

// Everything of conv1d/2d/3d after the padding is known (pad_l before, pad_r after each dim).
Tensor conv_nd(const Tensor& input,
               const Tensor& weight,
               const Tensor& bias,
               const DimVector& stride,
               const DimVector& pad_l,
               const DimVector& pad_r,
               const DimVector& dilation,
               int64_t groups,
               int64_t spatial,
               const char* op) {
  check_positive(stride, "stride", op);
  check_nonnegative(pad_l, "padding", op);
  check_positive(dilation, "dilation", op);
  EMBER_CHECK(groups > 0, "[", op, "] non-positive groups is not supported");
  const auto [x, unbatched] = batched(input, spatial);
  const int64_t out_ch = weight.sizes()[0];
  EMBER_CHECK(out_ch >= groups, "[", op, "] Given groups=", groups,
              ", expected weight to be at least ", groups,
              " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  EMBER_CHECK(out_ch % groups == 0, "[", op, "] Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  EMBER_CHECK(x.sizes()[1] == weight.sizes()[1] * groups, "[", op, "] Given groups=", groups,
              ", weight of size ", weight.sizes(), ", expected input", x.sizes(), " to have ",
              weight.sizes()[1] * groups, " channels, but got ", x.sizes()[1], " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.sizes()[0] == out_ch), "[", op,
              "] Given weight of size ", weight.sizes(),
              ", expected bias to be 1-dimensional with ", out_ch,
              " elements, but got bias of size ", bias.sizes(), " instead");
  DimVector padded(static_cast<size_t>(spatial)), extent(static_cast<size_t>(spatial)),
      out(static_cast<size_t>(spatial));
  bool fits = true;
  for (int64_t i = 0; i < spatial; ++i) {
    padded[i] = x.sizes()[2 + i] + pad_l[i] + pad_r[i];
    extent[i] = dilation[i] * (weight.sizes()[2 + i] - 1) + 1;
    fits = fits && padded[i] >= extent[i];
    out[i] = fits ? (padded[i] - extent[i]) / stride[i] + 1 : 0;
  }
  EMBER_CHECK(fits, "[", op, "] Calculated padded input size per channel: (", joined(padded, " x "),
              "). Kernel size: (", joined(extent, " x "),
              "). Kernel size can't be greater than actual input size");
  ConvGeometry g;
  g.spatial = spatial;
  g.groups = groups;
  for (int64_t i = 0; i < spatial; ++i) {
    g.stride[i] = stride[i];
    g.dilation[i] = dilation[i];
    g.pad_l[i] = pad_l[i];
  }
  const Tensor y = conv_forward(x, weight, bias, g, out, layout_of(x, weight));
  return unbatched ? squeeze(y, 0) : y;
}

Tensor conv_int_padding(const Tensor& input,
                        const Tensor& weight,
                        const Tensor& bias,
                        IntArrayRef stride,
                        IntArrayRef padding,
                        IntArrayRef dilation,
                        int64_t groups,
                        int64_t spatial,
                        const char* op) {
  check_tensors(input, weight, bias, spatial, op);
  const DimVector pad = expand_param(padding, spatial, "padding", op);
  return conv_nd(input, weight, bias, expand_param(stride, spatial, "stride", op), pad, pad,
                 expand_param(dilation, spatial, "dilation", op), groups, spatial, op);
}

Tensor conv_mode_padding(const Tensor& input,
                         const Tensor& weight,
                         const Tensor& bias,
                         IntArrayRef stride_arg,
                         PaddingMode padding,
                         IntArrayRef dilation_arg,
                         int64_t groups,
                         int64_t spatial,
                         const char* op) {
  check_tensors(input, weight, bias, spatial, op);
  const DimVector stride = expand_param(stride_arg, spatial, "stride", op);
  const DimVector dilation = expand_param(dilation_arg, spatial, "dilation", op);
  DimVector pad_l(static_cast<size_t>(spatial), 0), pad_r(static_cast<size_t>(spatial), 0);
  if (padding.value == "same") {
    for (int64_t s : stride)
      EMBER_CHECK(s == 1, "[", op, "] padding='same' is not supported for strided convolutions");
    check_positive(dilation, "dilation", op);
    // The output keeps the input's size: dilation * (k - 1) padding in all, the odd one after.
    for (int64_t i = 0; i < spatial; ++i) {
      const int64_t total = dilation[i] * (weight.sizes()[2 + i] - 1);
      pad_l[i] = total / 2;
      pad_r[i] = total - pad_l[i];
    }
  } else {
    EMBER_CHECK(padding.value == "valid", "[", op, "] Invalid padding string: '", padding.value,
                "' (expected 'same' or 'valid')");
  }
  return conv_nd(input, weight, bias, stride, pad_l, pad_r, dilation, groups, spatial, op);
}

Tensor conv_transpose_nd(const Tensor& input,
                         const Tensor& weight,
                         const Tensor& bias,
                         IntArrayRef stride_arg,
                         IntArrayRef padding_arg,
                         IntArrayRef output_padding_arg,
                         int64_t groups,
                         IntArrayRef dilation_arg,
                         int64_t spatial,
                         const char* op) {
  check_tensors(input, weight, bias, spatial, op);
  const DimVector stride = expand_param(stride_arg, spatial, "stride", op);
  const DimVector padding = expand_param(padding_arg, spatial, "padding", op);
  const DimVector output_padding = expand_param(output_padding_arg, spatial, "output_padding", op);
  const DimVector dilation = expand_param(dilation_arg, spatial, "dilation", op);
  check_positive(stride, "stride", op);
  check_nonnegative(padding, "padding", op);
  check_nonnegative(output_padding, "output_padding", op);
  check_positive(dilation, "dilation", op);
  EMBER_CHECK(groups > 0, "[", op, "] non-positive groups is not supported");
  for (int64_t i = 0; i < spatial; ++i)
    EMBER_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i], "[", op,
                "] output padding must be smaller than either stride or dilation, but got "
                "output_padding=",
                output_padding, ", stride=", stride, ", dilation=", dilation);
  const auto [x, unbatched] = batched(input, spatial);
  const int64_t in_ch = weight.sizes()[0];
  EMBER_CHECK(in_ch >= groups, "[", op, "] Given groups=", groups,
              ", expected weight to be at least ", groups,
              " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  EMBER_CHECK(in_ch % groups == 0, "[", op, "] Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  EMBER_CHECK(x.sizes()[1] == in_ch, "[", op, "] Given transposed=1, weight of size ",
              weight.sizes(), ", expected input", x.sizes(), " to have ", in_ch,
              " channels, but got ", x.sizes()[1], " channels instead");
  const int64_t out_ch = weight.sizes()[1] * groups;
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.sizes()[0] == out_ch), "[", op,
              "] Given transposed=1, weight of size ", weight.sizes(),
              ", expected bias to be 1-dimensional with ", out_ch,
              " elements, but got bias of size ", bias.sizes(), " instead");
  DimVector in(static_cast<size_t>(spatial)), out(static_cast<size_t>(spatial));
  bool positive = true;
  for (int64_t i = 0; i < spatial; ++i) {
    in[i] = x.sizes()[2 + i];
    out[i] = (in[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (weight.sizes()[2 + i] - 1) +
             output_padding[i] + 1;
    positive = positive && out[i] > 0;
  }
  EMBER_CHECK(positive, "[", op, "] Given input size per channel: (", joined(in, " x "),
              "). Calculated output size per channel: (", joined(out, " x "),
              "). Output size is too small");
  ConvGeometry g;
  g.spatial = spatial;
  g.groups = groups;
  for (int64_t i = 0; i < spatial; ++i) {
    g.stride[i] = stride[i];
    g.dilation[i] = dilation[i];
    g.pad_l[i] = padding[i];
  }
  const Tensor y = conv_backward_data(x, weight, bias, g, out, layout_of(x, weight));
  return unbatched ? squeeze(y, 0) : y;
}

// ---- linear and bilinear ---------------------------------------------------------------------

void check_numeric(const Tensor& t, const char* op) {
  EMBER_CHECK_TYPE(kNumericTypes.contains(t.dtype()), "[", op, "] not implemented for dtype ",
                   t.dtype());
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* what, const char* op) {
  EMBER_CHECK(a.dtype() == b.dtype(), "[", op, "] expected ", what,
              " to have the same dtype, but got ", a.dtype(), " and ", b.dtype());
}

bool is_reduced_float(DType d) { return d == kFloat16 || d == kBFloat16; }

// The product of all dims but the last: the rows of t as a matrix [rows, t.size(-1)].
int64_t leading_rows(const Tensor& t) { return numel_of(t.sizes().slice(0, size_t(t.dim() - 1))); }

}  // namespace

std::span<const OpInfo> nn_conv_op_infos() { return kConvOps; }

Tensor conv1d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              IntArrayRef padding,
              IntArrayRef dilation,
              int64_t groups) {
  return conv_int_padding(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d");
}

Tensor conv2d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              IntArrayRef padding,
              IntArrayRef dilation,
              int64_t groups) {
  return conv_int_padding(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d");
}

Tensor conv3d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              IntArrayRef padding,
              IntArrayRef dilation,
              int64_t groups) {
  return conv_int_padding(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d");
}

Tensor conv1d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              PaddingMode padding,
              IntArrayRef dilation,
              int64_t groups) {
  return conv_mode_padding(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d");
}

Tensor conv2d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              PaddingMode padding,
              IntArrayRef dilation,
              int64_t groups) {
  return conv_mode_padding(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d");
}

Tensor conv3d(const Tensor& input,
              const Tensor& weight,
              const Tensor& bias,
              IntArrayRef stride,
              PaddingMode padding,
              IntArrayRef dilation,
              int64_t groups) {
  return conv_mode_padding(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d");
}

Tensor conv_transpose1d(const Tensor& input,
                        const Tensor& weight,
                        const Tensor& bias,
                        IntArrayRef stride,
                        IntArrayRef padding,
                        IntArrayRef output_padding,
                        int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           1, "conv_transpose1d");
}

Tensor conv_transpose2d(const Tensor& input,
                        const Tensor& weight,
                        const Tensor& bias,
                        IntArrayRef stride,
                        IntArrayRef padding,
                        IntArrayRef output_padding,
                        int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           2, "conv_transpose2d");
}

Tensor conv_transpose3d(const Tensor& input,
                        const Tensor& weight,
                        const Tensor& bias,
                        IntArrayRef stride,
                        IntArrayRef padding,
                        IntArrayRef output_padding,
                        int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           3, "conv_transpose3d");
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  const char* op = "linear";
  EMBER_CHECK(input.dim() >= 1 && weight.dim() >= 1,
              "[linear] both arguments to linear need to be at least 1D, but they are ",
              input.dim(), "D and ", weight.dim(), "D");
  EMBER_CHECK(
      weight.dim() <= 2,
      "[linear] expected a weight of 1 or 2 dims (out_features, in_features), got weight of size ",
      weight.sizes());
  check_numeric(input, op);
  check_same_dtype(input, weight, "input and weight", op);
  if (bias.defined()) check_same_dtype(input, bias, "input and bias", op);
  const int64_t in_features = weight.sizes()[weight.dim() - 1];
  EMBER_CHECK(input.sizes()[input.dim() - 1] == in_features,
              "[linear] input and weight shapes cannot be multiplied (input of size ",
              input.sizes(), ", weight of size ", weight.sizes(), ")");
  DimVector out_shape(input.sizes().data(), size_t(input.dim() - 1));
  if (weight.dim() == 2) out_shape.push_back(weight.sizes()[0]);
  EMBER_CHECK(!bias.defined() || is_expandable_to(bias.sizes(), out_shape),
              "[linear] expected a bias that broadcasts to the output's shape ", out_shape,
              ", got bias of size ", bias.sizes());
  if (is_reduced_float(input.dtype())) {
    // One rounding to the 16-bit type at the end, as PyTorch's fused addmm gives.
    return to_dtype(linear(to_dtype(input, kFloat32), to_dtype(weight, kFloat32),
                           bias.defined() ? to_dtype(bias, kFloat32) : Tensor()),
                    input.dtype());
  }
  const Tensor wt = weight.dim() == 2 ? t(weight) : weight;
  if (input.dim() == 2 && weight.dim() == 2 && bias.defined()) return addmm(bias, input, wt);
  if (input.dim() > 2 && weight.dim() == 2) {
    // One product over all leading dims: [prod(*), in] @ [in, out].
    const Tensor y = linear(reshape(input, {leading_rows(input), in_features}), weight,
                            bias.defined() && bias.dim() <= 1 ? bias : Tensor());
    const Tensor r = reshape(y, out_shape);
    return bias.defined() && bias.dim() > 1 ? add(r, bias) : r;
  }
  const Tensor y = matmul(input, wt);
  return bias.defined() ? add(y, bias) : y;
}

Tensor bilinear(const Tensor& input1,
                const Tensor& input2,
                const Tensor& weight,
                const Tensor& bias) {
  const char* op = "bilinear";
  check_numeric(input1, op);
  check_same_dtype(input1, input2, "input1 and input2", op);
  check_same_dtype(input1, weight, "input1 and weight", op);
  if (bias.defined()) check_same_dtype(input1, bias, "input1 and bias", op);
  EMBER_CHECK(weight.dim() == 3,
              "[bilinear] expected a weight of 3 dims (out_features, in1_features, "
              "in2_features), got weight of size ",
              weight.sizes());
  EMBER_CHECK(input1.dim() >= 1, "[bilinear] expected inputs of at least 1 dim, got a 0-d input1");
  EMBER_CHECK(input1.dim() == input2.dim(), "[bilinear] input dimensions do not match: got ",
              input1.dim(), " and ", input2.dim());
  for (int64_t d = 0; d + 1 < input1.dim(); ++d)
    EMBER_CHECK(input1.sizes()[d] == input2.sizes()[d],
                "[bilinear] input batch dimensions do not match at dim ", d, ": got ",
                input1.sizes()[d], " and ", input2.sizes()[d]);
  const int64_t out_f = weight.sizes()[0], in1 = weight.sizes()[1], in2 = weight.sizes()[2];
  EMBER_CHECK(input1.sizes()[input1.dim() - 1] == in1,
              "[bilinear] input1 size does not match weight size: got ",
              input1.sizes()[input1.dim() - 1], " but expected ", in1);
  EMBER_CHECK(input2.sizes()[input2.dim() - 1] == in2,
              "[bilinear] input2 size does not match weight size: got ",
              input2.sizes()[input2.dim() - 1], " but expected ", in2);
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.sizes()[0] == out_f),
              "[bilinear] bias size does not match weight size: got ",
              bias.defined() && bias.dim() == 1 ? bias.sizes()[0] : bias.numel(), " but expected ",
              out_f);
  if (is_reduced_float(input1.dtype())) {
    return to_dtype(
        bilinear(to_dtype(input1, kFloat32), to_dtype(input2, kFloat32), to_dtype(weight, kFloat32),
                 bias.defined() ? to_dtype(bias, kFloat32) : Tensor()),
        input1.dtype());
  }
  // t[b, (o, j)] = sum_i input1[b, i] weight[o, i, j], then out[b, o] = sum_j t[b, o, j] input2[b,
  // j].
  DimVector out_shape(input1.sizes().data(), size_t(input1.dim() - 1));
  out_shape.push_back(out_f);
  const int64_t rows = leading_rows(input1);
  const Tensor a = reshape(input1, {rows, in1}), c = reshape(input2, {rows, in2});
  const Tensor tmp = mm(a, reshape(permute(weight, {1, 0, 2}), {in1, out_f * in2}));
  Tensor y = sum(mul(view(tmp, {rows, out_f, in2}), unsqueeze(c, 1)), {2}, false, input1.dtype());
  if (bias.defined()) y = add(y, bias);
  return reshape(y, out_shape);
}

}  // namespace ember
