// Allocators and the caching CPU allocator (docs/design/memory.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/core/device.h"

namespace ember {

// Memory statistics of one allocator, in bytes. "allocated" is held by live tensors (rounded up
// to the allocator's block size), "reserved" is allocated plus blocks kept in the cache.
struct MemoryStats {
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = 0;
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t num_allocs = 0;         // calls to allocate()
  int64_t num_cache_hits = 0;     // of which served from the cache
  int64_t num_system_allocs = 0;  // of which went to the system
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns at least `nbytes` bytes (never null; throws on failure). `nbytes` may be 0.
  virtual void* allocate(size_t nbytes) = 0;
  // `nbytes` is the size passed to allocate().
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  virtual Device device() const = 0;
};

// Caching CPU allocator. Blocks are 64-byte aligned and rounded up to a size class (multiples of
// 64 bytes up to 1 KiB, then 8 classes per power of two, so at most 12.5% is wasted). A freed
// block goes back to its class's free list and the next request of that class reuses it: after
// the first training iteration the same buffers are handed out again, with no page faults and
// no system calls. Blocks of 1 MiB and more are 2 MiB aligned and marked for transparent huge
// pages. Thread safe (one mutex).
class CachingCPUAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  Device device() const override { return kCPU; }

  MemoryStats stats() const;
  void reset_peak_stats();
  // Returns every cached block to the system.
  void empty_cache();
  // Cached bytes above this limit are returned to the system as blocks are freed.
  void set_cache_limit(int64_t bytes);
  int64_t cache_limit() const;

  // The size class `nbytes` rounds up to.
  static size_t round_size(size_t nbytes);
};

// The process-wide CPU allocator every CPU tensor uses.
CachingCPUAllocator& cpu_allocator();

}  // namespace ember
