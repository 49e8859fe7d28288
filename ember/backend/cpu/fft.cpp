// CPU kernels of the Fourier transforms (kernels_fft.h): oneMKL's DFTI, as in PyTorch's CPU
// builds. docs/design/fft.md says why this library and how it is loaded.
//
// oneMKL is loaded at the first transform (backend/cpu/mkl.h): without it the transforms raise
// how to install it. Each plan is limited to ember's thread count. The declarations below are the
// stable C ABI of mkl_dfti.h (values unchanged since MKL 10), written here so that building ember
// needs no MKL headers.
#include <complex>
#include <cstdlib>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "ember/backend/cpu/mkl.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_fft.h"
#include "ember/core/parallel.h"

namespace ember::cpu {
namespace {

// mkl_dfti.h's configuration parameters and values used here.
enum : int {
  kDftiForwardScale = 4,
  kDftiBackwardScale = 5,
  kDftiNumberOfTransforms = 7,
  kDftiConjugateEvenStorage = 10,
  kDftiPlacement = 11,
  kDftiThreadLimit = 27,
  kDftiFwdDistance = 58,
  kDftiBwdDistance = 59,
  kDftiFwdStrides = 60,
  kDftiBwdStrides = 61,
  kDftiComplex = 32,
  kDftiReal = 33,
  kDftiSingle = 35,
  kDftiDouble = 36,
  kDftiComplexComplex = 39,
  kDftiNotInplace = 44,
};
using Handle = void*;
using MklLong = long;  // MKL_LONG on LP64 Linux

// The entry points, found once with dlsym.
struct Mkl {
  MklLong (*create_s_md)(Handle*, int domain, MklLong dims, ...);
  MklLong (*create_d_md)(Handle*, int domain, MklLong dims, ...);
  MklLong (*set_value)(Handle, int param, ...);
  MklLong (*commit)(Handle);
  MklLong (*forward)(Handle, void* in, ...);
  MklLong (*backward)(Handle, void* in, ...);
  MklLong (*free_descriptor)(Handle*);
  char* (*error_message)(MklLong);
  std::string error;  // why loading failed; empty when the entry points are set
};

template <class F>
void find(const char* name, F& fn, std::string& error) {
  fn = reinterpret_cast<F>(mkl_symbol(name));
  if (!fn && error.empty()) error = std::string("libmkl_rt has no ") + name;
}

Mkl load_mkl() {
  Mkl m{};
  m.error = mkl_runtime().error;
  if (!m.error.empty()) return m;
  find("DftiCreateDescriptor_s_md", m.create_s_md, m.error);
  find("DftiCreateDescriptor_d_md", m.create_d_md, m.error);
  find("DftiSetValue", m.set_value, m.error);
  find("DftiCommitDescriptor", m.commit, m.error);
  find("DftiComputeForward", m.forward, m.error);
  find("DftiComputeBackward", m.backward, m.error);
  find("DftiFreeDescriptor", m.free_descriptor, m.error);
  find("DftiErrorMessage", m.error_message, m.error);
  return m;
}

const Mkl& mkl() {
  static const Mkl m = load_mkl();
  EMBER_CHECK(m.error.empty(), "[fft] ", m.error);
  return m;
}

void check(MklLong status, const char* what) {
  EMBER_CHECK(status == 0, "[fft] oneMKL ", what, " failed: ", mkl().error_message(status));
}

// A committed DFTI descriptor for one layout: B transforms of k dims, contiguous, out of place.
// A plan's compute calls are serialised (MKL documents a descriptor shared by threads only as
// NUMBER_OF_USER_THREADS, which is deprecated); different plans run concurrently.
struct Plan {
  Handle handle = nullptr;
  std::mutex mutex;
  ~Plan() {
    if (handle) mkl().free_descriptor(&handle);
  }
};

// What a plan depends on: precision, domain (real or complex), the signal sizes (the real side's
// for a real domain), the batch, the scale and the thread limit.
using PlanKey = std::tuple<bool, bool, std::vector<int64_t>, int64_t, double, int>;

std::shared_ptr<Plan> make_plan(const PlanKey& key) {
  const auto& [dbl, real, sizes, batch, scale, threads] = key;
  const Mkl& m = mkl();
  std::vector<MklLong> lengths(sizes.begin(), sizes.end());
  auto plan = std::make_shared<Plan>();
  const int domain = real ? kDftiReal : kDftiComplex;
  const auto dims = MklLong(lengths.size());
  check(dbl ? m.create_d_md(&plan->handle, domain, dims, lengths.data())
            : m.create_s_md(&plan->handle, domain, dims, lengths.data()),
        "DftiCreateDescriptor");
  // Row-major strides of the forward (real or complex) side and of the backward (complex) side,
  // whose last dim is halved for a real domain; element 0 is the offset.
  std::vector<MklLong> fwd(lengths.size() + 1, 0), bwd(lengths.size() + 1, 0);
  MklLong fwd_n = 1, bwd_n = 1;
  for (size_t d = lengths.size(); d-- > 0;) {
    const MklLong cn = real && d + 1 == lengths.size() ? lengths[d] / 2 + 1 : lengths[d];
    fwd[d + 1] = fwd_n;
    bwd[d + 1] = bwd_n;
    fwd_n *= lengths[d];
    bwd_n *= cn;
  }
  Handle h = plan->handle;
  check(m.set_value(h, kDftiPlacement, kDftiNotInplace), "DftiSetValue(PLACEMENT)");
  check(m.set_value(h, kDftiNumberOfTransforms, MklLong(batch)), "DftiSetValue(TRANSFORMS)");
  check(m.set_value(h, kDftiFwdDistance, fwd_n), "DftiSetValue(FWD_DISTANCE)");
  check(m.set_value(h, kDftiBwdDistance, bwd_n), "DftiSetValue(BWD_DISTANCE)");
  check(m.set_value(h, kDftiFwdStrides, fwd.data()), "DftiSetValue(FWD_STRIDES)");
  check(m.set_value(h, kDftiBwdStrides, bwd.data()), "DftiSetValue(BWD_STRIDES)");
  if (real) {
    check(m.set_value(h, kDftiConjugateEvenStorage, kDftiComplexComplex),
          "DftiSetValue(CONJUGATE_EVEN_STORAGE)");
  }
  // The scale is a float for single precision (DFTI reads it as the descriptor's precision).
  if (dbl) {
    check(m.set_value(h, kDftiForwardScale, scale), "DftiSetValue(FORWARD_SCALE)");
    check(m.set_value(h, kDftiBackwardScale, scale), "DftiSetValue(BACKWARD_SCALE)");
  } else {
    check(m.set_value(h, kDftiForwardScale, float(scale)), "DftiSetValue(FORWARD_SCALE)");
    check(m.set_value(h, kDftiBackwardScale, float(scale)), "DftiSetValue(BACKWARD_SCALE)");
  }
  check(m.set_value(h, kDftiThreadLimit, MklLong(threads)), "DftiSetValue(THREAD_LIMIT)");
  check(m.commit(h), "DftiCommitDescriptor");
  return plan;
}

// Committing a descriptor costs far more than a small transform, so plans are cached, as
// PyTorch's are: least recently used out first, at most kCachedPlans.
constexpr size_t kCachedPlans = 64;
constexpr int64_t kThreadedElements = int64_t(1) << 18;

std::shared_ptr<Plan> plan_for(const Tensor& real_side, bool real, double scale) {
  // real_side: the tensor with the signal's full sizes (the real one of r2c/c2r, either of c2c).
  std::vector<int64_t> sizes(real_side.sizes().begin() + 1, real_side.sizes().end());
  // Below about 2^18 elements oneMKL's threads cost more than they save (2-core EPYC: a
  // 2^12-point transform took 9 us on one thread and 20 us on two), so small work gets one.
  const int threads = real_side.numel() < kThreadedElements ? 1 : get_num_threads();
  const bool dbl = real_side.dtype() == kFloat64 || real_side.dtype() == kComplex128;
  PlanKey key{dbl, real, std::move(sizes), real_side.sizes()[0], scale, threads};
  // Never destroyed: at exit oneMKL may be finalised before ember's statics, and freeing a
  // descriptor then would call into it.
  using Lru = std::list<std::pair<PlanKey, std::shared_ptr<Plan>>>;  // most recent first
  static auto* mutex_ = new std::mutex;
  static auto* lru_ = new Lru;
  static auto* index_ = new std::map<PlanKey, Lru::iterator>;
  std::mutex& mutex = *mutex_;
  Lru& lru = *lru_;
  auto& index = *index_;
  {
    std::lock_guard lock(mutex);
    if (auto it = index.find(key); it != index.end()) {
      lru.splice(lru.begin(), lru, it->second);
      return it->second->second;
    }
  }
  std::shared_ptr<Plan> plan = make_plan(key);  // outside the lock: committing is slow
  std::lock_guard lock(mutex);
  if (auto it = index.find(key); it != index.end()) return it->second->second;
  lru.emplace_front(key, plan);
  index[key] = lru.begin();
  if (lru.size() > kCachedPlans) {
    index.erase(lru.back().first);
    lru.pop_back();
  }
  return plan;
}

void run(const std::shared_ptr<Plan>& plan, bool forward, const Tensor& out, const Tensor& in) {
  const Mkl& m = mkl();
  sync_library_threads();
  std::lock_guard lock(plan->mutex);
  // DFTI takes a non-const input pointer; out of place it does not write there.
  void* src = const_cast<void*>(in.data_ptr());
  check(forward ? m.forward(plan->handle, src, out.data_ptr())
                : m.backward(plan->handle, src, out.data_ptr()),
        forward ? "DftiComputeForward" : "DftiComputeBackward");
}

bool empty_batch(const Tensor& t) { return t.numel() == 0; }

void c2c_kernel(const Tensor& out, const Tensor& in, bool forward, double scale) {
  if (empty_batch(out)) return;
  run(plan_for(in, false, scale), forward, out, in);
}

void r2c_kernel(const Tensor& out, const Tensor& in, double scale) {
  if (empty_batch(out)) return;
  run(plan_for(in, true, scale), true, out, in);
}

void c2r_kernel(const Tensor& out, const Tensor& in, double scale) {
  if (empty_batch(out)) return;
  run(plan_for(out, true, scale), false, out, in);
}

const FftKernels kFftKernels = {&c2c_kernel, &r2c_kernel, &c2r_kernel};

}  // namespace

void register_fft(KernelTable& t) { t.fft = &kFftKernels; }

}  // namespace ember::cpu
