// float16 and bfloat16 as storage types: every operation converts to float, computes, and rounds
// back (round to nearest even), which is what PyTorch's CPU kernels do for these types too.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace ember {

namespace detail {
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// IEEE binary16 <-> binary32 without relying on F16C (the build targets baseline x86-64).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    // Subnormal half: value = mant * 2^-24.
    float f = float(mant) * 5.9604644775390625e-08f;
    return sign ? -f : f;
  }
  if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf / nan
  return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t float_to_half(float f) {
  uint32_t x = float_bits(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);  // nan / inf
  if (x >= 0x477ff000u) return sign | 0x7c00;  // rounds to >= 65520: overflow to inf
  if (x < 0x38800000u) {
    // Result is subnormal or zero: add 0.5 so the FPU rounds to nearest even at 2^-24.
    float r = bits_float(x) + 0.5f;
    return sign | uint16_t(float_bits(r) - 0x3f000000u);
  }
  const uint32_t odd = (x >> 13) & 1;
  x += 0xc8000fffu + odd;  // rebias exponent (-112 << 23) and round to nearest even
  return sign | uint16_t(x >> 13);
}

inline float bf16_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }
inline uint16_t float_to_bf16(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);  // quiet nan
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}
}  // namespace detail

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(detail::float_to_half(f)) {}
  operator float() const { return detail::half_to_float(bits); }
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(detail::float_to_bf16(f)) {}
  operator float() const { return detail::bf16_to_float(bits); }
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

// The type arithmetic on T happens in: float for the 16-bit floats, T otherwise.
template <class T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <class T>
using opmath_t = typename OpMath<T>::type;

}  // namespace ember

template <>
class std::numeric_limits<ember::Half> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static ember::Half lowest() { return ember::Half::from_bits(0xfbff); }
  static ember::Half max() { return ember::Half::from_bits(0x7bff); }
  static ember::Half infinity() { return ember::Half::from_bits(0x7c00); }
  static ember::Half quiet_NaN() { return ember::Half::from_bits(0x7e00); }
  static ember::Half epsilon() { return ember::Half::from_bits(0x1400); }
};

template <>
class std::numeric_limits<ember::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static ember::BFloat16 lowest() { return ember::BFloat16::from_bits(0xff7f); }
  static ember::BFloat16 max() { return ember::BFloat16::from_bits(0x7f7f); }
  static ember::BFloat16 infinity() { return ember::BFloat16::from_bits(0x7f80); }
  static ember::BFloat16 quiet_NaN() { return ember::BFloat16::from_bits(0x7fc0); }
  static ember::BFloat16 epsilon() { return ember::BFloat16::from_bits(0x3c00); }
};
