// Where a tensor lives: the CPU, or a CUDA device (a backend built only where a CUDA toolkit is
// found; see ember/backend/cuda).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace ember {

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: "the current device of this type"

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  // Parses "cpu", "cuda", "cuda:1"; throws a RuntimeError naming the string otherwise.
  explicit Device(std::string_view spec);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  std::string str() const;  // "cpu", "cuda:0"
  friend bool operator==(const Device& a, const Device& b) {
    return a.type == b.type && a.index == b.index;
  }
};

inline constexpr Device kCPU{DeviceType::CPU};
std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace ember
