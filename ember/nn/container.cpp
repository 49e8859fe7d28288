#include "ember/nn/container.h"

namespace ember::nn {

static size_t wrap_index(int64_t i, size_t size, const char* what) {
  const int64_t n = int64_t(size);
  EMBER_CHECK_INDEX(i >= -n && i < n, "[", what, "] index ", i, " is out of range for ", n,
                    " modules");
  return size_t(i < 0 ? i + n : i);
}

Tensor Sequential::forward(const Tensor& input) const {
  Tensor x = input;
  for (const Entry& e : entries_) x = e.forward(x);
  return x;
}

size_t Sequential::index(int64_t i) const { return wrap_index(i, entries_.size(), "Sequential"); }
size_t ModuleList::index(int64_t i) const { return wrap_index(i, modules_.size(), "ModuleList"); }

}  // namespace ember::nn
