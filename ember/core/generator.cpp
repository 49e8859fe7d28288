#include "ember/core/generator.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

#include "ember/core/error.h"

namespace ember {

std::array<uint32_t, 4> philox(uint64_t key, uint64_t counter_lo, uint64_t counter_hi) {
  constexpr uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  uint32_t c0 = uint32_t(counter_lo), c1 = uint32_t(counter_lo >> 32);
  uint32_t c2 = uint32_t(counter_hi), c3 = uint32_t(counter_hi >> 32);
  uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kMul0) * c0;
    const uint64_t p1 = uint64_t(kMul1) * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return {c0, c1, c2, c3};
}

// Note [Random streams]
// Philox is ember's own stream: counter-based, so the kernels draw in parallel and the dropout
// backward regenerates its mask instead of storing it. Mt19937 reproduces PyTorch's CPU
// generator, for researchers who compare a seeded run with PyTorch's number for number (the
// real-programs runner's loss comparison does): the same engine, seeding, bit widths (24 bits
// for a float uniform, 53 for a double, 64-bit words from two draws) and transformations
// (normal_fill's Box-Muller over blocks of 16, the cached second normal, modulo for integers,
// Fisher-Yates for randperm, the exponential race for multinomial) as PyTorch's CPU kernels,
// checked against PyTorch in tests/python/test_random_torch.py. Only elementwise rounding in the
// last bits may differ (PyTorch's AVX2 log and sincos).
namespace {
RandomStream stream_from_env() {
  const char* v = std::getenv("EMBER_RNG");
  if (v == nullptr || *v == '\0' || std::string_view(v) == "philox") return RandomStream::Philox;
  EMBER_CHECK_VALUE(std::string_view(v) == "mt19937",
                    "EMBER_RNG must be 'philox' or 'mt19937', got '", v, "'");
  return RandomStream::Mt19937;
}
std::atomic<RandomStream>& stream_setting() {
  static std::atomic<RandomStream> s{stream_from_env()};
  return s;
}
}  // namespace

RandomStream random_stream() { return stream_setting().load(std::memory_order_relaxed); }
void set_random_stream(RandomStream stream) { stream_setting().store(stream); }

void Mt19937::seed_with(uint64_t seed) {
  state[0] = uint32_t(seed);
  for (int j = 1; j < kN; ++j) {
    state[size_t(j)] =
        1812433253u * (state[size_t(j - 1)] ^ (state[size_t(j - 1)] >> 30)) + uint32_t(j);
  }
  index = kN;
}

uint32_t Mt19937::operator()() {
  constexpr int kM = 397;
  constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
  if (index >= kN) {
    for (int k = 0; k < kN; ++k) {
      const uint32_t y = (state[size_t(k)] & kUpper) | (state[size_t((k + 1) % kN)] & kLower);
      state[size_t(k)] = state[size_t((k + kM) % kN)] ^ (y >> 1) ^ ((y & 1u) != 0 ? kMatrixA : 0u);
    }
    index = 0;
  }
  uint32_t y = state[size_t(index++)];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard lock(mu_);
  seed_ = seed;
  offset_ = 0;
  mt_ = Mt19937Stream{Mt19937(seed), std::nullopt};
}

uint64_t Generator::initial_seed() const {
  std::lock_guard lock(mu_);
  return seed_;
}

uint64_t Generator::seed() {
  std::random_device rd;
  const uint64_t s = (uint64_t(rd()) << 32) | rd();
  manual_seed(s);
  return s;
}

uint64_t Generator::reserve(uint64_t n) {
  std::lock_guard lock(mu_);
  const uint64_t first = offset_;
  offset_ += n;
  return first;
}

namespace {
constexpr size_t kPhiloxStateBytes = 16;
constexpr size_t kStateBytes = kPhiloxStateBytes + 4 * Mt19937::kN + 4 + 1 + 8;

template <class T>
void put(std::vector<uint8_t>& out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}
template <class T>
T take(const uint8_t*& p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}
}  // namespace

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard lock(mu_);
  std::vector<uint8_t> out;
  out.reserve(kStateBytes);
  put(out, seed_);
  put(out, offset_);
  for (uint32_t w : mt_.engine.state) put(out, w);
  put(out, int32_t(mt_.engine.index));
  put(out, uint8_t(mt_.next_normal.has_value()));
  put(out, mt_.next_normal.value_or(0.0));
  return out;
}

void Generator::set_state(const uint8_t* data, size_t size) {
  EMBER_CHECK_VALUE(size == kStateBytes || size == kPhiloxStateBytes,
                    "[Generator.set_state] expected a state of ", kStateBytes,
                    " bytes (from get_state()), got ", size, " bytes");
  const uint8_t* p = data;
  const auto seed = take<uint64_t>(p);
  const auto offset = take<uint64_t>(p);
  Mt19937Stream mt{Mt19937(seed), std::nullopt};
  if (size == kStateBytes) {
    for (uint32_t& w : mt.engine.state) w = take<uint32_t>(p);
    const auto index = take<int32_t>(p);
    EMBER_CHECK_VALUE(index >= 0 && index <= Mt19937::kN,
                      "[Generator.set_state] the state is corrupt (Mersenne Twister index ", index,
                      ")");
    mt.engine.index = index;
    const bool has_normal = take<uint8_t>(p) != 0;
    const auto normal = take<double>(p);
    if (has_normal) mt.next_normal = normal;
  }
  std::lock_guard lock(mu_);
  seed_ = seed;
  offset_ = offset;
  mt_ = mt;
}

Generator& default_generator() {
  static Generator* gen = new Generator();
  return *gen;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace ember
