#include "ember/core/allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/error.h"

namespace ember {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kSmallLimit = 1024;      // classes are multiples of 64 bytes up to here
constexpr size_t kLargeMin = 1 << 20;     // requests above this come from the large pool
constexpr size_t kLargeGrain = 64 << 10;  // large blocks are multiples of 64 KiB
constexpr size_t kArenaAlign = 2 << 20;   // large-pool arenas: 2 MiB aligned (huge pages)
constexpr int kNumClasses = 16 + 10 * 8;  // 64 B .. 1 KiB, then 8 per power of two to 1 MiB

size_t round_up(size_t n, size_t grain) { return (n + grain - 1) / grain * grain; }

// Index of the free list for a size already rounded by round_size() (at most kLargeMin).
int class_index(size_t rounded) {
  if (rounded <= kSmallLimit) return int(rounded / kAlign) - 1;
  const int e = std::bit_width(rounded - 1) - 1;  // 2^e < rounded <= 2^(e+1)
  const size_t step = size_t(1) << (e - 3);
  const int k = int((rounded - (size_t(1) << e)) / step);  // 1..8
  return 16 + (e - 10) * 8 + (k - 1);
}

// The size of class `c`: the inverse of class_index.
size_t class_size(int c) {
  if (c < 16) return size_t(c + 1) * kAlign;
  const int e = 10 + (c - 16) / 8, k = (c - 16) % 8 + 1;
  return (size_t(1) << e) + size_t(k) * (size_t(1) << (e - 3));
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

// ---------------------------------------------------------------------------------------------
// Note [Large pool]
// Requests above 1 MiB (activations, gradients, weights, oneDNN scratch) come from a heap of our
// own: large virtual ranges ("arenas") that blocks tile from the bottom up to the arena's "top".
// A request takes the free block at the lowest address among those large enough (address-ordered
// first fit), split when the rest is 1 MiB or more; failing that, the arena grows at its top
// (merging a free block that ends at the top), and only when it is full does a new arena come from
// the system. A freed block merges with free neighbours. Because all blocks share one address
// range, any two adjacent free blocks merge, whatever sizes they were allocated with: a training
// step that frees forward activations and allocates gradients of other sizes reuses the same pages,
// and the memory held stays close to the peak of live tensors. (A free list per size, or separate
// segments per request, cannot merge across sizes: VGG-19's step held 2x its peak that way.)
//
// The first arena reserves address space only: mmap(MAP_NORESERVE) of kArenaReserve bytes costs
// no memory until pages are touched, and its pages are marked for transparent huge pages. Where
// the system refuses such a reservation (vm.overcommit_memory=2, a ulimit on address space), an
// arena is mapped per request, of exactly its size: correct, but blocks of different arenas do
// not merge. A cached block keeps its pages; empty_cache() and the cache limit give them back
// with madvise(MADV_DONTNEED) (the block stays in the heap, "released", and is faulted in again
// when reused). Statistics: reserved = allocated + cached, where cached counts free blocks not
// released; a released block merged with a cached neighbour counts as cached again (its pages
// will come back when it is used), so reserved may overstate what is resident, never understate.
constexpr size_t kArenaReserve = size_t(1) << 40;  // 1 TiB of address space (of 128 TiB)

struct Arena;

// A piece of an arena. The blocks of one arena tile [base, top), linked by address.
struct Block {
  char* ptr;
  size_t size;
  Arena* arena;
  bool free = false;
  bool released = false;  // free, and its pages given back to the system
  Block* prev = nullptr;
  Block* next = nullptr;
};

struct Arena {
  char* base;
  size_t capacity;
  size_t used = 0;        // [base, base + used) is tiled by blocks
  Block* last = nullptr;  // the block that ends at base + used
};

// The free set's order: by size (so that lower_bound finds the blocks large enough), then by
// address.
struct BySize {
  bool operator()(const Block* a, const Block* b) const {
    return a->size != b->size ? a->size < b->size : a->ptr < b->ptr;
  }
};

void add_reserved(MemoryStats& stats, int64_t bytes) {
  stats.reserved_bytes += bytes;
  if (stats.reserved_bytes > stats.peak_reserved_bytes)
    stats.peak_reserved_bytes = stats.reserved_bytes;
}

// Maps `bytes` of address space aligned to kArenaAlign; nullptr if the system refuses.
char* map_arena(size_t bytes, bool reserve_only) {
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (reserve_only ? MAP_NORESERVE : 0);
  const size_t span = bytes + kArenaAlign;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  char* start = static_cast<char*>(raw);
  char* base = reinterpret_cast<char*>(round_up(reinterpret_cast<uintptr_t>(start), kArenaAlign));
  if (base > start) munmap(start, size_t(base - start));
  if (base + bytes < start + span) munmap(base + bytes, size_t(start + span - (base + bytes)));
  madvise(base, bytes, MADV_HUGEPAGE);
  return base;
}

class LargePool {
 public:
  // Returns a block of at least `size` bytes (a multiple of kLargeGrain; the block may be up to
  // kLargeMin larger), or nullptr if the system has no memory. `from_cache` says whether a free
  // block served it.
  Block* take(size_t size, MemoryStats& stats, int64_t& cached, bool& from_cache) {
    // First fit by address: of the free blocks large enough (those from lower_bound on), the
    // one at the lowest address. Live blocks stay packed toward the bottom of the arena and
    // the free space toward the top, where it merges and serves the next large request. VGG-19's
    // step reserved 2.76 GB for its 2.58 GB peak so; taking the smallest block that fits (best
    // fit) reserved 3.03 GB. The scan is over the free blocks only: tens, not thousands.
    Block probe{nullptr, size, nullptr};
    auto it = free_.lower_bound(&probe);
    for (auto j = it; j != free_.end(); ++j)
      if ((*j)->ptr < (*it)->ptr) it = j;
    from_cache = it != free_.end();
    Block* b = nullptr;
    if (from_cache) {
      b = *it;
      free_.erase(it);
      split(b, size);
      unfree(b, stats, cached);
    } else {
      b = grow(size, stats, cached);
      if (!b) return nullptr;
    }
    b->free = false;
    live_.emplace(b->ptr, b);
    return b;
  }

  // The block handed out at `ptr` (nullptr if none).
  Block* find(void* ptr) const {
    auto it = live_.find(ptr);
    return it == live_.end() ? nullptr : it->second;
  }

  void give_back(Block* b, MemoryStats& stats, int64_t& cached) {
    live_.erase(b->ptr);
    b->free = true;
    cached += int64_t(b->size);
    if (b->prev && b->prev->free) b = merge(b->prev, b, stats, cached);
    if (b->next && b->next->free) b = merge(b, b->next, stats, cached);
    free_.insert(b);
  }

  // Gives the pages of free blocks back to the system, largest first, until the cache holds at
  // most `limit` bytes (every free block for limit -1).
  void release(int64_t limit, MemoryStats& stats, int64_t& cached) {
    for (auto it = free_.rbegin(); it != free_.rend() && cached > limit; ++it) {
      Block* b = *it;
      if (b->released) continue;
      madvise(b->ptr, b->size, MADV_DONTNEED);  // blocks are whole pages: see kLargeGrain
      b->released = true;
      cached -= int64_t(b->size);
      stats.reserved_bytes -= int64_t(b->size);
    }
  }

 private:
  // `b` leaves the free set: its bytes stop counting as cached, or, released, start counting as
  // reserved again (its pages come back as they are touched).
  static void unfree(Block* b, MemoryStats& stats, int64_t& cached) {
    if (b->released) {
      add_reserved(stats, int64_t(b->size));
      b->released = false;
    } else {
      cached -= int64_t(b->size);
    }
  }

  // Cuts `b` (just taken out of the free set) to `size` bytes when the rest is worth a block of
  // its own (at least kLargeMin, the smallest large request). The rest goes back to the free
  // set as it was (cached or released); the statistics do not change.
  void split(Block* b, size_t size) {
    if (b->size - size < kLargeMin) return;
    Block* rest = new Block{b->ptr + size, b->size - size, b->arena, true, b->released, b, b->next};
    if (b->next) b->next->prev = rest;
    if (b->arena->last == b) b->arena->last = rest;
    b->next = rest;
    b->size = size;
    free_.insert(rest);
  }

  // Merges two adjacent free blocks (the left one may be in the free set, the right one may not
  // be); returns the survivor, not in the free set, counted as cached.
  Block* merge(Block* left, Block* right, MemoryStats& stats, int64_t& cached) {
    free_.erase(left);
    free_.erase(right);
    for (Block* b : {left, right}) {
      if (!b->released) continue;
      cached += int64_t(b->size);  // counted again: see Note [Large pool]
      add_reserved(stats, int64_t(b->size));
    }
    left->released = false;
    left->size += right->size;
    left->next = right->next;
    if (right->next) right->next->prev = left;
    if (left->arena->last == right) left->arena->last = left;
    delete right;
    return left;
  }

  // A block of `size` bytes at the top of an arena: grows the free block that ends at the top,
  // or appends one; maps a new arena when none has room.
  Block* grow(size_t size, MemoryStats& stats, int64_t& cached) {
    for (Arena* a : arenas_) {
      Block* last = a->last;
      const size_t have = last && last->free ? last->size : 0;
      if (a->capacity - a->used < size - have) continue;
      a->used += size - have;
      if (have) {
        free_.erase(last);
        unfree(last, stats, cached);
        last->size = size;
        add_reserved(stats, int64_t(size - have));
        return last;
      }
      return append(a, size, stats);
    }
    const size_t bytes = round_up(size, kArenaAlign);
    Arena* a = nullptr;
    if (!reservation_refused_) {
      if (char* base = map_arena(kArenaReserve, true))
        a = new Arena{base, kArenaReserve};
      else
        reservation_refused_ = true;
    }
    if (!a) {
      char* base = map_arena(bytes, false);
      if (!base) return nullptr;
      a = new Arena{base, bytes};
    }
    arenas_.push_back(a);
    a->used = size;
    return append(a, size, stats);
  }

  static Block* append(Arena* a, size_t size, MemoryStats& stats) {
    char* at = a->base + a->used - size;
    Block* b = new Block{at, size, a, false, false, a->last, nullptr};
    if (a->last) a->last->next = b;
    a->last = b;
    add_reserved(stats, int64_t(size));
    return b;
  }

  std::set<Block*, BySize> free_;
  std::unordered_map<void*, Block*> live_;
  std::vector<Arena*> arenas_;
  bool reservation_refused_ = false;
};

struct State {
  std::mutex mu;
  std::vector<void*> free_lists[kNumClasses];  // small pool: one free list per size class
  LargePool large;
  MemoryStats stats;
  int64_t cached_bytes = 0;  // free bytes of both pools: reserved - allocated
  int64_t cache_limit = default_cache_limit();

  void note_allocated(int64_t delta) {
    stats.allocated_bytes += delta;
    if (stats.allocated_bytes > stats.peak_allocated_bytes)
      stats.peak_allocated_bytes = stats.allocated_bytes;
  }
  // Returns the small pool's cached blocks (to free after unlocking) and releases the large
  // pool's cached pages.
  std::vector<void*> drop_cache() {
    std::vector<void*> victims;
    for (int c = 0; c < kNumClasses; ++c) {
      auto& list = free_lists[c];
      const int64_t bytes = int64_t(list.size() * class_size(c));
      cached_bytes -= bytes;
      stats.reserved_bytes -= bytes;
      victims.insert(victims.end(), list.begin(), list.end());
      list.clear();
    }
    large.release(-1, stats, cached_bytes);
    return victims;
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
  if (nbytes > kLargeMin) return round_up(nbytes, kLargeGrain);
  const int e = std::bit_width(nbytes - 1) - 1;
  const size_t step = size_t(1) << (e - 3);
  return (nbytes + step - 1) & ~(step - 1);
}

void* CachingCPUAllocator::allocate(size_t nbytes) {
  const size_t rounded = round_size(nbytes);
  State& s = state();
  std::unique_lock lock(s.mu);
  s.stats.num_allocs++;
  if (rounded > kLargeMin) {
    bool hit = false;
    Block* b = s.large.take(rounded, s.stats, s.cached_bytes, hit);
    if (!b) {  // out of memory: give the cache back to the system and try once more
      std::vector<void*> victims = s.drop_cache();
      for (void* v : victims) std::free(v);
      b = s.large.take(rounded, s.stats, s.cached_bytes, hit);
      if (!b) throw std::bad_alloc();
    }
    (hit ? s.stats.num_cache_hits : s.stats.num_system_allocs)++;
    s.note_allocated(int64_t(b->size));
    return b->ptr;
  }
  auto& list = s.free_lists[class_index(rounded)];
  if (!list.empty()) {
    void* p = list.back();
    list.pop_back();
    s.cached_bytes -= int64_t(rounded);
    s.stats.num_cache_hits++;
    s.note_allocated(int64_t(rounded));
    return p;
  }
  s.stats.num_system_allocs++;
  lock.unlock();
  void* p = nullptr;
  if (posix_memalign(&p, kAlign, rounded) != 0 || !p) {
    empty_cache();  // out of memory: give the cache back to the system and try once more
    if (posix_memalign(&p, kAlign, rounded) != 0 || !p) throw std::bad_alloc();
  }
  lock.lock();
  add_reserved(s.stats, int64_t(rounded));
  s.note_allocated(int64_t(rounded));
  return p;
}

void CachingCPUAllocator::deallocate(void* ptr, size_t nbytes) {
  if (!ptr) return;
  const size_t rounded = round_size(nbytes);
  State& s = state();
  std::unique_lock lock(s.mu);
  if (rounded > kLargeMin) {
    Block* b = s.large.find(ptr);
    EMBER_CHECK(b, "[CachingCPUAllocator] freeing a block it did not hand out");
    s.stats.allocated_bytes -= int64_t(b->size);
    s.large.give_back(b, s.stats, s.cached_bytes);
    if (s.cached_bytes > s.cache_limit) s.large.release(s.cache_limit, s.stats, s.cached_bytes);
    return;
  }
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
    victims = s.drop_cache();
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
