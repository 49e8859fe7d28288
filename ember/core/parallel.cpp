#include "ember/core/parallel.h"

#include <omp.h>

#include <atomic>
#include <exception>
#include <mutex>

#include "ember/core/error.h"

namespace ember {

namespace {
// One number for the process, as torch.set_num_threads (omp_set_num_threads alone would only
// change the calling thread's setting). 0 until first read: then OpenMP's default.
std::atomic<int> num_threads{0};
}  // namespace

int get_num_threads() {
  int n = num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = omp_get_max_threads();
    num_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(int n) {
  EMBER_CHECK_VALUE(n > 0, "[set_num_threads] expected a positive number of threads, got ", n);
  num_threads.store(n, std::memory_order_relaxed);
  omp_set_num_threads(n);
}

void sync_library_threads() {
  const int n = get_num_threads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
}

bool in_parallel_region() { return omp_in_parallel(); }

namespace detail {

void parallel_run(int64_t nchunks, void (*fn)(void*, int64_t, int64_t), void* ctx) {
  // Exceptions must not cross the OpenMP region: keep the first and rethrow after it.
  std::exception_ptr error;
  std::mutex mu;
#pragma omp parallel num_threads(int(nchunks))
  {
    const int64_t t = omp_get_thread_num();
    const int64_t nt = omp_get_num_threads();
    const int64_t c0 = nchunks * t / nt;
    const int64_t c1 = nchunks * (t + 1) / nt;
    try {
      fn(ctx, c0, c1);
    } catch (...) {
      std::lock_guard lock(mu);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace detail
}  // namespace ember
