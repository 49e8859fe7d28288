#include "ember/backend/kernels.h"

namespace ember {
namespace {

struct Tables {
  KernelTable table[kNumDeviceTypes];
  bool present[kNumDeviceTypes] = {};
  Tables() {
    // The one place backends are wired in: an explicit call each, no static registration.
    cpu::register_kernels(table[int(DeviceType::CPU)]);
    present[int(DeviceType::CPU)] = true;
#ifdef EMBER_WITH_CUDA
    cuda::register_kernels(table[int(DeviceType::CUDA)]);
    present[int(DeviceType::CUDA)] = true;
#endif
  }
};

}  // namespace

const KernelTable& kernels(Device device) {
  static const Tables tables;
  const int i = int(device.type);
  if (!tables.present[i]) [[unlikely]] {
    EMBER_FAIL("ember was built without support for device ", device,
               " (rebuild with -DEMBER_CUDA=ON on a machine with the CUDA toolkit)");
  }
  return tables.table[i];
}

}  // namespace ember
