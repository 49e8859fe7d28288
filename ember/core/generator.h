// Random number generation: counter-based Philox4x32-10, so element i of a random tensor depends
// only on (seed, offset + i), never on how many threads produced it. Results are reproducible
// for a given seed on any machine and thread count (they differ from PyTorch's mt19937 stream).
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ember {

// One Philox4x32-10 block: four 32-bit random words from a 64-bit key and a 128-bit counter.
std::array<uint32_t, 4> philox(uint64_t key, uint64_t counter_lo, uint64_t counter_hi);

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default seed
  explicit Generator(uint64_t seed = kDefaultSeed) : seed_(seed) {}

  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  // Seeds from the operating system's entropy and returns the new seed.
  uint64_t seed();

  // Reserves `n` counter values for one kernel launch and returns the first. Thread safe.
  uint64_t reserve(uint64_t n);

  // 16 bytes: seed and offset, little endian. set_state accepts only what get_state returns.
  std::vector<uint8_t> get_state() const;
  void set_state(const uint8_t* data, size_t size);

 private:
  mutable std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

Generator& default_generator();
// Seeds the default generator, like torch.manual_seed.
void manual_seed(uint64_t seed);

}  // namespace ember
