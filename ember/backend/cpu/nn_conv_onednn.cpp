// float32 convolutions through oneDNN 2.6 (Debian's libdnnl): convolution_forward,
// convolution_backward_data and convolution_backward_weights, with their primitives cached by
// shape (Note [Convolution primitive cache]).
//
// Layouts. oneDNN describes a tensor by sizes and strides, so ember hands it every tensor as it
// is (NCHW, channels-last or a strided view) and lets the primitive say what it wants:
// - channels-last activations (the output, or for the weight gradient the input, is dense in
//   NHWC / NDHWC order) go to the primitive as nhwc / ndhwc themselves: no copy in or out.
//   oneDNN's channels-last kernels (brgconv) beat its blocked ones plus reorders (forward 3x3
//   at 64 channels, 56x56: 15.4 against 19.2 ms; depthwise 2-7x), except for the weight
//   gradient of strided convolutions (onednn_backward_weight).
// - other activations (NCHW) are given as format `any`: oneDNN picks its blocked layout
//   (nChw16c) and ember reorders into it and back, as PyTorch does. Its jit kernels on blocked
//   data beat its NCHW kernels (gemm based) by more than the reorders cost, except for 1x1
//   convolutions without stride or padding over large images (see prepare).
// - weights are always format `any` and reordered per call (they change every training step).
// Reorder buffers and scratchpads come from ember's caching allocator, so after the first call
// they cost neither a page fault nor a system call.
#include <dnnl.hpp>

#include <atomic>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/backend/cpu/flags.h"
#include "ember/backend/cpu/nn_conv.h"
#include "ember/core/allocator.h"
#include "ember/core/parallel.h"
#include "ember/core/tensor_impl.h"

namespace ember::cpu::conv {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

enum class Pass : int64_t { Forward, BackwardData, BackwardWeight };

// Whether sizes/strides are the dense layout that lists dims from outermost to innermost in
// `order` (size-1 dims may have any stride).
bool dense_in_order(IntArrayRef sizes, IntArrayRef strides, const int* order) {
  int64_t expected = 1;
  for (int64_t i = int64_t(sizes.size()) - 1; i >= 0; --i) {
    const int d = order[i];
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

constexpr int kContiguousOrder[5] = {0, 1, 2, 3, 4};
// N, spatial dims, C.
const int* channels_last_order(int64_t dim) {
  static constexpr int k3[3] = {0, 2, 1}, k4[4] = {0, 2, 3, 1}, k5[5] = {0, 2, 3, 4, 1};
  return dim == 3 ? k3 : dim == 4 ? k4 : k5;
}

bool dense_channels_last(const Tensor& t) {
  return dense_in_order(t.sizes(), t.strides(), channels_last_order(t.dim()));
}
bool dense_contiguous(const Tensor& t) {
  return dense_in_order(t.sizes(), t.strides(), kContiguousOrder);
}

Tag plain_tag(int64_t dim, bool channels_last) {
  if (dim == 3) return channels_last ? Tag::nwc : Tag::ncw;
  if (dim == 4) return channels_last ? Tag::nhwc : Tag::nchw;
  return channels_last ? Tag::ndhwc : Tag::ncdhw;
}

memory::dims dims_of(IntArrayRef a) { return memory::dims(a.begin(), a.end()); }

// An activation as it is in memory. Dense layouts get their format tag, so that size-1 dims
// compare equal to the primitive's own plain layout and need no reorder.
memory::desc activation_desc(const Tensor& t, bool prefer_channels_last) {
  const memory::dims d = dims_of(t.sizes());
  const bool cl = dense_channels_last(t), contiguous = dense_contiguous(t);
  if (cl && (prefer_channels_last || !contiguous))
    return memory::desc(d, kF32, plain_tag(t.dim(), true));
  if (contiguous) return memory::desc(d, kF32, plain_tag(t.dim(), false));
  return memory::desc(d, kF32, dims_of(t.strides()));
}

// The weights [O, C / g, *k] as oneDNN sees them: [g, O / g, C / g, *k] when grouped.
memory::dims weight_dims(IntArrayRef sizes, int64_t groups) {
  memory::dims d = dims_of(sizes);
  if (groups == 1) return d;
  d[0] /= groups;
  d.insert(d.begin(), groups);
  return d;
}

memory::desc weight_desc(const Tensor& w, int64_t groups) {
  memory::dims strides = dims_of(w.strides());
  if (groups > 1) strides.insert(strides.begin(), strides[0] * (w.sizes()[0] / groups));
  return memory::desc(weight_dims(w.sizes(), groups), kF32, strides);
}

// One tensor argument of a primitive: as ember holds it (user) and as the primitive wants it
// (inner), with the reorder between them when they differ.
struct Operand {
  Operand(int a, memory::desc u, memory::desc i, bool in)
      : arg(a), user(std::move(u)), inner(std::move(i)), input(in) {}
  int arg = 0;
  memory::desc user, inner;
  bool reorder = false;
  bool input = true;
  dnnl::primitive copy;  // user -> inner for inputs, inner -> user for outputs
  memory::desc copy_scratch;
  size_t offset = 0;  // of the inner buffer in the call's scratch block
};

struct Plan {
  dnnl::primitive prim;
  std::vector<Operand> operands;  // inputs first
  memory::desc scratch;           // the primitive's scratchpad
  int bias_arg = 0;               // DNNL_ARG_BIAS / DNNL_ARG_DIFF_BIAS, or 0
  memory::desc bias;
  size_t scratch_offset = 0, bytes = 0;
};

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

constexpr size_t kAlign = 64;
size_t aligned(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// Fills in the reorders of the plan's operands and the layout of its scratch block: the inner
// buffers of reordered operands, then one scratchpad big enough for the primitive and for every
// reorder (they run one after another).
void finish_plan(Plan& p) {
  size_t scratch = p.scratch.get_size();
  size_t offset = 0;
  for (Operand& op : p.operands) {
    op.reorder = op.user != op.inner;
    if (!op.reorder) continue;
    const memory::desc& from = op.input ? op.user : op.inner;
    const memory::desc& to = op.input ? op.inner : op.user;
    dnnl::reorder::primitive_desc rpd(cpu_engine(), from, cpu_engine(), to, user_scratchpad());
    op.copy = dnnl::reorder(rpd);
    op.copy_scratch = rpd.scratchpad_desc();
    scratch = std::max(scratch, op.copy_scratch.get_size());
    op.offset = offset;
    offset += aligned(op.inner.get_size());
  }
  p.scratch_offset = offset;
  p.bytes = offset + aligned(scratch);
}

struct ConvSetup {
  memory::dims strides, dilates, pad_l, pad_r;
  int64_t groups;
  bool channels_last;  // activations go to the primitive as nhwc/ndhwc
  bool plain = false;  // NCHW activations go to it as nchw (no reorder)
  dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
};

memory::desc inner_activation(const Tensor& t, const ConvSetup& s) {
  if (s.channels_last || s.plain)
    return memory::desc(dims_of(t.sizes()), kF32, plain_tag(t.dim(), s.channels_last));
  return memory::desc(dims_of(t.sizes()), kF32, Tag::any);
}

memory::desc any_weights(const Tensor& w, int64_t groups) {
  return memory::desc(weight_dims(w.sizes(), groups), kF32, Tag::any);
}

dnnl::convolution_forward::desc forward_desc(const memory::desc& src,
                                             const memory::desc& wei,
                                             const memory::desc& bias,
                                             const memory::desc& dst,
                                             const ConvSetup& s) {
  return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, s.alg, src, wei, bias,
                                         dst, s.strides, s.dilates, s.pad_l, s.pad_r);
}

// nullptr when oneDNN has no implementation (the reference kernel then runs).
std::shared_ptr<Plan> build_forward(
    const Tensor& y, const Tensor& x, const Tensor& w, bool bias, const ConvSetup& s) {
  const memory::desc src = inner_activation(x, s), dst = inner_activation(y, s);
  const memory::desc wei = any_weights(w, s.groups);
  const memory::desc b = bias ? memory::desc({y.sizes()[1]}, kF32, Tag::a) : memory::desc();
  dnnl::convolution_forward::primitive_desc pd(forward_desc(src, wei, b, dst, s), user_scratchpad(),
                                               cpu_engine(), true);
  if (!pd.get(true)) return nullptr;
  auto p = std::make_shared<Plan>();
  p->prim = dnnl::convolution_forward(pd);
  p->operands = {
      {DNNL_ARG_SRC, activation_desc(x, s.channels_last), pd.src_desc(), true},
      {DNNL_ARG_WEIGHTS, weight_desc(w, s.groups), pd.weights_desc(), true},
      {DNNL_ARG_DST, activation_desc(y, s.channels_last), pd.dst_desc(), false},
  };
  p->scratch = pd.scratchpad_desc();
  if (bias) {
    p->bias_arg = DNNL_ARG_BIAS;
    p->bias = b;
  }
  finish_plan(*p);
  return p;
}

std::shared_ptr<Plan> build_backward_data(const Tensor& dx,
                                          const Tensor& dy,
                                          const Tensor& w,
                                          const ConvSetup& s) {
  const memory::desc src = inner_activation(dx, s), dst = inner_activation(dy, s);
  const memory::desc wei = any_weights(w, s.groups);
  dnnl::convolution_forward::primitive_desc hint(forward_desc(src, wei, memory::desc(), dst, s),
                                                 cpu_engine(), true);
  if (!hint.get(true)) return nullptr;
  dnnl::convolution_backward_data::desc d(s.alg, src, wei, dst, s.strides, s.dilates, s.pad_l,
                                          s.pad_r);
  dnnl::convolution_backward_data::primitive_desc pd(d, user_scratchpad(), cpu_engine(), hint,
                                                     true);
  if (!pd.get(true)) return nullptr;
  auto p = std::make_shared<Plan>();
  p->prim = dnnl::convolution_backward_data(pd);
  p->operands = {
      {DNNL_ARG_DIFF_DST, activation_desc(dy, s.channels_last), pd.diff_dst_desc(), true},
      {DNNL_ARG_WEIGHTS, weight_desc(w, s.groups), pd.weights_desc(), true},
      {DNNL_ARG_DIFF_SRC, activation_desc(dx, s.channels_last), pd.diff_src_desc(), false},
  };
  p->scratch = pd.scratchpad_desc();
  finish_plan(*p);
  return p;
}

std::shared_ptr<Plan> build_backward_weight(
    const Tensor& dw, bool bias, const Tensor& x, const Tensor& dy, const ConvSetup& s) {
  const memory::desc src = inner_activation(x, s), dst = inner_activation(dy, s);
  const memory::desc wei = any_weights(dw, s.groups);
  const memory::desc b = bias ? memory::desc({dy.sizes()[1]}, kF32, Tag::a) : memory::desc();
  dnnl::convolution_forward::primitive_desc hint(forward_desc(src, wei, b, dst, s), cpu_engine(),
                                                 true);
  if (!hint.get(true)) return nullptr;
  dnnl::convolution_backward_weights::desc d(s.alg, src, wei, b, dst, s.strides, s.dilates, s.pad_l,
                                             s.pad_r);
  dnnl::convolution_backward_weights::primitive_desc pd(d, user_scratchpad(), cpu_engine(), hint,
                                                        true);
  if (!pd.get(true)) return nullptr;
  auto p = std::make_shared<Plan>();
  p->prim = dnnl::convolution_backward_weights(pd);
  p->operands = {
      {DNNL_ARG_SRC, activation_desc(x, s.channels_last), pd.src_desc(), true},
      {DNNL_ARG_DIFF_DST, activation_desc(dy, s.channels_last), pd.diff_dst_desc(), true},
      {DNNL_ARG_DIFF_WEIGHTS, weight_desc(dw, s.groups), pd.diff_weights_desc(), false},
  };
  p->scratch = pd.scratchpad_desc();
  if (bias) {
    p->bias_arg = DNNL_ARG_DIFF_BIAS;
    p->bias = b;
  }
  finish_plan(*p);
  return p;
}

// Note [Convolution primitive cache]
// Setting up a oneDNN convolution takes a descriptor, a primitive descriptor (oneDNN tries its
// implementations in turn until one accepts the sizes and layouts), the primitive (JIT-compiled
// code) and the reorders to and from the layouts it chose: tens of microseconds to milliseconds,
// as long as a whole small convolution runs. ember sets up each distinct call once and keeps it
// in a small LRU cache, keyed by everything the set-up depends on: the pass, the sizes and
// strides of all tensors, stride, dilation, padding, groups, bias, and the thread count (the
// JIT kernels split their work for the thread count when they are created, so a primitive built
// for two threads would still run two after set_num_threads(1)). The dtype is always float32.
// A mutex guards the cache; a plan is immutable once built and may run on several threads at
// once, since each call brings its own scratch memory (user-managed scratchpads). A null plan
// records that oneDNN has no implementation, so the reference kernel runs without asking again.
using Key = std::vector<int64_t>;

struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the numbers
    for (int64_t v : k) h = (h ^ uint64_t(v)) * 1099511628211ull;
    return size_t(h);
  }
};

class PlanCache {
 public:
  static constexpr size_t kCapacity = 256;

  template <class Build>
  std::shared_ptr<Plan> get(const Key& key, const Build& build) {
    {
      std::lock_guard lock(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second);
        return it->second->second;
      }
    }
    // Outside the lock: JIT compilation is slow. A case oneDNN rejects (no implementation, or
    // sizes its descriptors refuse) is remembered as a null plan: the reference kernel runs.
    std::shared_ptr<Plan> plan;
    try {
      plan = build();
    } catch (const dnnl::error&) {
      plan = nullptr;
    }
    std::lock_guard lock(mu_);
    if (map_.find(key) == map_.end()) {
      lru_.emplace_front(key, plan);
      map_.emplace(key, lru_.begin());
      if (lru_.size() > kCapacity) {
        map_.erase(lru_.back().first);
        lru_.pop_back();
      }
    }
    return plan;
  }

 private:
  std::mutex mu_;
  std::list<std::pair<Key, std::shared_ptr<Plan>>> lru_;
  std::unordered_map<Key, std::list<std::pair<Key, std::shared_ptr<Plan>>>::iterator, KeyHash> map_;
};

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache;  // never destroyed: plans may outlive static teardown
  return *cache;
}

void push_tensor(Key& k, const Tensor& t) {
  k.push_back(t.dim());
  for (int64_t s : t.sizes()) k.push_back(s);
  for (int64_t s : t.strides()) k.push_back(s);
}

Key make_key(
    Pass pass, const ConvSetup& s, bool bias, const Tensor& a, const Tensor& b, const Tensor& c) {
  Key k{int64_t(pass), get_num_threads(), s.groups, s.channels_last, s.plain, bias};
  for (const memory::dims* v : {&s.strides, &s.dilates, &s.pad_l, &s.pad_r})
    k.insert(k.end(), v->begin(), v->end());
  push_tensor(k, a);
  push_tensor(k, b);
  push_tensor(k, c);
  return k;
}

// Scratch memory for one call, from ember's caching allocator.
class ScratchBlock {
 public:
  explicit ScratchBlock(size_t bytes)
      : bytes_(bytes), ptr_(bytes ? cpu_allocator().allocate(bytes) : nullptr) {}
  ~ScratchBlock() {
    if (ptr_) cpu_allocator().deallocate(ptr_, bytes_);
  }
  ScratchBlock(const ScratchBlock&) = delete;
  ScratchBlock& operator=(const ScratchBlock&) = delete;
  char* at(size_t offset) const { return static_cast<char*>(ptr_) + offset; }

 private:
  size_t bytes_;
  void* ptr_;
};

// Runs a plan on the tensors' memory (`data[i]` for operand i), the bias pointer if any.
void execute(const Plan& p, std::initializer_list<void*> data, void* bias) {
  ScratchBlock block(p.bytes);
  dnnl::stream& stream = thread_stream();
  const dnnl::engine& eng = cpu_engine();
  std::unordered_map<int, memory> args;
  std::vector<memory> users(p.operands.size()), inners(p.operands.size());
  auto run_copy = [&](const Operand& op, const memory& from, const memory& to) {
    std::unordered_map<int, memory> a{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if (op.copy_scratch.get_size())
      a.emplace(DNNL_ARG_SCRATCHPAD, memory(op.copy_scratch, eng, block.at(p.scratch_offset)));
    op.copy.execute(stream, a);
  };
  size_t i = 0;
  for (void* ptr : data) {
    const Operand& op = p.operands[i];
    users[i] = memory(op.user, eng, ptr);
    if (op.reorder) {
      inners[i] = memory(op.inner, eng, block.at(op.offset));
      if (op.input) run_copy(op, users[i], inners[i]);
    }
    args.emplace(op.arg, op.reorder ? inners[i] : users[i]);
    ++i;
  }
  if (p.bias_arg) args.emplace(p.bias_arg, memory(p.bias, eng, bias));
  if (p.scratch.get_size())
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(p.scratch, eng, block.at(p.scratch_offset)));
  p.prim.execute(stream, args);
  for (size_t j = 0; j < p.operands.size(); ++j) {
    const Operand& op = p.operands[j];
    if (op.reorder && !op.input) run_copy(op, inners[j], users[j]);
  }
  stream.wait();
}

// Zeroes a tensor of up to 5 dims through its strides.
void zero_strided(const Tensor& t) {
  float* p = static_cast<float*>(t.data_ptr());
  if (t.is_contiguous()) {
    std::memset(p, 0, t.nbytes());
    return;
  }
  int64_t sz[5] = {1, 1, 1, 1, 1}, st[5] = {0, 0, 0, 0, 0};
  for (int64_t i = 0; i < t.dim(); ++i) {
    sz[i] = t.sizes()[i];
    st[i] = t.strides()[i];
  }
  for (int64_t a = 0; a < sz[0]; ++a)
    for (int64_t b = 0; b < sz[1]; ++b)
      for (int64_t c = 0; c < sz[2]; ++c)
        for (int64_t d = 0; d < sz[3]; ++d)
          for (int64_t e = 0; e < sz[4]; ++e)
            p[a * st[0] + b * st[1] + c * st[2] + d * st[3] + e * st[4]] = 0.0f;
}

// The set-up of one call. oneDNN wants dst = (src + pad_l + pad_r - extent) / stride + 1 with
// pad_r > -stride; pad_r is derived from the sizes. When the input has rows no output reads
// (a transposed convolution's output_padding at least the stride, which PyTorch allows with a
// larger dilation), `used` is how many it reads: the caller narrows the input to them.
struct Prepared {
  ConvSetup setup;
  int64_t used[3];
  bool trimmed = false;
};

Prepared prepare(
    const Tensor& x, const Tensor& w, const Tensor& y, const ConvGeometry& g, bool channels_last) {
  Prepared r;
  ConvSetup& s = r.setup;
  s.groups = g.groups;
  s.channels_last = channels_last;
  for (int64_t i = 0; i < g.spatial; ++i) {
    const int64_t in = x.sizes()[2 + i], out = y.sizes()[2 + i], k = w.sizes()[2 + i];
    const int64_t extent = g.dilation[i] * (k - 1) + 1;
    int64_t pad_r = (out - 1) * g.stride[i] + extent - in - g.pad_l[i];
    r.used[i] = in;
    if (pad_r <= -g.stride[i]) {
      r.used[i] = in + pad_r;
      pad_r = 0;
      r.trimmed = true;
    }
    s.strides.push_back(g.stride[i]);
    s.dilates.push_back(g.dilation[i] - 1);
    s.pad_l.push_back(g.pad_l[i]);
    s.pad_r.push_back(pad_r);
  }
  // A 1x1 convolution without stride or padding over NCHW data is one matrix product per image
  // (weights [O, C] @ x [C, H * W]): oneDNN's gemm-based kernel runs it on the NCHW data as it
  // is. Over large images that beats reordering to the blocked layout and back (1.7x for
  // 64 -> 256 channels at 56x56 on one thread); over small ones (14x14, 7x7) the blocked jit
  // kernel wins (0.8x). The threshold lies between 28x28 (about even) and 56x56.
  bool plain = !channels_last && g.groups == 1;
  int64_t pixels = 1;
  for (int64_t i = 0; i < g.spatial; ++i) {
    plain = plain && w.sizes()[2 + i] == 1 && g.stride[i] == 1 && g.pad_l[i] == 0;
    pixels *= x.sizes()[2 + i];
  }
  s.plain = plain && pixels >= 1024;
  return r;
}

Tensor narrowed(const Tensor& x, const Prepared& pr, int64_t spatial) {
  if (!pr.trimmed) return x;
  Tensor t = x;
  for (int64_t i = 0; i < spatial; ++i) t = t.narrow(2 + i, 0, pr.used[i]);
  return t;
}

// Channels-last activations go to oneDNN as they are (nhwc); see the top of the file.
bool use_channels_last(const Tensor& t, int64_t spatial) {
  return spatial >= 2 && dense_channels_last(t) && !dense_contiguous(t);
}

// Note [Winograd convolutions]
// 3x3 convolutions with stride 1 and dilation 1 (ResNet's, VGG's) can run Winograd's minimal
// filtering algorithm: oneDNN 2.6's F(4x4, 3x3) kernels (avx512_core; forward, backward data and
// backward weights) transform 6x6 input tiles and 3x3 filters so that each 4x4 output tile costs
// 36 multiplications per channel pair instead of 144. On this machine (batch 8, ResNet-50's
// shapes, one thread, per pass) that is 1.2-2.0x faster at 56x56 and 28x28 and 1.3-1.6x at
// 14x14 in all three passes and both layouts; at 7x7 the padded 8x8 of tiles wastes most of the
// work and it is 0.75-1.0x (forward 10.3 against 8.0 ms), so it runs from 14x14 outputs up.
// Accuracy: the transforms add rounding, so outputs and input gradients err by about 2e-6 of
// their largest value against float64 (the direct kernel: 3e-7 to 2e-6); weight gradients no
// more than the direct kernel's. Determinism: like the direct kernels, the forward and the input
// gradient give the same bits on one and two threads, the weight gradient does not (oneDNN
// splits its reduction by thread). PyTorch's GPU convolutions use Winograd by default too (cuDNN
// picks its Winograd algorithms); its CPU ones are direct. ember::set_allow_winograd(false)
// (ember.backends.cpu.allow_winograd = False) restores the direct kernel; the switch is part of
// the primitive cache key. Where oneDNN has no Winograd kernel (no avx512_core, channel counts it
// refuses) the direct kernel runs.
std::atomic<bool> g_allow_winograd{true};
constexpr int64_t kWinogradMinPixels = 14 * 14;
bool use_winograd(const Tensor& w, const Tensor& y, const ConvGeometry& g) {
  if (!allow_winograd() || g.spatial != 2 || g.groups != 1) return false;
  for (int64_t i = 0; i < 2; ++i)
    if (w.sizes()[2 + i] != 3 || g.stride[i] != 1 || g.dilation[i] != 1) return false;
  return y.sizes()[2] * y.sizes()[3] >= kWinogradMinPixels;
}

// Builds the Winograd plan when `winograd`, the direct one when that is not or oneDNN has no
// Winograd kernel for the case. Winograd's kernels take blocked activations (nChw16c), so
// channels-last tensors are reordered to it and back.
template <class Build>
std::shared_ptr<Plan> build_plan(bool winograd, const ConvSetup& s, const Build& build) {
  if (winograd) {
    ConvSetup ws = s;
    ws.alg = dnnl::algorithm::convolution_winograd;
    ws.channels_last = ws.plain = false;
    try {
      if (auto p = build(ws)) return p;
    } catch (const dnnl::error&) {
      // no Winograd kernel for these sizes: the direct one below
    }
  }
  return build(s);
}

// Runs a dnnl call, turning oneDNN's errors into ember's.
template <class F>
auto guarded(const char* what, const F& f) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    EMBER_FAIL("[", what, "] oneDNN failed: ", e.what(), " (status ", int(e.status), ")");
  }
}

}  // namespace

bool onednn_forward(
    const Tensor& y, const Tensor& x0, const Tensor& w, const Tensor* bias, const ConvGeometry& g) {
  sync_library_threads();
  const Prepared pr = prepare(x0, w, y, g, use_channels_last(y, g.spatial));
  const Tensor x = narrowed(x0, pr, g.spatial);
  const bool wino = use_winograd(w, y, g);
  Key key = make_key(Pass::Forward, pr.setup, bias != nullptr, x, w, y);
  key.push_back(wino);
  return guarded("convolution", [&] {
    const auto plan = plan_cache().get(key, [&] {
      return build_plan(wino, pr.setup, [&](const ConvSetup& s) {
        return build_forward(y, x, w, bias != nullptr, s);
      });
    });
    if (!plan) return false;
    execute(*plan, {x.data_ptr(), w.data_ptr(), y.data_ptr()}, bias ? bias->data_ptr() : nullptr);
    return true;
  });
}

namespace {

// A depthwise convolution (one input channel per group, one output per group) with stride 1:
// its input gradient is the forward convolution of dy with each channel's taps reversed and
// padding extent - 1 - pad on each side. oneDNN 2.6's channels-last depthwise forward is much
// faster than its backward data (144 channels at 56x56, batch 8: 1.3 against 2.0 ms), so this
// runs the forward. Returns false (nothing written) when the case does not fit.
bool depthwise_backward_data_as_forward(const Tensor& dx,
                                        const Tensor& dy,
                                        const Tensor& w,
                                        const ConvGeometry& g) {
  if (g.spatial != 2 || g.groups == 1 || w.sizes()[0] != g.groups || w.sizes()[1] != 1 ||
      !use_channels_last(dx, g.spatial))
    return false;
  ConvGeometry fg = g;
  for (int64_t i = 0; i < 2; ++i) {
    const int64_t extent = g.dilation[i] * (w.sizes()[2 + i] - 1) + 1;
    const int64_t in = dx.sizes()[2 + i], out = dy.sizes()[2 + i];
    const int64_t pad_r = out - in - g.pad_l[i] + extent - 1;  // the forward's
    if (g.stride[i] != 1 || g.pad_l[i] > extent - 1 || pad_r > extent - 1 || pad_r < 0)
      return false;
    fg.pad_l[i] = extent - 1 - g.pad_l[i];
  }
  const int64_t c = w.sizes()[0], kh = w.sizes()[2], kw = w.sizes()[3];
  // The reversed taps live in a buffer of this call's, seen as a tensor over borrowed memory
  // (kernels do not allocate tensors through the ops layer).
  std::vector<float> taps(size_t(c * kh * kw));
  const int64_t sizes[] = {c, 1, kh, kw}, strides[] = {kh * kw, kh * kw, kw, 1};
  const Tensor flipped(make_ref<TensorImpl>(
      make_ref<Storage>(taps.data(), taps.size() * sizeof(float), w.device(), ExternalDeleter{}),
      kFloat32, IntArrayRef(sizes, 4), IntArrayRef(strides, 4), 0));
  const float* src = static_cast<const float*>(w.data_ptr());
  float* dst = taps.data();
  const IntArrayRef st = w.strides();
  for (int64_t o = 0; o < c; ++o)
    for (int64_t a = 0; a < kh; ++a)
      for (int64_t b = 0; b < kw; ++b)
        dst[(o * kh + a) * kw + b] = src[o * st[0] + (kh - 1 - a) * st[2] + (kw - 1 - b) * st[3]];
  return onednn_forward(dx, dy, flipped, nullptr, fg);
}

}  // namespace

bool onednn_backward_data(const Tensor& dx0,
                          const Tensor& dy,
                          const Tensor& w,
                          const ConvGeometry& g) {
  if (depthwise_backward_data_as_forward(dx0, dy, w, g)) return true;
  sync_library_threads();
  const Prepared pr = prepare(dx0, w, dy, g, use_channels_last(dx0, g.spatial));
  const Tensor dx = narrowed(dx0, pr, g.spatial);
  const bool wino = use_winograd(w, dy, g);
  Key key = make_key(Pass::BackwardData, pr.setup, false, dx, w, dy);
  key.push_back(wino);
  return guarded("convolution backward", [&] {
    const auto plan = plan_cache().get(key, [&] {
      return build_plan(wino, pr.setup,
                        [&](const ConvSetup& s) { return build_backward_data(dx, dy, w, s); });
    });
    if (!plan) return false;
    if (pr.trimmed) zero_strided(dx0);  // the rows no output reads get no gradient
    execute(*plan, {dy.data_ptr(), w.data_ptr(), dx.data_ptr()}, nullptr);
    return true;
  });
}

bool onednn_backward_weight(
    const Tensor& dw, const Tensor* db, const Tensor& x0, const Tensor& dy, const ConvGeometry& g) {
  sync_library_threads();
  // oneDNN 2.6's channels-last weight gradient of a strided convolution with a kernel larger
  // than 1x1 runs 1.1-1.6x slower than its blocked one plus the reorders to it (3x3/2 at 128
  // channels, 56x56: 15.5 against 13.0 ms); stride 1, 1x1 kernels and depthwise (grouped)
  // convolutions are better as they are (depthwise 3x3/2 at 144 channels: 0.57 against 1.83).
  bool strided_window = false;
  if (g.groups == 1)
    for (int64_t i = 0; i < g.spatial; ++i)
      strided_window = strided_window || (g.stride[i] > 1 && dw.sizes()[2 + i] > 1);
  const Prepared pr = prepare(x0, dw, dy, g, use_channels_last(x0, g.spatial) && !strided_window);
  const Tensor x = narrowed(x0, pr, g.spatial);
  const bool wino = use_winograd(dw, dy, g);
  Key key = make_key(Pass::BackwardWeight, pr.setup, db != nullptr, x, dy, dw);
  key.push_back(wino);
  return guarded("convolution backward", [&] {
    const auto plan = plan_cache().get(key, [&] {
      return build_plan(wino, pr.setup, [&](const ConvSetup& s) {
        return build_backward_weight(dw, db != nullptr, x, dy, s);
      });
    });
    if (!plan) return false;
    execute(*plan, {x.data_ptr(), dy.data_ptr(), dw.data_ptr()}, db ? db->data_ptr() : nullptr);
    return true;
  });
}

}  // namespace ember::cpu::conv

namespace ember {
void set_allow_winograd(bool allow) {
  cpu::conv::g_allow_winograd.store(allow, std::memory_order_relaxed);
}
bool allow_winograd() { return cpu::conv::g_allow_winograd.load(std::memory_order_relaxed); }
}  // namespace ember
