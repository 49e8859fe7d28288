#include "ember/backend/common/elementwise_iter.h"

namespace ember {

void ElementwiseIter::add(char* data, IntArrayRef sizes, IntArrayRef strides, int64_t itemsize) {
  EMBER_ASSERT(nops_ < kMaxOperands, "too many operands");
  const int k = nops_++;
  data_[k] = data;
  const size_t nd = sizes_.size();
  strides_[k] = DimVector(nd, 0);
  // Align from the right; repeated (broadcast) dims keep stride 0.
  const size_t lead = nd - sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1) strides_[k][lead + d] = strides[d] * itemsize;
  }
}

void ElementwiseIter::add_output(const Tensor& out) {
  sizes_.assign(out.sizes().data(), out.sizes().size());
  numel_ = out.numel();
  add(static_cast<char*>(out.data_ptr()), out.sizes(), out.strides(), int64_t(out.element_size()));
}

void ElementwiseIter::add_input(const Tensor& in) {
  EMBER_ASSERT(in.dim() <= int64_t(sizes_.size()), "input has more dims than the output");
  add(static_cast<char*>(in.data_ptr()), in.sizes(), in.strides(), int64_t(in.element_size()));
}

void ElementwiseIter::add_scalar(const void* data) {
  add(static_cast<char*>(const_cast<void*>(data)), {}, {}, 0);
}

void ElementwiseIter::build() {
  if (numel_ == 0) return;  // nothing to walk
  // Walk the output in memory order: dims sorted by its strides, outermost (largest) first, so a
  // permuted output (channels-last) is written as one run and its dims can merge. Stable: ties
  // and size-1 dims keep their order; a row-major output is left as it is.
  const size_t n = sizes_.size();
  bool ordered = true;
  int64_t last = INT64_MAX;
  for (size_t d = 0; d < n && ordered; ++d) {
    if (sizes_[d] == 1) continue;
    ordered = last >= strides_[0][d];
    last = strides_[0][d];
  }
  if (!ordered) {
    DimVector perm(n);
    for (size_t d = 0; d < n; ++d) perm[d] = int64_t(d);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      return strides_[0][size_t(a)] > strides_[0][size_t(b)];
    });
    DimVector sizes(n);
    for (size_t d = 0; d < n; ++d) sizes[d] = sizes_[size_t(perm[d])];
    sizes_ = sizes;
    for (int k = 0; k < nops_; ++k) {
      DimVector strides(n);
      for (size_t d = 0; d < n; ++d) strides[d] = strides_[k][size_t(perm[d])];
      strides_[k] = strides;
    }
  }
  // Walk from the innermost dim outward, dropping size-1 dims and merging a dim into the one
  // inside it when every operand steps across both as one: stride[d] == stride[c] * size[c].
  DimVector sizes;
  DimVector strides[kMaxOperands];
  for (int d = int(sizes_.size()) - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (!sizes.empty()) {
      const size_t c = sizes.size() - 1;
      bool merge = true;
      for (int k = 0; k < nops_ && merge; ++k) merge = strides_[k][d] == strides[k][c] * sizes[c];
      if (merge) {
        sizes[c] *= sizes_[d];
        continue;
      }
    }
    sizes.push_back(sizes_[d]);
    for (int k = 0; k < nops_; ++k) strides[k].push_back(strides_[k][d]);
  }
  // Back to outermost-first order.
  const size_t nd = sizes.size();
  sizes_ = DimVector(nd);
  for (size_t i = 0; i < nd; ++i) sizes_[i] = sizes[nd - 1 - i];
  for (int k = 0; k < nops_; ++k) {
    strides_[k] = DimVector(nd);
    for (size_t i = 0; i < nd; ++i) strides_[k][i] = strides[k][nd - 1 - i];
  }
}

}  // namespace ember
