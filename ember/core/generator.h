// Random number generation, in one of two streams (Note [Random streams]):
//  - Philox (the default): counter-based Philox4x32-10, so element i of a random tensor depends
//    only on (seed, offset + i), never on how many threads produced it; kernels draw in parallel.
//  - Mt19937: PyTorch's CPU stream, a Mersenne Twister seeded and consumed as PyTorch's CPU
//    generator is, so a seeded program draws the very numbers it draws under PyTorch. Serial, as
//    PyTorch's CPU sampling is.
// Both are reproducible for a given seed on any machine and thread count.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace ember {

enum class RandomStream : uint8_t { Philox, Mt19937 };

// The stream every CPU generator draws from: EMBER_RNG=mt19937 in the environment at start, or
// set_random_stream, selects PyTorch's; Philox otherwise. Switching keeps each generator's seed.
RandomStream random_stream();
void set_random_stream(RandomStream stream);

// The 32-bit Mersenne Twister (Matsumoto and Nishimura), seeded with the low 32 bits of the seed
// by the reference init_genrand, as std::mt19937 and PyTorch's at::mt19937 are.
class Mt19937 {
 public:
  static constexpr int kN = 624;
  explicit Mt19937(uint64_t seed = 5489) { seed_with(seed); }
  void seed_with(uint64_t seed);
  uint32_t operator()();

  std::array<uint32_t, kN> state{};
  int index = kN;  // the next word of state to temper; kN: regenerate first
};

// PyTorch's draws from its CPU generator: 32 bits, or 64 from two words (the first high), and the
// second normal of a Box-Muller pair kept for the next scalar normal draw.
struct Mt19937Stream {
  Mt19937 engine;
  std::optional<double> next_normal;

  uint32_t random() { return engine(); }
  uint64_t random64() {
    const uint64_t hi = engine();
    return (hi << 32) | engine();
  }
};

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

  // Runs f(stream) under the generator's lock: the Mt19937 kernels draw a whole tensor this way,
  // as PyTorch's CPU kernels hold their generator's mutex.
  template <class F>
  decltype(auto) with_mt19937(F&& f) {
    std::lock_guard lock(mu_);
    return f(mt_);
  }

  // Both streams' positions: seed and Philox offset (16 bytes, little endian), then the Mersenne
  // Twister's words and index and the kept normal. set_state accepts what get_state returns (and
  // the 16-byte states of earlier versions, which leave the Mersenne Twister freshly seeded).
  std::vector<uint8_t> get_state() const;
  void set_state(const uint8_t* data, size_t size);

 private:
  mutable std::mutex mu_;
  uint64_t seed_;
  uint64_t offset_ = 0;
  Mt19937Stream mt_{Mt19937(seed_), std::nullopt};
};

Generator& default_generator();
// Seeds the default generator, like torch.manual_seed.
void manual_seed(uint64_t seed);

}  // namespace ember
