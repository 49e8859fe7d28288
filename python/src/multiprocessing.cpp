// Shared-memory tensors (Note [Shared memory] in ember/core/storage.h): Tensor.share_memory_()
// and is_shared(), and ember._C._multiprocessing, what ember.multiprocessing's reductions use to
// send a tensor to another process as a file descriptor and rebuild it there.
#include <unistd.h>

#include "init.h"

namespace ember::py {
namespace {

// A view described by another process must lie inside the storage it maps: a corrupt message is
// an error, not a read past the mapping.
void check_view(size_t nbytes,
                DType dtype,
                const std::vector<int64_t>& sizes,
                const std::vector<int64_t>& strides,
                int64_t offset) {
  EMBER_CHECK(sizes.size() == strides.size(), "[multiprocessing] ", sizes.size(), " sizes and ",
              strides.size(), " strides");
  int64_t last = offset;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] >= 0 && strides[d] >= 0, "[multiprocessing] negative size or stride");
    if (sizes[d] == 0) empty = true;
    last += (sizes[d] - 1) * strides[d];
  }
  EMBER_CHECK(offset >= 0 && (empty || size_t(last + 1) * itemsize(dtype) <= nbytes),
              "[multiprocessing] a view of ", sizes.size(), " dims at offset ", offset,
              " does not fit in a shared storage of ", nbytes, " bytes");
}

}  // namespace

void init_multiprocessing(nb::module_& m) {
  tensor_class()
      .def(
          "share_memory_",
          [](nb::handle self) {
            nb::cast<const Tensor&>(self).storage()->share_memory_();
            return nb::borrow(self);
          },
          "Moves the storage into shared memory, in place (a no-op if it is there); returns self.")
      .def("is_shared", [](const Tensor& t) { return t.storage()->is_shared(); });

  nb::module_ mp = m.def_submodule("_multiprocessing", "shared-memory storages for processes");
  // (fd, nbytes) of a tensor's storage, moved into shared memory first; fd stays the storage's.
  mp.def("share_fd", [](const Tensor& t) {
    const Ref<Storage>& s = t.storage();
    s->share_memory_();
    return nb::make_tuple(s->shared_fd(), s->nbytes());
  });
  // The size in bytes of a tensor's storage (a view's may be larger than the view).
  mp.def("storage_nbytes", [](const Tensor& t) { return t.storage()->nbytes(); });
  // A tensor on a new storage mapping the shared memory file `fd` (which it takes over and closes
  // when the storage dies), with the given dtype, sizes, strides and offset.
  mp.def("tensor_from_fd", [](int fd, size_t nbytes, DType dtype, std::vector<int64_t> sizes,
                              std::vector<int64_t> strides, int64_t offset) {
    EMBER_CHECK_VALUE(fd >= 0, "[multiprocessing] invalid file descriptor ", fd);
    try {
      check_view(nbytes, dtype, sizes, strides, offset);
    } catch (...) {
      close(fd);
      throw;
    }
    Ref<Storage> s = Storage::from_shared_fd(fd, nbytes);
    return Tensor(make_ref<TensorImpl>(s, dtype, DimVector(sizes.data(), sizes.size()),
                                       DimVector(strides.data(), strides.size()), offset));
  });
  // A tensor on `base`'s storage: another view of the same memory (the receiving side's cache of
  // storages already mapped, so that views sent together share one storage again).
  mp.def("tensor_on_storage_of", [](const Tensor& base, DType dtype, std::vector<int64_t> sizes,
                                    std::vector<int64_t> strides, int64_t offset) {
    check_view(base.storage()->nbytes(), dtype, sizes, strides, offset);
    return Tensor(make_ref<TensorImpl>(base.storage(), dtype, DimVector(sizes.data(), sizes.size()),
                                       DimVector(strides.data(), strides.size()), offset));
  });
}

}  // namespace ember::py
