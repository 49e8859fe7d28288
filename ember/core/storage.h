// Storage: the buffer behind one or more tensors, and the version counter they share.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ember/core/allocator.h"
#include "ember/core/device.h"
#include "ember/core/ref.h"

namespace ember {

// Releases memory that ember did not allocate (a NumPy array, a DLPack capsule): the deleter is
// called once with `ctx` when the last tensor on the buffer goes.
struct ExternalDeleter {
  void (*fn)(void* ctx) = nullptr;
  void* ctx = nullptr;
};

class Storage final : public RefCounted {
 public:
  // A fresh buffer of `nbytes` from `allocator`.
  Storage(size_t nbytes, Allocator* allocator);
  // Memory owned elsewhere; `deleter` (may be empty) runs when this storage dies.
  Storage(void* data, size_t nbytes, Device device, ExternalDeleter deleter);
  ~Storage() override;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  // Note [Version counter]
  // Every in-place op on any view of this storage bumps the counter. A tensor saved for backward
  // remembers the version it saw; if the version moved by backward time, the saved values are
  // gone and backward raises instead of computing a wrong gradient. The counter lives here, not
  // in TensorImpl, so all views (and detach()) share it without extra bookkeeping.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

  // Note [Shared memory]
  // share_memory_() moves a CPU storage's bytes into an anonymous shared memory file (memfd:
  // it has no name, so nothing is left in /dev/shm when processes die) mapped MAP_SHARED, in
  // place: data() changes, and every tensor on this storage (views taken before included) sees
  // the new memory, since tensors reach their data through their storage. The file's descriptor
  // stays open while the storage lives, so that other processes can be given it (Python's
  // multiprocessing sends it over a Unix socket) and map the same pages: a write in one process
  // is seen by all. Idempotent; raises for storages not on the CPU.
  void share_memory_();
  bool is_shared() const { return shared_fd_ >= 0; }
  // The shared memory file's descriptor (owned by this storage), or -1.
  int shared_fd() const { return shared_fd_; }
  // A storage on the shared memory file `fd` of `nbytes`, which another process shared; it takes
  // ownership of `fd` (closed when the storage dies).
  static Ref<Storage> from_shared_fd(int fd, size_t nbytes);

 private:
  void release();  // frees data_ as it was obtained (allocator or deleter)

  void* data_;
  size_t nbytes_;
  Device device_;
  Allocator* allocator_;  // null for external memory
  ExternalDeleter deleter_;
  std::atomic<uint32_t> version_{0};
  int shared_fd_ = -1;
};

}  // namespace ember
