#include "ember/core/generator.h"

#include <cstring>
#include <random>

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

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard lock(mu_);
  seed_ = seed;
  offset_ = 0;
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

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard lock(mu_);
  std::vector<uint8_t> out(16);
  for (int i = 0; i < 8; ++i) {
    out[i] = uint8_t(seed_ >> (8 * i));
    out[8 + i] = uint8_t(offset_ >> (8 * i));
  }
  return out;
}

void Generator::set_state(const uint8_t* data, size_t size) {
  EMBER_CHECK_VALUE(size == 16,
                    "[Generator.set_state] expected a state of 16 bytes (from "
                    "get_state()), got ",
                    size, " bytes");
  std::lock_guard lock(mu_);
  seed_ = 0;
  offset_ = 0;
  for (int i = 0; i < 8; ++i) {
    seed_ |= uint64_t(data[i]) << (8 * i);
    offset_ |= uint64_t(data[8 + i]) << (8 * i);
  }
}

Generator& default_generator() {
  static Generator* gen = new Generator();
  return *gen;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace ember
