// Shape arithmetic shared by ops and kernels: strides, dim wrapping, broadcasting.
#pragma once

#include <cstdint>

#include "ember/core/array_ref.h"
#include "ember/core/error.h"

namespace ember {

// Row-major strides: strides[i] = prod(sizes[i+1:]).
DimVector contiguous_strides(IntArrayRef sizes);

// Product of the sizes; raises if it does not fit in int64.
int64_t numel_of(IntArrayRef sizes);
// Bytes for `numel` elements of `itemsize` bytes; raises if that does not fit in size_t.
size_t storage_nbytes(int64_t numel, size_t itemsize);

// True when (sizes, strides) is row-major contiguous; dims of size 1 may have any stride.
bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides);

// How a new tensor's elements are laid out in memory (PyTorch's torch.memory_format).
// ChannelsLast is NHWC order for a tensor indexed (N, C, H, W), ChannelsLast3d NDHWC for
// (N, C, D, H, W): the channels of one pixel are adjacent, which is what convolution and
// normalisation kernels want. Preserve keeps a source tensor's layout (for clone, empty_like, to).
enum class MemoryFormat : uint8_t { Contiguous, ChannelsLast, ChannelsLast3d, Preserve };

// The strides of a dense tensor of `sizes` in `format` (not Preserve). ChannelsLast needs 4 dims
// and ChannelsLast3d 5: "[op] channels_last needs a 4-d tensor, got 3 dims" otherwise.
DimVector strides_for(IntArrayRef sizes, MemoryFormat format, const char* op);
// True when (sizes, strides) is the dense layout of `format`; dims of size 1 may have any stride.
bool is_layout_of(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);
// True when the elements fill a block of memory exactly once, in some order of the dims (a
// permutation of a contiguous tensor): PyTorch's "non-overlapping and dense".
bool is_dense_layout(IntArrayRef sizes, IntArrayRef strides);

// Maps a possibly negative dim into [0, ndim). A 0-d tensor accepts dims -1 and 0, as PyTorch.
// Out of range is an IndexError that names the op: "[sum] dim 3 is out of range for a tensor of
// 2 dims (expected a dim in [-2, 1])".
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

// Elements a storage needs for a tensor of (sizes, strides) at offset 0: 1 + the highest index
// reached, 0 if there is no element. Raises for negative strides and on overflow.
int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides, const char* op);

// PyTorch's broadcasting: align from the right, sizes must match or be 1.
// "[add] shapes [2, 3] and [4] cannot be broadcast: size 3 vs 4 at dim 1"
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);

// True when a tensor of sizes `shape` broadcasts to `target` (what expand accepts).
bool is_expandable_to(IntArrayRef shape, IntArrayRef target);

// Size of the result of `view`/`reshape` with one -1 inferred: "[view] shape [-1, 5] is invalid for
// input of size 12".
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op);

}  // namespace ember
