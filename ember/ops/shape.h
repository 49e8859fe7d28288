// Shape ops: joining and splitting (cat, stack, split, chunk, unbind), rearranging (movedim,
// flip, roll, repeat, tile), diagonals and triangles, broadcasting helpers, meshgrid and pad.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// The tensors joined along dim; dtypes promote as PyTorch (1-d empty tensors are skipped).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
// The tensors (all of one shape) joined along a new dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor hstack(const std::vector<Tensor>& tensors);  // along dim 1 (dim 0 for 1-d tensors)
Tensor vstack(const std::vector<Tensor>& tensors);  // along dim 0 of the tensors made >= 2-d
Tensor dstack(const std::vector<Tensor>& tensors);  // along dim 2 of the tensors made >= 3-d

// Views of consecutive pieces along dim: of split_size each (the last may be smaller), of the
// given sizes, `chunks` pieces of equal size (fewer when the size does not allow), or every index.
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);

// dim split into `sizes` (one of them may be -1).
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes);
// The dims `source` moved to the positions `destination`, the others keeping their order.
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination);

// The tensor repeated `repeats[i]` times along dim i (more repeats than dims add leading dims).
Tensor repeat(const Tensor& self, IntArrayRef repeats);
// As repeat, with fewer repeats than dims meaning leading 1s (numpy.tile).
Tensor tile(const Tensor& self, IntArrayRef dims);
// Each element repeated along dim (over the flattened tensor when dim is none).
Tensor repeat_interleave(const Tensor& self,
                         int64_t repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self,
                         const Tensor& repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
// The indices 0..n-1 repeated repeats[i] times (torch.repeat_interleave(repeats)).
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);

// Elements shifted along dims with wrap-around (over the flattened tensor when dims is empty).
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
// The order of elements reversed along dims (a copy, as PyTorch).
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor fliplr(const Tensor& self);  // flip(self, {1})
Tensor flipud(const Tensor& self);  // flip(self, {0})

// The lower (upper) triangle of the last two dims from diagonal k on; the rest zero.
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
// A view of the diagonal `offset` of the dims dim1 and dim2, appended as the last dim.
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
// Zeros of `input_sizes` with `grad` written on the diagonal: the gradient of diagonal.
Tensor diagonal_backward(
    const Tensor& grad, IntArrayRef input_sizes, int64_t offset, int64_t dim1, int64_t dim2);
// The last dim of self placed on the diagonal `offset` of new dims dim1 and dim2.
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
// 1-d: a square matrix with self on the diagonal; 2-d: the diagonal as a new 1-d tensor.
Tensor diag(const Tensor& self, int64_t diagonal = 0);

// expand with broadcast_to's checks; the tensors expanded to their common broadcast shape.
Tensor broadcast_to(const Tensor& self, IntArrayRef shape);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
// Coordinate grids of 0-d or 1-d tensors; indexing "ij" (matrix) or "xy" (Cartesian).
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing = "ij");

// torch.nn.functional.pad: `pad` lists (before, after) pairs from the last dim backwards;
// negative pads crop. mode "constant" (with value), "reflect", "replicate" or "circular".
Tensor pad(const Tensor& self,
           IntArrayRef pad,
           std::string_view mode = "constant",
           std::optional<Scalar> value = std::nullopt);

}  // namespace ember
