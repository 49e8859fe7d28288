#include "ember/core/storage.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/core/error.h"

namespace ember {
namespace {

// A MAP_SHARED mapping of a memfd, unmapped and closed by the storage's deleter.
struct SharedMapping {
  void* data;
  size_t length;
  int fd;
};

void release_mapping(void* ctx) {
  auto* m = static_cast<SharedMapping*>(ctx);
  munmap(m->data, m->length);
  close(m->fd);
  delete m;
}

// Maps `length` bytes of `fd` read-write and shared (at least one page, so that an empty storage
// has an address too). On failure it closes fd and raises.
void* map_shared(int fd, size_t length, const char* what) {
  void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    close(fd);
    EMBER_FAIL("[", what, "] mmap of ", length, " bytes failed: ", std::strerror(err));
  }
  return p;
}

size_t mapped_length(size_t nbytes) { return nbytes ? nbytes : 1; }

}  // namespace

Storage::Storage(size_t nbytes, Allocator* allocator)
    : data_(allocator->allocate(nbytes)),
      nbytes_(nbytes),
      device_(allocator->device()),
      allocator_(allocator) {}

Storage::Storage(void* data, size_t nbytes, Device device, ExternalDeleter deleter)
    : data_(data), nbytes_(nbytes), device_(device), allocator_(nullptr), deleter_(deleter) {}

void Storage::share_memory_() {
  if (shared_fd_ >= 0) return;
  EMBER_CHECK(device_.is_cpu(), "[share_memory_] only CPU tensors can be moved to shared memory, ",
              "got a tensor on ", device_);
  const size_t length = mapped_length(nbytes_);
  const int fd = memfd_create("ember-shared", MFD_CLOEXEC);
  EMBER_CHECK(fd >= 0, "[share_memory_] memfd_create failed: ", std::strerror(errno));
  if (ftruncate(fd, off_t(length)) != 0) {
    const int err = errno;
    close(fd);
    EMBER_FAIL("[share_memory_] could not size a shared memory file of ", length,
               " bytes: ", std::strerror(err));
  }
  // The bytes go in with write(): the kernel allocates and fills the file's pages in one pass,
  // where copying into a fresh mapping faults them in page by page (100 MB: 46 ms against 100,
  // even with MAP_POPULATE).
  size_t done = 0;
  while (done < nbytes_) {
    const ssize_t n =
        pwrite(fd, static_cast<const char*>(data_) + done, nbytes_ - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      EMBER_FAIL("[share_memory_] could not fill a shared memory file of ", length,
                 " bytes: ", std::strerror(err));
    }
    done += size_t(n);
  }
  void* p = map_shared(fd, length, "share_memory_");
  release();
  data_ = p;
  allocator_ = nullptr;
  deleter_ = {&release_mapping, new SharedMapping{p, length, fd}};
  shared_fd_ = fd;
}

Ref<Storage> Storage::from_shared_fd(int fd, size_t nbytes) {
  const size_t length = mapped_length(nbytes);
  void* p = map_shared(fd, length, "shared memory");
  Ref<Storage> s = make_ref<Storage>(
      p, nbytes, kCPU, ExternalDeleter{&release_mapping, new SharedMapping{p, length, fd}});
  s->shared_fd_ = fd;
  return s;
}

void Storage::release() {
  if (allocator_) {
    allocator_->deallocate(data_, nbytes_);
  } else if (deleter_.fn) {
    deleter_.fn(deleter_.ctx);
  }
}

Storage::~Storage() { release(); }

}  // namespace ember
