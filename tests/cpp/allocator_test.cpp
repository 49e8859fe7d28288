// The caching CPU allocator: size classes, alignment, reuse, statistics.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::CachingCPUAllocator;
using ember::MemoryStats;
using ember::Tensor;

bool aligned(const void* p, size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

// Starts every test with an empty cache, so that allocations of a fresh size go to the system.
class Allocator : public ::testing::Test {
 protected:
  void SetUp() override { alloc.empty_cache(); }
  void TearDown() override { alloc.empty_cache(); }
  CachingCPUAllocator& alloc = ember::cpu_allocator();
};

TEST(AllocatorRoundSize, SmallSizesAreMultiplesOf64) {
  EXPECT_EQ(CachingCPUAllocator::round_size(0), 64u);
  EXPECT_EQ(CachingCPUAllocator::round_size(1), 64u);
  EXPECT_EQ(CachingCPUAllocator::round_size(64), 64u);
  EXPECT_EQ(CachingCPUAllocator::round_size(65), 128u);
  EXPECT_EQ(CachingCPUAllocator::round_size(1000), 1024u);
  EXPECT_EQ(CachingCPUAllocator::round_size(1024), 1024u);
}

TEST(AllocatorRoundSize, LargeSizesUseEightClassesPerPowerOfTwo) {
  EXPECT_EQ(CachingCPUAllocator::round_size(1025), 1152u);  // 1024 + 1024/8
  EXPECT_EQ(CachingCPUAllocator::round_size(1152), 1152u);
  EXPECT_EQ(CachingCPUAllocator::round_size(1153), 1280u);
  EXPECT_EQ(CachingCPUAllocator::round_size(2048), 2048u);
  EXPECT_EQ(CachingCPUAllocator::round_size(2049), 2304u);
  EXPECT_EQ(CachingCPUAllocator::round_size(5000), 5120u);
  EXPECT_EQ(CachingCPUAllocator::round_size(size_t(1) << 20), size_t(1) << 20);
}

TEST(AllocatorRoundSize, LargeSizesRoundTo64KiB) {
  const size_t mib = size_t(1) << 20, grain = size_t(64) << 10;
  EXPECT_EQ(CachingCPUAllocator::round_size(mib + 1), mib + grain);
  EXPECT_EQ(CachingCPUAllocator::round_size(mib + grain), mib + grain);
  EXPECT_EQ(CachingCPUAllocator::round_size(100 * mib + 7), 100 * mib + grain);
}

TEST(AllocatorRoundSize, WastesAtMostOneEighth) {
  for (size_t n = 1025; n < (size_t(1) << 22); n = n * 5 / 4 + 7) {
    const size_t r = CachingCPUAllocator::round_size(n);
    EXPECT_GE(r, n);
    EXPECT_LE(r - n, n / 8) << n;
    EXPECT_EQ(r % 64, 0u) << n;
    EXPECT_EQ(CachingCPUAllocator::round_size(r), r) << n;  // a class rounds to itself
  }
}

TEST_F(Allocator, BlocksAre64ByteAlignedAndLargeOnes2MiBAligned) {
  for (size_t n : {size_t(0), size_t(1), size_t(100), size_t(5000), size_t(70000)}) {
    void* p = alloc.allocate(n);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(aligned(p, 64)) << n;
    alloc.deallocate(p, n);
  }
  const size_t big = size_t(3) << 20;
  void* p = alloc.allocate(big);
  EXPECT_TRUE(aligned(p, size_t(64) << 10));  // large blocks: 64 KiB granules of an arena
  alloc.deallocate(p, big);
}

TEST_F(Allocator, FreedBlockIsReusedForTheSameClass) {
  void* p = alloc.allocate(3000);
  alloc.deallocate(p, 3000);
  const MemoryStats before = alloc.stats();
  void* q = alloc.allocate(2900);  // 2900 and 3000 both round to 3072
  EXPECT_EQ(q, p);
  const MemoryStats after = alloc.stats();
  EXPECT_EQ(after.num_cache_hits, before.num_cache_hits + 1);
  EXPECT_EQ(after.num_system_allocs, before.num_system_allocs);
  EXPECT_EQ(after.reserved_bytes, before.reserved_bytes);
  alloc.deallocate(q, 2900);
}

TEST_F(Allocator, StatsTrackAllocatedReservedAndPeak) {
  const MemoryStats s0 = alloc.stats();
  EXPECT_EQ(s0.reserved_bytes, s0.allocated_bytes);  // empty cache
  alloc.reset_peak_stats();

  void* a = alloc.allocate(5000);  // 5120
  const MemoryStats s1 = alloc.stats();
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes + 5120);
  EXPECT_EQ(s1.reserved_bytes, s0.reserved_bytes + 5120);
  EXPECT_EQ(s1.num_allocs, s0.num_allocs + 1);
  EXPECT_EQ(s1.num_system_allocs, s0.num_system_allocs + 1);
  EXPECT_EQ(s1.num_cache_hits, s0.num_cache_hits);

  void* b = alloc.allocate(100);  // 128
  alloc.deallocate(a, 5000);
  const MemoryStats s2 = alloc.stats();
  EXPECT_EQ(s2.allocated_bytes, s0.allocated_bytes + 128);
  EXPECT_EQ(s2.reserved_bytes, s0.reserved_bytes + 5120 + 128);  // a is cached, not freed
  EXPECT_EQ(s2.peak_allocated_bytes, s0.allocated_bytes + 5120 + 128);
  EXPECT_EQ(s2.peak_reserved_bytes, s0.reserved_bytes + 5120 + 128);

  void* c = alloc.allocate(4800);  // same class as a: a cache hit
  const MemoryStats s3 = alloc.stats();
  EXPECT_EQ(c, a);
  EXPECT_EQ(s3.num_cache_hits, s2.num_cache_hits + 1);
  EXPECT_EQ(s3.reserved_bytes, s2.reserved_bytes);

  alloc.deallocate(b, 100);
  alloc.deallocate(c, 4800);
  EXPECT_EQ(alloc.stats().allocated_bytes, s0.allocated_bytes);
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes + 5120 + 128);
  alloc.empty_cache();
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes);

  alloc.reset_peak_stats();
  EXPECT_EQ(alloc.stats().peak_allocated_bytes, s0.allocated_bytes);
}

TEST_F(Allocator, EmptyCacheReleasesReservedBytes) {
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(alloc.allocate(10000));  // 10240 each
  const int64_t held = alloc.stats().reserved_bytes;
  for (void* p : blocks) alloc.deallocate(p, 10000);
  EXPECT_EQ(alloc.stats().reserved_bytes, held);
  alloc.empty_cache();
  EXPECT_EQ(alloc.stats().reserved_bytes, held - 4 * 10240);
  // After empty_cache the next allocation goes to the system again.
  const int64_t system = alloc.stats().num_system_allocs;
  void* p = alloc.allocate(10000);
  EXPECT_EQ(alloc.stats().num_system_allocs, system + 1);
  alloc.deallocate(p, 10000);
}

TEST_F(Allocator, CacheLimitZeroFreesImmediately) {
  const int64_t limit = alloc.cache_limit();
  alloc.set_cache_limit(0);
  const int64_t reserved = alloc.stats().reserved_bytes;
  void* p = alloc.allocate(20000);
  EXPECT_EQ(alloc.stats().reserved_bytes, reserved + 20480);
  alloc.deallocate(p, 20000);
  EXPECT_EQ(alloc.stats().reserved_bytes, reserved);
  alloc.set_cache_limit(limit);
  EXPECT_EQ(alloc.cache_limit(), limit);
  EXPECT_EMBER_ERROR(alloc.set_cache_limit(-1), ember::ErrorKind::Value, "[set_cache_limit]");
}

TEST_F(Allocator, TensorStorageReturnsToCacheWhenLastHandleDies) {
  const MemoryStats s0 = alloc.stats();
  void* data = nullptr;
  {
    Tensor t = ember::empty({1000});  // 4000 bytes -> 4096
    data = t.data_ptr();
    EXPECT_EQ(alloc.stats().allocated_bytes, s0.allocated_bytes + 4096);
    Tensor v = t.view({10, 100});
    t = Tensor();
    // The view keeps the storage alive.
    EXPECT_EQ(alloc.stats().allocated_bytes, s0.allocated_bytes + 4096);
  }
  EXPECT_EQ(alloc.stats().allocated_bytes, s0.allocated_bytes);
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes + 4096);
  Tensor u = ember::zeros({1000});
  EXPECT_EQ(u.data_ptr(), data);
  EXPECT_EQ(alloc.stats().num_cache_hits, s0.num_cache_hits + 1);
}

// The large pool (requests above 1 MiB): first fit by address, splitting, merging, releasing.
constexpr size_t kMiB = size_t(1) << 20;

TEST_F(Allocator, LargeFreedBlockServesASmallerLargeRequest) {
  void* a = alloc.allocate(8 * kMiB);
  static_cast<char*>(a)[8 * kMiB - 1] = 1;
  alloc.deallocate(a, 8 * kMiB);
  const MemoryStats s0 = alloc.stats();
  // 3 MiB fits in the freed 8 MiB: the front of it is handed out, the rest (5 MiB) stays free.
  void* b = alloc.allocate(3 * kMiB);
  EXPECT_EQ(b, a);
  const MemoryStats s1 = alloc.stats();
  EXPECT_EQ(s1.num_system_allocs, s0.num_system_allocs);
  EXPECT_EQ(s1.num_cache_hits, s0.num_cache_hits + 1);
  EXPECT_EQ(s1.reserved_bytes, s0.reserved_bytes);
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes + int64_t(3 * kMiB));
  // The 5 MiB rest serves a second request, right after the first block.
  void* c = alloc.allocate(4 * kMiB);
  EXPECT_EQ(c, static_cast<char*>(a) + 3 * kMiB);
  EXPECT_EQ(alloc.stats().num_system_allocs, s0.num_system_allocs);
  // Freed, the three pieces merge back into the whole segment: 8 MiB fits again.
  alloc.deallocate(b, 3 * kMiB);
  alloc.deallocate(c, 4 * kMiB);
  EXPECT_EQ(alloc.stats().allocated_bytes, s0.allocated_bytes);
  void* d = alloc.allocate(8 * kMiB);
  EXPECT_EQ(d, a);
  EXPECT_EQ(alloc.stats().num_system_allocs, s0.num_system_allocs);
  alloc.deallocate(d, 8 * kMiB);
}

TEST_F(Allocator, LargeRequestsTakeTheLowestBlockThatFits) {
  // Holes of 10, 3 and 6 MiB from the bottom up, kept apart by live blocks so that they cannot
  // merge.
  std::vector<std::pair<size_t, void*>> blocks;
  for (size_t n : {10, 2, 3, 2, 6, 2}) blocks.emplace_back(n * kMiB, alloc.allocate(n * kMiB));
  for (int i : {0, 2, 4}) alloc.deallocate(blocks[i].second, blocks[i].first);
  const int64_t system = alloc.stats().num_system_allocs;
  void* a = alloc.allocate(5 * kMiB);  // the 10 MiB hole: lowest, though 6 would fit better
  void* b = alloc.allocate(6 * kMiB);  // 5 MiB are left of the first hole: the 6 MiB one
  void* c = alloc.allocate(3 * kMiB);  // the rest of the first hole, below the 3 MiB hole
  EXPECT_EQ(a, blocks[0].second);
  EXPECT_EQ(b, blocks[4].second);
  EXPECT_EQ(c, static_cast<char*>(blocks[0].second) + 5 * kMiB);
  EXPECT_EQ(alloc.stats().num_system_allocs, system);
  alloc.deallocate(a, 5 * kMiB);
  alloc.deallocate(b, 6 * kMiB);
  alloc.deallocate(c, 3 * kMiB);
  for (int i : {1, 3, 5}) alloc.deallocate(blocks[i].second, blocks[i].first);
}

TEST_F(Allocator, EmptyCacheReleasesTheLargePoolsPages) {
  const MemoryStats s0 = alloc.stats();
  void* a = alloc.allocate(3 * kMiB);
  void* b = alloc.allocate(5 * kMiB);
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes + int64_t(8 * kMiB));
  EXPECT_EQ(alloc.stats().allocated_bytes, s0.allocated_bytes + int64_t(8 * kMiB));
  alloc.deallocate(a, 3 * kMiB);
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes + int64_t(8 * kMiB));  // cached
  alloc.empty_cache();  // a's pages go back; b stays
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes + int64_t(5 * kMiB));
  // The released block is reused (the pages come back as they are touched) and zero-filled.
  void* c = alloc.allocate(3 * kMiB);
  EXPECT_EQ(c, a);
  EXPECT_EQ(static_cast<char*>(c)[kMiB], 0);
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes + int64_t(8 * kMiB));
  alloc.deallocate(b, 5 * kMiB);
  alloc.deallocate(c, 3 * kMiB);
  alloc.empty_cache();
  EXPECT_EQ(alloc.stats().reserved_bytes, s0.reserved_bytes);
  EXPECT_EQ(alloc.stats().allocated_bytes, s0.allocated_bytes);
}

TEST_F(Allocator, LargeBlocksWithCacheLimitZeroGoBackAtOnce) {
  const int64_t limit = alloc.cache_limit();
  alloc.set_cache_limit(0);
  const int64_t reserved = alloc.stats().reserved_bytes;
  void* p = alloc.allocate(5 * kMiB);
  alloc.deallocate(p, 5 * kMiB);
  EXPECT_EQ(alloc.stats().reserved_bytes, reserved);
  alloc.set_cache_limit(limit);
}

TEST_F(Allocator, TrainingLikeSequenceHoldsLittleMoreThanItsPeak) {
  // A forward pass allocates growing then shrinking activations, the backward pass frees them
  // in reverse while allocating gradients of the same sizes; repeated, the pool must not keep
  // one buffer per distinct size (which would hold about twice the peak).
  alloc.reset_peak_stats();
  const MemoryStats s0 = alloc.stats();
  const size_t sizes[] = {12 * kMiB, 12 * kMiB, 6 * kMiB, 6 * kMiB, 3 * kMiB, 3 * kMiB + 12345};
  for (int step = 0; step < 4; ++step) {
    std::vector<std::pair<void*, size_t>> saved;
    for (size_t n : sizes) saved.emplace_back(alloc.allocate(n), n);
    size_t grad_size = 2 * kMiB;
    void* grad = alloc.allocate(grad_size);
    while (!saved.empty()) {
      const auto [p, n] = saved.back();
      saved.pop_back();
      void* next = alloc.allocate(n);  // the gradient of the saved activation
      alloc.deallocate(grad, grad_size);
      alloc.deallocate(p, n);
      grad = next;
      grad_size = n;
    }
    alloc.deallocate(grad, grad_size);
  }
  const MemoryStats s1 = alloc.stats();
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes);
  // Here 47 MiB at the peak and 53 reserved; a segment per request (blocks of different
  // requests cannot merge) reserved 68 MiB.
  const int64_t peak = s1.peak_allocated_bytes - s0.allocated_bytes;
  EXPECT_LE(s1.peak_reserved_bytes - s0.reserved_bytes, peak * 23 / 20) << peak;
}

TEST_F(Allocator, ConcurrentAllocationsBalance) {
  const MemoryStats s0 = alloc.stats();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, t] {
      std::vector<void*> held;
      for (int i = 0; i < 500; ++i) {
        const size_t n = size_t(64 * (1 + (i + t) % 40));
        void* p = alloc.allocate(n);
        static_cast<char*>(p)[n - 1] = 1;  // the block is really ours
        held.push_back(p);
        if (held.size() > 8) {
          const size_t m = size_t(64 * (1 + (i - 8 + t) % 40));
          alloc.deallocate(held.front(), m);
          held.erase(held.begin());
        }
      }
      for (size_t k = 0; k < held.size(); ++k) {
        const int i = 500 - int(held.size()) + int(k);
        alloc.deallocate(held[k], size_t(64 * (1 + (i + t) % 40)));
      }
    });
  }
  for (auto& th : threads) th.join();
  const MemoryStats s1 = alloc.stats();
  EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes);
  EXPECT_EQ(s1.num_allocs, s0.num_allocs + 2000);
}

}  // namespace
