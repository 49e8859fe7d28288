// The CUDA backend: device memory, copies between host and device, and fill.
//
// Status: compiled and linked whenever a CUDA toolkit is present, but not yet run on a GPU in
// ember's tests (the development machines have none). Op kernels, streams and a caching device
// allocator are future work; until then an op on a CUDA tensor raises "has no kernel for device".
#include <cuda_runtime.h>

#include "ember/backend/kernels.h"

namespace ember::cuda {
namespace {

void check(cudaError_t err, const char* what) {
  EMBER_CHECK(err == cudaSuccess, "[cuda] ", what, " failed: ", cudaGetErrorString(err));
}

// Plain cudaMalloc/cudaFree; the caching allocator of design.md section 6 replaces it later.
class DeviceAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    void* p = nullptr;
    if (nbytes) check(cudaMalloc(&p, nbytes), "cudaMalloc");
    return p;
  }
  void deallocate(void* ptr, size_t) override {
    if (ptr) cudaFree(ptr);
  }
  Device device() const override {
    int index = 0;
    cudaGetDevice(&index);
    return Device(DeviceType::CUDA, int8_t(index));
  }
};

// Copies between any two devices by unified addressing; the two tensors must be contiguous and
// of one dtype (conversions and strided copies need kernels that do not exist yet).
void copy_kernel(const Tensor& dst, const Tensor& src) {
  EMBER_CHECK(dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
                  dst.numel() == src.numel(),
              "[copy_] CUDA copies need contiguous tensors of the same dtype and size for now; "
              "got ",
              src.dtype(), " ", src.sizes(), " -> ", dst.dtype(), " ", dst.sizes());
  check(cudaMemcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDefault), "cudaMemcpy");
}

template <class T>
__global__ void fill_contiguous(T* out, int64_t n, T value) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

template <class T>
void launch_fill(const Tensor& dst, const Scalar& value) {
  const int64_t n = dst.numel();
  const int threads = 256;
  const int64_t blocks = (n + threads - 1) / threads;
  fill_contiguous<T>
      <<<unsigned(blocks), threads>>>(static_cast<T*>(dst.data_ptr()), n, value.to<T>());
  check(cudaGetLastError(), "fill kernel launch");
}

void fill_kernel(const Tensor& dst, const Scalar& value) {
  EMBER_CHECK(dst.is_contiguous(), "[fill_] CUDA fill needs a contiguous tensor for now");
  if (dst.numel() == 0) return;
  // A plain switch: nvcc mistranslates generic lambdas that launch kernels (dispatch_dtype).
  switch (dst.dtype()) {
#define EMBER_FILL_CASE(name, type, str) \
  case DType::name:                      \
    return launch_fill<type>(dst, value);
    EMBER_FORALL_DTYPES(EMBER_FILL_CASE)
#undef EMBER_FILL_CASE
  }
}

}  // namespace

void register_kernels(KernelTable& t) {
  static DeviceAllocator allocator;
  t.allocator = &allocator;
  t.elementwise.copy = &copy_kernel;
  t.elementwise.fill = &fill_kernel;
}

}  // namespace ember::cuda
