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

// Caching CPU allocator (docs/design/memory.md). Freed memory is kept and handed out again, so
// that after a training loop's first iteration its buffers cost no page faults and no system
// calls. Two pools:
// - small requests (up to 1 MiB) round up to a size class (multiples of 64 bytes up to 1 KiB,
//   then 8 classes per power of two, so at most 12.5% is wasted); a freed block goes back to its
//   class's free list and serves the next request of that class. 64-byte aligned.
// - large requests (above 1 MiB) round up to 64 KiB and take the lowest free block that fits in the
//   large pool, split when the rest is 1 MiB or more; freed blocks merge with free neighbours.
//   The blocks tile one large reserved address range (an arena, 2 MiB aligned and marked for
//   transparent huge pages), which grows at its top (Note [Large pool]). Splitting and merging let
//   one buffer serve requests of other sizes later, so the memory a program holds stays close to
//   its peak of live tensors (a free list per size would hold the peak of each size at once: twice
//   as much for VGG-19's training step).
// Thread safe (one mutex).
class CachingCPUAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override;
  void deallocate(void* ptr, size_t nbytes) override;
  Device device() const override { return kCPU; }

  MemoryStats stats() const;
  void reset_peak_stats();
  // Returns every cached block to the system (a large-pool segment only when all of it is free).
  void empty_cache();
  // Cached bytes above this limit are returned to the system as blocks are freed.
  void set_cache_limit(int64_t bytes);
  int64_t cache_limit() const;

  // The block size `nbytes` rounds up to (a large request may get a block up to 1 MiB larger).
  static size_t round_size(size_t nbytes);
};

// The process-wide CPU allocator every CPU tensor uses.
CachingCPUAllocator& cpu_allocator();

}  // namespace ember
