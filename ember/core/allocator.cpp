#include "ember/core/allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "ember/core/error.h"

namespace ember {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kSmallLimit = 1024;        // classes are multiples of 64 bytes up to here
constexpr size_t kHugeThreshold = 1 << 20;  // from here on, 2 MiB aligned for huge pages
constexpr size_t kHugeAlign = 2 << 20;
constexpr int kNumClasses = 16 + 54 * 8;

// Index of the free list for a size already rounded by round_size().
int class_index(size_t rounded) {
  if (rounded <= kSmallLimit) return int(rounded / kAlign) - 1;
  const int e = std::bit_width(rounded - 1) - 1;  // 2^e < rounded <= 2^(e+1)
  const size_t step = size_t(1) << (e - 3);
  const int k = int((rounded - (size_t(1) << e)) / step);  // 1..8
  return 16 + (e - 10) * 8 + (k - 1);
}

int64_t default_cache_limit() {
  if (const char* env = std::getenv("EMBER_CPU_CACHE_LIMIT_MB")) {
    char* end = nullptr;
    const long long mb = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0' && mb >= 0 && mb < (1LL << 40)) return int64_t(mb) << 20;
    std::fprintf(stderr, "ember: ignoring EMBER_CPU_CACHE_LIMIT_MB=%s (expected a number of MiB)\n",
                 env);
  }
  // Half of physical memory: high enough that a training loop never misses, low enough that a
  // long-running process cannot hoard the machine.
  return int64_t(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / 2;
}

struct State {
  std::mutex mu;
  std::vector<void*> free_lists[kNumClasses];
  MemoryStats stats;
  int64_t cached_bytes = 0;
  int64_t cache_limit = default_cache_limit();

  void* system_alloc(size_t rounded) {
    void* p = nullptr;
    const size_t align = rounded >= kHugeThreshold ? kHugeAlign : kAlign;
    if (posix_memalign(&p, align, rounded) != 0 || !p) throw std::bad_alloc();
    if (rounded >= kHugeThreshold) madvise(p, rounded, MADV_HUGEPAGE);
    return p;
  }

  void note_reserved(int64_t delta) {
    stats.reserved_bytes += delta;
    if (stats.reserved_bytes > stats.peak_reserved_bytes)
      stats.peak_reserved_bytes = stats.reserved_bytes;
  }
};

State& state() {
  // Leaked on purpose: tensors destroyed during static destruction still need it.
  static State* s = new State();
  return *s;
}

}  // namespace

size_t CachingCPUAllocator::round_size(size_t nbytes) {
  if (nbytes <= kSmallLimit) return nbytes == 0 ? kAlign : (nbytes + kAlign - 1) & ~(kAlign - 1);
  const int e = std::bit_width(nbytes - 1) - 1;
  const size_t step = size_t(1) << (e - 3);
  return (nbytes + step - 1) & ~(step - 1);
}

void* CachingCPUAllocator::allocate(size_t nbytes) {
  const size_t rounded = round_size(nbytes);
  State& s = state();
  std::unique_lock lock(s.mu);
  s.stats.num_allocs++;
  s.stats.allocated_bytes += int64_t(rounded);
  if (s.stats.allocated_bytes > s.stats.peak_allocated_bytes)
    s.stats.peak_allocated_bytes = s.stats.allocated_bytes;
  auto& list = s.free_lists[class_index(rounded)];
  if (!list.empty()) {
    void* p = list.back();
    list.pop_back();
    s.cached_bytes -= int64_t(rounded);
    s.stats.num_cache_hits++;
    return p;
  }
  s.stats.num_system_allocs++;
  s.note_reserved(int64_t(rounded));
  lock.unlock();
  try {
    return s.system_alloc(rounded);
  } catch (...) {
    // Out of memory: give the cache back to the system and try once more.
    empty_cache();
    try {
      return s.system_alloc(rounded);
    } catch (...) {
      std::lock_guard relock(s.mu);
      s.stats.allocated_bytes -= int64_t(rounded);
      s.stats.reserved_bytes -= int64_t(rounded);
      throw;
    }
  }
}

void CachingCPUAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  const size_t rounded = round_size(nbytes);
  State& s = state();
  std::unique_lock lock(s.mu);
  s.stats.allocated_bytes -= int64_t(rounded);
  if (s.cached_bytes + int64_t(rounded) <= s.cache_limit) {
    s.free_lists[class_index(rounded)].push_back(ptr);
    s.cached_bytes += int64_t(rounded);
    return;
  }
  s.stats.reserved_bytes -= int64_t(rounded);
  lock.unlock();
  std::free(ptr);
}

MemoryStats CachingCPUAllocator::stats() const {
  State& s = state();
  std::lock_guard lock(s.mu);
  return s.stats;
}

void CachingCPUAllocator::reset_peak_stats() {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.stats.peak_allocated_bytes = s.stats.allocated_bytes;
  s.stats.peak_reserved_bytes = s.stats.reserved_bytes;
}

void CachingCPUAllocator::empty_cache() {
  State& s = state();
  std::vector<void*> victims;
  {
    std::lock_guard lock(s.mu);
    for (auto& list : s.free_lists) {
      victims.insert(victims.end(), list.begin(), list.end());
      list.clear();
    }
    s.stats.reserved_bytes -= s.cached_bytes;
    s.cached_bytes = 0;
  }
  for (void* p : victims) std::free(p);
}

void CachingCPUAllocator::set_cache_limit(int64_t bytes) {
  EMBER_CHECK_VALUE(bytes >= 0, "[set_cache_limit] expected a limit >= 0 bytes, got ", bytes);
  {
    std::lock_guard lock(state().mu);
    state().cache_limit = bytes;
  }
  empty_cache();
}

int64_t CachingCPUAllocator::cache_limit() const {
  std::lock_guard lock(state().mu);
  return state().cache_limit;
}

CachingCPUAllocator& cpu_allocator() {
  static CachingCPUAllocator alloc;
  return alloc;
}

}  // namespace ember
