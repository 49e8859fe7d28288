// The geometry of an elementwise loop: operands broadcast to the output's shape (stride 0 where
// they repeat), adjacent dims merged where every operand is contiguous across them, sizes and
// strides in bytes. Backends walk it row by row (the last dim is the innermost).
#pragma once

#include <algorithm>
#include <cstdint>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember {

class ElementwiseIter {
 public:
  static constexpr int kMaxOperands = 4;

  // Operand 0 is the output and gives the shape; the others broadcast to it.
  void add_output(const Tensor& out);
  void add_input(const Tensor& in);
  // A scalar at `data` (of the input's element size) repeated over the whole shape.
  void add_scalar(const void* data);
  // Merges dims; call once after the operands are added.
  void build();

  int num_operands() const { return nops_; }
  int ndim() const { return int(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t inner_size() const { return sizes_.empty() ? 1 : sizes_.back(); }
  // Byte stride of operand k along the innermost dim.
  int64_t inner_stride(int k) const { return sizes_.empty() ? 0 : strides_[k].back(); }
  // The merged geometry (after build): sizes, and operand k's byte strides and data.
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides(int k) const { return strides_[k]; }
  char* data(int k) const { return data_[k]; }

  // Calls f(ptrs, inner_strides, n) for each run of n elements along the innermost dim that
  // falls in the linear range [begin, end) of the output (row-major order).
  template <class F>
  void for_each_row(int64_t begin, int64_t end, const F& f) const;

 private:
  void add(char* data, IntArrayRef sizes, IntArrayRef strides, int64_t itemsize);

  int nops_ = 0;
  char* data_[kMaxOperands] = {};
  DimVector sizes_;
  DimVector strides_[kMaxOperands];  // bytes
  int64_t numel_ = 0;
};

template <class F>
void ElementwiseIter::for_each_row(int64_t begin, int64_t end, const F& f) const {
  if (begin >= end) return;
  char* ptrs[kMaxOperands];
  int64_t inner[kMaxOperands];
  const int nd = ndim();
  if (nd == 0) {  // a single element
    if (begin < end) {
      for (int k = 0; k < nops_; ++k) {
        ptrs[k] = data_[k];
        inner[k] = 0;
      }
      f(ptrs, inner, int64_t(1));
    }
    return;
  }
  for (int k = 0; k < nops_; ++k) inner[k] = strides_[k][nd - 1];
  const int64_t row = sizes_[nd - 1];
  // Multi-index of `begin`, outer dims only; the inner position is begin % row.
  DimVector idx(size_t(nd), 0);
  int64_t rem = begin / row;
  for (int d = nd - 2; d >= 0; --d) {
    idx[d] = rem % sizes_[d];
    rem /= sizes_[d];
  }
  int64_t pos = begin;
  int64_t col = begin % row;
  while (pos < end) {
    const int64_t n = std::min(row - col, end - pos);
    for (int k = 0; k < nops_; ++k) {
      char* p = data_[k] + col * strides_[k][nd - 1];
      for (int d = 0; d < nd - 1; ++d) p += idx[d] * strides_[k][d];
      ptrs[k] = p;
    }
    f(ptrs, inner, n);
    pos += n;
    col = 0;
    for (int d = nd - 2; d >= 0; --d) {  // odometer over the outer dims
      if (++idx[d] < sizes_[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace ember
