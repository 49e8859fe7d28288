#include "ember/core/device.h"

#include <charconv>

#include "ember/core/error.h"

namespace ember {

Device::Device(std::string_view spec) {
  std::string_view kind = spec;
  int index = -1;
  if (auto colon = spec.find(':'); colon != std::string_view::npos) {
    kind = spec.substr(0, colon);
    std::string_view num = spec.substr(colon + 1);
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), index);
    EMBER_CHECK(ec == std::errc() && end == num.data() + num.size() && index >= 0 && index < 128,
                "Invalid device string: '", spec, "'");
  }
  if (kind == "cpu") {
    type = DeviceType::CPU;
  } else if (kind == "cuda") {
    type = DeviceType::CUDA;
  } else {
    EMBER_FAIL("Expected one of cpu, cuda device type at start of device string: ", spec);
  }
  this->index = int8_t(index);
}

std::string Device::str() const {
  std::string s = type == DeviceType::CPU ? "cpu" : "cuda";
  if (index >= 0) s.append(":").append(std::to_string(index));
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
