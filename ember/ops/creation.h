// Creation ops: empty, zeros, ones, full, arange, linspace, eye, *_like, tensor, from_blob. The
// random tensors (rand, randn, randint, randperm and their *_like) are in random.h.
#pragma once

#include <optional>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

// The dtype of floating tensors created without one (torch.get_default_dtype).
DType get_default_dtype();
void set_default_dtype(DType dtype);  // float32 or float64 (or the 16-bit floats)

Tensor empty(IntArrayRef size, TensorOptions options = {});
// In a memory format: empty({8, 3, 32, 32}, {}, MemoryFormat::ChannelsLast) is NHWC in memory.
Tensor empty(IntArrayRef size, TensorOptions options, MemoryFormat format);
// A tensor with the given sizes and strides (in elements) over fresh memory.
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
// The dtype defaults to the fill value's kind: bool, int64 or the default float dtype.
Tensor full(IntArrayRef size, const Scalar& fill_value, TensorOptions options = {});
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});

// [start, end) by step; int64 when all of start, end, step are integers, else the default float.
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor arange(const Scalar& start,
              const Scalar& end,
              const Scalar& step = 1,
              TensorOptions options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions options = {});

// Same shape (and by default dtype and device) as `like`; `like`'s requires_grad is not copied.
// The layout is `format`'s; Preserve (the default, as PyTorch) keeps `like`'s strides when it is
// dense, else takes like.suggest_memory_format().
Tensor empty_like(const Tensor& like,
                  TensorOptions options = {},
                  MemoryFormat format = MemoryFormat::Preserve);
Tensor zeros_like(const Tensor& like,
                  TensorOptions options = {},
                  MemoryFormat format = MemoryFormat::Preserve);
Tensor ones_like(const Tensor& like,
                 TensorOptions options = {},
                 MemoryFormat format = MemoryFormat::Preserve);
Tensor full_like(const Tensor& like,
                 const Scalar& fill_value,
                 TensorOptions options = {},
                 MemoryFormat format = MemoryFormat::Preserve);
// The strides empty_like(like, {}, format) gives.
DimVector strides_like(const Tensor& like, MemoryFormat format);
Tensor randn_like(const Tensor& like, TensorOptions options = {}, Generator* generator = nullptr);
Tensor randint_like(const Tensor& like,
                    int64_t low,
                    int64_t high,
                    TensorOptions options = {},
                    Generator* generator = nullptr);

// A tensor holding a copy of `values` with the given shape (1-d when shape is empty).
template <class T>
Tensor tensor(const std::vector<T>& values, IntArrayRef shape = {}, TensorOptions options = {});
template <class T>
Tensor tensor(std::initializer_list<T> values, TensorOptions options = {}) {
  return tensor(std::vector<T>(values), {}, options);
}
// 2-d from nested braces: ember::tensor({{1.f, 2.f}, {3.f, 4.f}}).
template <class T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> rows, TensorOptions options = {}) {
  std::vector<T> flat;
  int64_t cols = rows.size() ? int64_t(rows.begin()->size()) : 0;
  for (const auto& r : rows) {
    EMBER_CHECK_VALUE(int64_t(r.size()) == cols, "[tensor] expected rows of length ", cols,
                      ", got a row of length ", r.size());
    flat.insert(flat.end(), r.begin(), r.end());
  }
  return tensor(flat, {int64_t(rows.size()), cols}, options);
}

// A tensor over memory the caller owns (no copy); `deleter` runs when the last user goes.
Tensor from_blob(void* data,
                 IntArrayRef sizes,
                 IntArrayRef strides,
                 DType dtype,
                 ExternalDeleter deleter = {},
                 Device device = kCPU);

}  // namespace ember
