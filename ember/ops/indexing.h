// Indexing ops: selecting, gathering and scattering by index tensors and masks, and the advanced
// indexing behind x[idx] and x[idx] = v. Index tensors are int64 (int32 where PyTorch allows
// it); out-of-range indices raise IndexError naming the op, the index and the size.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// self.select(dim, index[i]) for each i of the 1-d (or 0-d) index, stacked along dim.
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
// out[p] = self[p with coordinate dim replaced by index[p]]; out has index's shape.
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
// The inverse of gather: a copy of self with self[... index[p] ...] = src[p] (or value). Where
// indices repeat, the last position wins (deterministic, unlike PyTorch's CPU kernel).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
// self[... index[p] ...] += src[p], in index order (so sums are deterministic).
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: "sum", "prod", "mean", "amax" or "amin"; include_self: whether self's values take part.
Tensor scatter_reduce(const Tensor& self,
                      int64_t dim,
                      const Tensor& index,
                      const Tensor& src,
                      std::string_view reduce,
                      bool include_self = true);
Tensor& scatter_reduce_(Tensor& self,
                        int64_t dim,
                        const Tensor& index,
                        const Tensor& src,
                        std::string_view reduce,
                        bool include_self = true);
// self.select(dim, index[i]) += alpha * source.select(dim, i) (copy_, fill_: = source, = value).
Tensor index_add(const Tensor& self,
                 int64_t dim,
                 const Tensor& index,
                 const Tensor& source,
                 const Scalar& alpha = 1);
Tensor& index_add_(
    Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);

// Masks are bool tensors that broadcast to self's shape.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);  // 0-d value
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value);
// The elements of self (broadcast with mask) where mask is true, as a 1-d tensor.
Tensor masked_select(const Tensor& self, const Tensor& mask);
// A copy of self with the masked positions taken, in order, from source's first elements.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source);
// self seen as 1-d, indexed by `index` (negative indices count from the end); index's shape.
Tensor take(const Tensor& self, const Tensor& index);
// gather with indices broadcast against self (except along dim); dim not given: take.
Tensor take_along_dim(const Tensor& self,
                      const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);

// The coordinates of the nonzero elements, [n, dim], in row-major order (argwhere is the same).
Tensor nonzero(const Tensor& self);
// One 1-d tensor of coordinates per dim (nonzero(as_tuple=True)).
std::vector<Tensor> nonzero_tuple(const Tensor& self);
// Insertion points of values into the sorted last dim of sorted_sequence (left: the first
// position with sorted >= v; right: > v). int64, or int32 with out_int32.
Tensor searchsorted(const Tensor& sorted_sequence,
                    const Tensor& values,
                    bool out_int32 = false,
                    bool right = false);
Tensor searchsorted(const Tensor& sorted_sequence,
                    const Scalar& value,
                    bool out_int32 = false,
                    bool right = false);
// The bucket of each input element among 1-d sorted boundaries.
Tensor bucketize(const Tensor& input,
                 const Tensor& boundaries,
                 bool out_int32 = false,
                 bool right = false);

// Advanced indexing (PyTorch's aten::index): indices[d] indexes dim d (nullopt: the whole dim).
// Bool and uint8 tensors are masks over as many dims as they have. The index tensors broadcast
// together; their shape replaces the indexed dims where those are adjacent, and goes first
// otherwise. Negative indices count from the end.
using OptionalTensors = std::vector<std::optional<Tensor>>;
Tensor index(const Tensor& self, const OptionalTensors& indices);
// self[indices] = values (accumulate: +=), values broadcast to the indexed shape.
Tensor index_put(const Tensor& self,
                 const OptionalTensors& indices,
                 const Tensor& values,
                 bool accumulate = false);
Tensor& index_put_(Tensor& self,
                   const OptionalTensors& indices,
                   const Tensor& values,
                   bool accumulate = false);

}  // namespace ember
