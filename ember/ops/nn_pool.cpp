// Neural-network ops: pooling (max, average, adaptive, unpool). Resampling (interpolate,
// pixel_shuffle, unfold/fold) is in nn_resample.cpp. Checks and output sizes follow PyTorch's
// (aten/src/ATen/native/Pool.h): pooling_output_shape, pool2d_shape_check.
//
// Every pool runs as a 3-d pool (PoolShape) on the batched input (an unbatched input gets a
// batch dim of 1 for the call), dense in one of two layouts: contiguous, or channels-last when
// the input is (PyTorch keeps channels-last through pooling). Backward functions are ops that
// record their own backward (max: a gather by the saved indices; average: the average pool
// again), so second derivatives work.
#include "ember/ops/nn_pool.h"

#include <string>

#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_pool.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/indexing.h"
#include "ember/ops/nn_pool_util.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {

// ---- helpers shared with nn_resample.cpp -------------------------------------------------------

namespace pool {

namespace {
MemoryFormat channels_last_of(int64_t dims) {
  return dims == 5 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
}
}  // namespace

bool is_channels_last(const Tensor& x) {
  const MemoryFormat f = x.suggest_memory_format();
  return f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d;
}

Tensor dense(const Tensor& x, bool channels_last) {
  return x.contiguous(channels_last ? channels_last_of(x.dim()) : MemoryFormat::Contiguous);
}

Tensor empty_in(IntArrayRef sizes, const TensorOptions& options, bool channels_last) {
  return empty(sizes, options,
               channels_last ? channels_last_of(int64_t(sizes.size())) : MemoryFormat::Contiguous);
}

std::string str_of(IntArrayRef v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

DimVector expand_arg(IntArrayRef values, int64_t n, const char* op, const char* what) {
  EMBER_CHECK(int64_t(values.size()) == 1 || int64_t(values.size()) == n, "[", op, "] ", what,
              " must be a single int or a tuple of ", n, " ints, got ", values.size(), " values");
  DimVector out;
  for (int64_t i = 0; i < n; ++i) out.push_back(values[values.size() == 1 ? 0 : size_t(i)]);
  return out;
}

void check_dtype(const Tensor& x, DTypeSet allowed, const char* op) {
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, allowed.contains(x.dtype()), "[", op,
                   "] not implemented for dtype ", x.dtype());
}

}  // namespace pool

namespace {

using pool::dense;
using pool::empty_in;
using pool::expand_arg;
using pool::str_of;

const OpInfo kPoolOps[] = {
    {"max_pool1d", OpKind::Other, kNumericTypes, true},
    {"max_pool2d", OpKind::Other, kNumericTypes, true},
    {"max_pool3d", OpKind::Other, kNumericTypes, true},
    {"avg_pool1d", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.avg_pool2d", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.avg_pool3d", OpKind::Other, kFloatingTypes, true},
    {"adaptive_avg_pool1d", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.adaptive_avg_pool2d", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.adaptive_avg_pool3d", OpKind::Other, kFloatingTypes, true},
    {"adaptive_max_pool1d", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.adaptive_max_pool2d", OpKind::Other, kFloatingTypes, true},
    {"nn.functional.max_unpool2d", OpKind::Other, kAllTypes, true},
    // Resampling (nn_resample.cpp).
};

const PoolKernels& pool_kernels(const Tensor& x, const char* op) {
  return kernels_of(kernels(x.device()).nn_pool, x.device(), op);
}

TensorOptions like(const Tensor& t, DType dtype) { return TensorOptions(dtype).device(t.device()); }

// The batched sizes of a pool's input or output: (N, C, the last nd spatial sizes).
DimVector batched_sizes(const PoolShape& s, const int64_t (&spatial)[3], int64_t nd) {
  DimVector out{s.batch, s.channels};
  for (int64_t d = 3 - nd; d < 3; ++d) out.push_back(spatial[d]);
  return out;
}

// The input's spatial sizes into PoolShape order (the last nd of d, h, w).
PoolShape shape_of(const Tensor& x, int64_t nd, bool channels_last) {
  PoolShape s;
  s.batch = x.size(0);
  s.channels = x.size(1);
  for (int64_t i = 0; i < nd; ++i) s.in[3 - nd + i] = x.size(2 + i);
  s.channels_last = channels_last;
  return s;
}

// ---- max pooling ----------------------------------------------------------------------------

const char* const kMaxNames[] = {"", "MaxPool1DWithIndicesBackward0",
                                 "MaxPool2DWithIndicesBackward0", "MaxPool3DWithIndicesBackward0"};
const char* const kAvgNames[] = {"", "AvgPool1DBackward0", "AvgPool2DBackward0",
                                 "AvgPool3DBackward0"};
const char* const kAdaptiveAvgNames[] = {
    "", "AdaptiveAvgPool1DBackward0", "AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool3DBackward0"};
const char* const kAdaptiveMaxNames[] = {"", "AdaptiveMaxPool1DBackward0",
                                         "AdaptiveMaxPool2DBackward0", ""};

// grad_in of a max pool: grad scattered (summed) to the saved indices. Its own backward
// gathers the incoming gradient at the same indices.
Tensor max_pool_grad(const Tensor& grad, const Tensor& indices, const PoolShape& s, int64_t nd) {
  const Tensor g = dense(grad, s.channels_last);
  const Tensor gi = empty_in(batched_sizes(s, s.in, nd), like(g, g.dtype()), s.channels_last);
  pool_kernels(g, "max_pool_backward").max_pool_backward(gi, g, indices, s);
  if (any_requires_grad(g)) {
    record("MaxPoolBackwardBackward0", {&g}, {&gi},
           [si = SavedTensor(indices), s, nd](TensorList& gg, Node& n) {
             const Tensor idx = si.unpack(n).to(kInt64);
             const Tensor flat = reshape(gg[0], {s.batch, s.channels, -1});
             const Tensor taken = gather(flat, 2, reshape(idx, {s.batch, s.channels, -1}));
             return TensorList{reshape(taken, batched_sizes(s, s.out, nd))};
           });
  }
  return gi;
}

// Runs the max kernel on x (batched, dense in s's layout) and records the backward.
std::pair<Tensor, Tensor> max_pool_run(
    const Tensor& x, const PoolShape& s, int64_t nd, bool want_indices, const char* node) {
  const bool grad = any_requires_grad(x);
  const DimVector out_sizes = batched_sizes(s, s.out, nd);
  Tensor out = empty_in(out_sizes, like(x, x.dtype()), s.channels_last);
  // Indices only kept for the backward are int32 where the plane allows: half the memory
  // traffic of int64 in the forward and the backward.
  const bool narrow = !want_indices && s.in_plane() < (int64_t(1) << 31);
  Tensor idx;
  if (want_indices || grad)
    idx = empty_in(out_sizes, like(x, narrow ? kInt32 : kInt64), s.channels_last);
  pool_kernels(x, "max_pool").max_pool(out, idx, x, s);
  if (grad) {
    record(node, {&x}, {&out}, [si = SavedTensor(idx), s, nd](TensorList& g, Node& n) {
      return TensorList{max_pool_grad(g[0], si.unpack(n), s, nd)};
    });
  }
  return {out, idx};
}

// PyTorch's pooling_output_shape: floor (or ceil) of the window count; in ceil mode the last
// window must start inside the input or the left padding.
int64_t pooling_output_size(
    int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

struct PoolArgs {
  DimVector kernel, stride, pad, dilation;
};

// PyTorch's argument checks of an nd-d pool and the geometry. `input` has nd + 1 or nd + 2
// dims; `avg` pools have no dilation argument.
PoolArgs pool_args(const char* op,
                   int64_t nd,
                   IntArrayRef kernel_size,
                   IntArrayRef stride,
                   IntArrayRef padding,
                   IntArrayRef dilation) {
  PoolArgs a;
  a.kernel = expand_arg(kernel_size, nd, op, "kernel_size");
  a.stride = stride.empty() ? a.kernel : expand_arg(stride, nd, op, "stride");
  a.pad = expand_arg(padding, nd, op, "padding");
  a.dilation = expand_arg(dilation, nd, op, "dilation");
  return a;
}

void check_pool_input(const Tensor& input, int64_t nd, const char* op) {
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, "[", op, "] expected a non-empty ",
              nd + 1, "D or ", nd + 2, "D (batch mode) tensor for input, got ", input.dim(),
              "D with sizes ", str_of(input.sizes()));
}

PoolShape pool_shape(const char* op,
                     const Tensor& x,  // batched
                     int64_t nd,
                     const PoolArgs& a,
                     bool ceil_mode,
                     bool channels_last) {
  PoolShape s = shape_of(x, nd, channels_last);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t k = a.kernel[i], st = a.stride[i], p = a.pad[i], dl = a.dilation[i];
    EMBER_CHECK(st != 0, "[", op, "] stride should not be zero");
    EMBER_CHECK(p >= 0, "[", op, "] pad must be non-negative, but got pad: ", p);
    EMBER_CHECK(p <= ((k - 1) * dl + 1) / 2, "[", op,
                "] pad should be at most half of effective kernel size, but got pad=", p,
                ", kernel_size=", k, " and dilation=", dl);
  }
  for (int64_t i = 0; i < nd; ++i) {
    EMBER_CHECK(a.kernel[i] > 0, "[", op, "] kernel size should be greater than zero, but got ",
                str_of(a.kernel));
    EMBER_CHECK(a.stride[i] > 0, "[", op, "] stride should be greater than zero, but got ",
                str_of(a.stride));
    EMBER_CHECK(a.dilation[i] > 0, "[", op, "] dilation should be greater than zero, but got ",
                str_of(a.dilation));
  }
  for (int64_t d = 1; d < x.dim(); ++d) {
    EMBER_CHECK(x.size(d) != 0, "[", op, "] expected a ", nd + 1, "D or ", nd + 2,
                "D (batch mode) tensor with optional 0 dim batch size for input, but got: ",
                str_of(x.sizes()));
  }
  for (int64_t i = 0; i < nd; ++i) {
    EMBER_CHECK(a.pad[i] <= a.kernel[i] / 2, "[", op,
                "] pad should be smaller than or equal to half of kernel size, but got padding ",
                str_of(a.pad), " and kernel_size ", str_of(a.kernel));
  }
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = 3 - nd + i;
    s.kernel[d] = a.kernel[i];
    s.stride[d] = a.stride[i];
    s.pad[d] = a.pad[i];
    s.dilation[d] = a.dilation[i];
    s.out[d] =
        pooling_output_size(s.in[d], s.kernel[d], s.pad[d], s.stride[d], s.dilation[d], ceil_mode);
  }
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = 3 - nd + i;
    EMBER_CHECK(s.out[d] >= 1, "[", op, "] given input size ", str_of(batched_sizes(s, s.in, nd)),
                ", the calculated output size ", str_of(batched_sizes(s, s.out, nd)),
                " is too small");
  }
  return s;
}

// The batched input and its layout (channels-last only for a batched channels-last input).
Tensor batched_input(const Tensor& input, int64_t nd, bool* channels_last) {
  const bool batched = input.dim() == nd + 2;
  *channels_last = batched && pool::is_channels_last(input);
  return batched ? input : unsqueeze(input, 0);
}

// Drops the batch dim added for an unbatched input.
Tensor unbatch(const Tensor& t, const Tensor& input, int64_t nd) {
  return input.dim() == nd + 2 || !t.defined() ? t : squeeze(t, 0);
}

std::pair<Tensor, Tensor> max_pool_nd(const char* op,
                                      int64_t nd,
                                      const Tensor& input,
                                      IntArrayRef kernel_size,
                                      IntArrayRef stride,
                                      IntArrayRef padding,
                                      IntArrayRef dilation,
                                      bool ceil_mode,
                                      bool want_indices) {
  const PoolArgs a = pool_args(op, nd, kernel_size, stride, padding, dilation);
  check_pool_input(input, nd, op);
  pool::check_dtype(input, kNumericTypes, op);
  bool cl = false;
  const Tensor x = batched_input(input, nd, &cl);
  const PoolShape s = pool_shape(op, x, nd, a, ceil_mode, cl);
  auto [out, idx] = max_pool_run(dense(x, cl), s, nd, want_indices, kMaxNames[nd]);
  return {unbatch(out, input, nd), want_indices ? unbatch(idx, input, nd) : Tensor()};
}

// ---- average pooling ----------------------------------------------------------------------------

Tensor avg_pool_run(
    const Tensor& x, const PoolShape& s, int64_t nd, AvgDivisor div, const char* node);

// grad_in of an average pool: each output's gradient spread over its window. Its own backward
// is the average pool of the incoming gradient.
Tensor avg_pool_grad(const Tensor& grad, const PoolShape& s, int64_t nd, AvgDivisor div) {
  const Tensor g = dense(grad, s.channels_last);
  const Tensor gi = empty_in(batched_sizes(s, s.in, nd), like(g, g.dtype()), s.channels_last);
  pool_kernels(g, "avg_pool_backward").avg_pool_backward(gi, g, s, div);
  if (any_requires_grad(g)) {
    record("AvgPoolBackwardBackward0", {&g}, {&gi}, [s, nd, div](TensorList& gg, Node&) {
      return TensorList{
          avg_pool_run(dense(gg[0], s.channels_last), s, nd, div, "AvgPoolBackward0")};
    });
  }
  return gi;
}

Tensor avg_pool_run(
    const Tensor& x, const PoolShape& s, int64_t nd, AvgDivisor div, const char* node) {
  Tensor out = empty_in(batched_sizes(s, s.out, nd), like(x, x.dtype()), s.channels_last);
  pool_kernels(x, "avg_pool").avg_pool(out, x, s, div);
  if (any_requires_grad(x)) {
    record(node, {&x}, {&out}, [s, nd, div](TensorList& g, Node&) {
      return TensorList{avg_pool_grad(g[0], s, nd, div)};
    });
  }
  return out;
}

Tensor avg_pool_nd(const char* op,
                   int64_t nd,
                   const Tensor& input,
                   IntArrayRef kernel_size,
                   IntArrayRef stride,
                   IntArrayRef padding,
                   bool ceil_mode,
                   bool count_include_pad,
                   std::optional<int64_t> divisor_override) {
  const PoolArgs a = pool_args(op, nd, kernel_size, stride, padding, 1);
  check_pool_input(input, nd, op);
  pool::check_dtype(input, kFloatingTypes, op);
  // One read of the optional, selected by has_value() (comparing its payload before knowing
  // it is engaged, as `!o || *o != 0` compiles, reads an uninitialised value under valgrind).
  const int64_t divisor = divisor_override.has_value() ? *divisor_override : -1;
  EMBER_CHECK(divisor != 0, "[", op, "] divisor must be not zero");
  bool cl = false;
  const Tensor x = batched_input(input, nd, &cl);
  const PoolShape s = pool_shape(op, x, nd, a, ceil_mode, cl);
  const AvgDivisor div{count_include_pad, divisor_override.has_value() ? divisor : 0};
  return unbatch(avg_pool_run(dense(x, cl), s, nd, div, kAvgNames[nd]), input, nd);
}

// ---- adaptive pooling -------------------------------------------------------------------------

PoolShape adaptive_shape(const char* op,
                         const Tensor& input,
                         int64_t nd,
                         IntArrayRef output_size,
                         bool max,
                         bool* channels_last,
                         Tensor* x) {
  EMBER_CHECK(input.dim() == nd + 1 || input.dim() == nd + 2, "[", op, "] expected a ", nd + 1,
              "D or ", nd + 2, "D tensor, but got ", input.dim(), "D with sizes ",
              str_of(input.sizes()));
  EMBER_CHECK(int64_t(output_size.size()) == nd || output_size.size() == 1, "[", op,
              "] output_size must be a single int or ", nd, " ints, got ", output_size.size(),
              " values");
  pool::check_dtype(input, kFloatingTypes, op);
  const DimVector out = expand_arg(output_size, nd, op, "output_size");
  for (int64_t v : out) {
    EMBER_CHECK(v >= 0, "[", op,
                "] elements of output_size must be greater than or equal to 0 but received ",
                str_of(out));
  }
  // PyTorch: adaptive max pooling needs every non-batch dim non-empty, average the spatial ones.
  for (int64_t d = max ? input.dim() - nd - 1 : input.dim() - nd; d < input.dim(); ++d) {
    EMBER_CHECK(input.size(d) != 0, "[", op,
                "] expected input to have non-zero size for non-batch dimensions, but input has "
                "sizes ",
                str_of(input.sizes()), " with dimension ", d, " being empty");
  }
  *x = batched_input(input, nd, channels_last);
  PoolShape s = shape_of(*x, nd, *channels_last);
  s.adaptive = true;
  for (int64_t i = 0; i < nd; ++i) s.out[3 - nd + i] = out[i];
  return s;
}

Tensor adaptive_avg_nd(const char* op, int64_t nd, const Tensor& input, IntArrayRef output_size) {
  bool cl = false;
  Tensor x;
  const PoolShape s = adaptive_shape(op, input, nd, output_size, false, &cl, &x);
  return unbatch(avg_pool_run(dense(x, cl), s, nd, AvgDivisor{false, 0}, kAdaptiveAvgNames[nd]),
                 input, nd);
}

std::pair<Tensor, Tensor> adaptive_max_nd(const char* op,
                                          int64_t nd,
                                          const Tensor& input,
                                          IntArrayRef output_size) {
  bool cl = false;
  Tensor x;
  const PoolShape s = adaptive_shape(op, input, nd, output_size, true, &cl, &x);
  auto [out, idx] = max_pool_run(dense(x, cl), s, nd, true, kAdaptiveMaxNames[nd]);
  return {unbatch(out, input, nd), unbatch(idx, input, nd)};
}

}  // namespace

std::span<const OpInfo> nn_pool_op_infos() { return kPoolOps; }

// ---- public API
// ----------------------------------------------------------------------------------

Tensor max_pool1d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride,
                  IntArrayRef padding,
                  IntArrayRef dilation,
                  bool ceil_mode) {
  return max_pool_nd("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode,
                     false)
      .first;
}

Tensor max_pool2d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride,
                  IntArrayRef padding,
                  IntArrayRef dilation,
                  bool ceil_mode) {
  return max_pool_nd("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     false)
      .first;
}

Tensor max_pool3d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride,
                  IntArrayRef padding,
                  IntArrayRef dilation,
                  bool ceil_mode) {
  return max_pool_nd("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     false)
      .first;
}

std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                  IntArrayRef kernel_size,
                                                  IntArrayRef stride,
                                                  IntArrayRef padding,
                                                  IntArrayRef dilation,
                                                  bool ceil_mode) {
  return max_pool_nd("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode,
                     true);
}

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                  IntArrayRef kernel_size,
                                                  IntArrayRef stride,
                                                  IntArrayRef padding,
                                                  IntArrayRef dilation,
                                                  bool ceil_mode) {
  return max_pool_nd("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     true);
}

std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                  IntArrayRef kernel_size,
                                                  IntArrayRef stride,
                                                  IntArrayRef padding,
                                                  IntArrayRef dilation,
                                                  bool ceil_mode) {
  return max_pool_nd("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     true);
}

Tensor avg_pool1d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride,
                  IntArrayRef padding,
                  bool ceil_mode,
                  bool count_include_pad) {
  return avg_pool_nd("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, std::nullopt);
}

Tensor avg_pool2d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride,
                  IntArrayRef padding,
                  bool ceil_mode,
                  bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return avg_pool_nd("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override);
}

Tensor avg_pool3d(const Tensor& input,
                  IntArrayRef kernel_size,
                  IntArrayRef stride,
                  IntArrayRef padding,
                  bool ceil_mode,
                  bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return avg_pool_nd("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size) {
  return adaptive_avg_nd("adaptive_avg_pool1d", 1, input, output_size);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  return adaptive_avg_nd("adaptive_avg_pool2d", 2, input, output_size);
}

Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef output_size) {
  return adaptive_avg_nd("adaptive_avg_pool3d", 3, input, output_size);
}

std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size) {
  return adaptive_max_nd("adaptive_max_pool1d", 1, input, output_size);
}

std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size) {
  return adaptive_max_nd("adaptive_max_pool2d", 2, input, output_size);
}

// A composite: a scatter into a zero (N * C, H * W) tensor, whose backward (a gather) is the
// gradient PyTorch gives. Indices are checked first, as PyTorch does, for its message.
Tensor max_unpool2d(const Tensor& input,
                    const Tensor& indices,
                    IntArrayRef kernel_size,
                    IntArrayRef stride,
                    IntArrayRef padding,
                    IntArrayRef output_size) {
  const char* op = "max_unpool2d";
  const DimVector k = expand_arg(kernel_size, 2, op, "kernel_size");
  const DimVector st = stride.empty() ? k : expand_arg(stride, 2, op, "stride");
  const DimVector p = expand_arg(padding, 2, op, "padding");
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "[", op,
              "] input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ",
              input.dim(), " dimensions");
  EMBER_CHECK(indices.dtype() == kInt64, "[", op,
              "] elements in indices should be type int64 but got: ", indices.dtype());
  EMBER_CHECK(input.sizes() == indices.sizes(), "[", op,
              "] expected shape of indices to be same as that of the input tensor ",
              str_of(input.sizes()),
              " but got indices tensor with shape: ", str_of(indices.sizes()));
  for (int64_t d = input.dim() - 3; d < input.dim(); ++d) {
    EMBER_CHECK(input.size(d) > 0, "[", op,
                "] expected input to have non-zero size for non-batch dimensions, but got ",
                str_of(input.sizes()));
  }
  // PyTorch's _unpool_output_size (Python there): the default size, or a given one within one
  // stride of it.
  DimVector out;
  for (int64_t i = 0; i < 2; ++i)
    out.push_back((input.size(input.dim() - 2 + i) - 1) * st[i] + k[i] - 2 * p[i]);
  if (!output_size.empty()) {
    IntArrayRef given = output_size;
    if (given.size() == 4) given = given.slice(2, 2);
    EMBER_CHECK_VALUE(given.size() == 2, "[", op,
                      "] output_size should be a sequence containing 2 or 4 elements, but it has "
                      "a length of '",
                      output_size.size(), "'");
    for (int64_t i = 0; i < 2; ++i) {
      EMBER_CHECK_VALUE(out[i] - st[i] < given[i] && given[i] < out[i] + st[i], "[", op,
                        "] invalid output_size ", str_of(output_size), " (dim ", i,
                        " must be between ", out[i] - st[i], " and ", out[i] + st[i], ")");
      out[i] = given[i];
    }
  }
  const int64_t plane = out[0] * out[1];
  const bool batched = input.dim() == 4;
  const int64_t N = batched ? input.size(0) : 1, C = input.size(batched ? 1 : 0);
  if (indices.numel() > 0) {
    const int64_t lo = amin(indices).item<int64_t>(), hi = amax(indices).item<int64_t>();
    if (lo < 0 || hi >= plane) {
      // The first bad index in order, as PyTorch's loop reports it.
      const Tensor c = indices.contiguous();
      const int64_t* p = c.data_ptr<int64_t>();
      int64_t bad = lo < 0 ? lo : hi;
      for (int64_t k = 0; k < c.numel(); ++k) {
        if (p[k] < 0 || p[k] >= plane) {
          bad = p[k];
          break;
        }
      }
      EMBER_FAIL("[", op, "] found an invalid max index: ", bad, " (output volumes are of size ",
                 out[0], "x", out[1], ")");
    }
  }
  const Tensor zero = zeros({N * C, plane}, like(input, input.dtype()));
  const Tensor flat = scatter(zero, 1, reshape(indices, {N * C, -1}), reshape(input, {N * C, -1}));
  return batched ? reshape(flat, {N, C, out[0], out[1]}) : reshape(flat, {C, out[0], out[1]});
}

}  // namespace ember
