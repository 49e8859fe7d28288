#include "ember/core/storage.h"

namespace ember {

Storage::Storage(size_t nbytes, Allocator* allocator)
    : data_(allocator->allocate(nbytes)),
      nbytes_(nbytes),
      device_(allocator->device()),
      allocator_(allocator) {}

Storage::Storage(void* data, size_t nbytes, Device device, ExternalDeleter deleter)
    : data_(data), nbytes_(nbytes), device_(device), allocator_(nullptr), deleter_(deleter) {}

Storage::~Storage() {
  if (allocator_) {
    allocator_->deallocate(data_, nbytes_);
  } else if (deleter_.fn) {
    deleter_.fn(deleter_.ctx);
  }
}

}  // namespace ember
