// Shape ops. cat, flip, diagonal and constant padding are primitives (a copy into a fresh output,
// or a view) with a backward of their own; the rest are composites of them and of the views.
#include "ember/ops/shape.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kShapeOps[] = {
    {"cat", OpKind::Other, kAllTypesAndComplex, true},
    {"stack", OpKind::Other, kAllTypesAndComplex, true},
    {"hstack", OpKind::Other, kAllTypesAndComplex, true},
    {"vstack", OpKind::Other, kAllTypesAndComplex, true},
    {"dstack", OpKind::Other, kAllTypesAndComplex, true},
    {"split", OpKind::View, kAllTypesAndComplex, true},
    {"chunk", OpKind::View, kAllTypesAndComplex, true},
    {"unbind", OpKind::View, kAllTypesAndComplex, true},
    {"unflatten", OpKind::View, kAllTypesAndComplex, true},
    {"movedim", OpKind::View, kAllTypesAndComplex, true},
    {"repeat", OpKind::Other, kAllTypesAndComplex, true},
    {"tile", OpKind::Other, kAllTypesAndComplex, true},
    {"repeat_interleave", OpKind::Other, kAllTypesAndComplex, true},
    {"roll", OpKind::Other, kAllTypesAndComplex, true},
    {"flip", OpKind::Other, kAllTypesAndComplex, true},
    {"fliplr", OpKind::Other, kAllTypesAndComplex, true},
    {"flipud", OpKind::Other, kAllTypesAndComplex, true},
    {"tril", OpKind::Other, kAllTypesAndComplex, true},
    {"triu", OpKind::Other, kAllTypesAndComplex, true},
    {"diagonal", OpKind::View, kAllTypesAndComplex, true},
    {"diag_embed", OpKind::Other, kAllTypesAndComplex, true},
    {"diag", OpKind::Other, kAllTypesAndComplex, true},
    {"broadcast_to", OpKind::View, kAllTypesAndComplex, true},
    {"broadcast_tensors", OpKind::View, kAllTypesAndComplex, true},
    {"meshgrid", OpKind::View, kAllTypesAndComplex, true},
    {"nn.functional.pad", OpKind::Other, kAllTypesAndComplex, true},
};

DimVector dims_of(IntArrayRef a) { return DimVector(a.data(), a.size()); }

// A tensor over self's storage with new geometry, remembering its base (as view.cpp's).
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor out(make_ref<TensorImpl>(self.storage(), self.dtype(), sizes, strides, offset));
  const Ref<TensorImpl>& base = self.is_view() ? self.impl()->view_base() : self.impl_ref();
  out.impl()->set_view_base(base, inplace_history(Tensor(base)));
  return out;
}

// dst = src (converting the dtype), without autograd: the copy kernel on the views given.
void copy_into(const Tensor& dst, const Tensor& src, const char* op) {
  if (dst.numel() == 0) return;
  kernel(kernels(dst.device()).elementwise.copy, dst.device(), op)(dst, src);
}

// Records `fn` as the backward of an op with any number of inputs and one output.
template <class F>
void record_many(const char* name, const std::vector<Tensor>& inputs, const Tensor& out, F fn) {
  std::vector<const Tensor*> ins;
  ins.reserve(inputs.size());
  for (const Tensor& t : inputs) ins.push_back(&t);
  auto node = std::make_shared<FunctionNode<F>>(name, std::move(fn));
  set_history(node, ins, std::vector<const Tensor*>{&out});
}

bool any_requires_grad(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts)
    if (any_requires_grad(t)) return true;
  return false;
}

// 1-d tensors of size 0 take no part in cat, whatever their shape (PyTorch's legacy rule).
bool skipped_in_cat(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

std::vector<Tensor> at_least(const std::vector<Tensor>& tensors, int64_t nd) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    if (t.dim() >= nd) {
      out.push_back(t);
    } else if (t.dim() == 0) {
      out.push_back(reshape(t, DimVector(size_t(nd), 1)));
    } else if (t.dim() == 1) {  // (n,) -> (1, n) or (1, n, 1)
      out.push_back(nd == 2 ? reshape(t, {1, t.sizes()[0]}) : reshape(t, {1, t.sizes()[0], 1}));
    } else {  // (m, n) -> (m, n, 1)
      out.push_back(unsqueeze(t, 2));
    }
  }
  return out;
}

void check_dims_unique(IntArrayRef wrapped, IntArrayRef given, const char* op, const char* what) {
  for (size_t i = 0; i < wrapped.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EMBER_CHECK(wrapped[i] != wrapped[j], "[", op, "] repeated dim in `", what, "` (", given,
                  ")");
}

}  // namespace

std::span<const OpInfo> shape_op_infos() { return kShapeOps; }

// ---- joining ------------------------------------------------------------------------------------

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "[cat] expected a non-empty list of Tensors");
  const Tensor* ref = nullptr;  // the first tensor that takes part: gives the shape
  DType dtype = tensors[0].dtype();
  const Device device = tensors[0].device();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() > 0, "[cat] zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
    EMBER_CHECK(t.device() == device, "[cat] expected all tensors to be on the same device, got ",
                device, " at position 0 and ", t.device(), " at position ", i);
    if (i > 0) dtype = promote_types(dtype, t.dtype());
    if (!ref && !skipped_in_cat(t)) ref = &t;
  }
  if (!ref) ref = &tensors[0];
  const int64_t d = wrap_dim(dim, ref->dim(), "cat");
  DimVector shape = dims_of(ref->sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (&t != ref && skipped_in_cat(t)) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "[cat] Tensors must have same number of dimensions: got ",
                ref->dim(), " and ", t.dim(), " (tensor number ", i, " in the list)");
    for (int64_t k = 0; k < t.dim(); ++k) {
      EMBER_CHECK(k == d || t.sizes()[k] == shape[k],
                  "[cat] Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  shape[k], " but got size ", t.sizes()[k], " for tensor number ", i,
                  " in the list.");
    }
    total += t.sizes()[d];
  }
  shape[d] = total;
  Tensor out = empty(shape, TensorOptions(dtype).device(device));
  // Where each input lies along d; -1 for the skipped ones.
  std::vector<std::pair<int64_t, int64_t>> pieces(tensors.size(), {-1, 0});
  {
    NoGradGuard no_grad;
    int64_t offset = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      if (&t != ref && skipped_in_cat(t)) continue;
      const int64_t n = t.sizes()[d];
      pieces[i] = {offset, n};
      if (n > 0 && out.numel() > 0) copy_into(narrow(out, d, offset, n), t, "cat");
      offset += n;
    }
  }
  if (any_requires_grad(tensors)) {
    record_many("CatBackward0", tensors, out,
                [d, pieces = std::move(pieces)](TensorList& g, Node& n) {
                  TensorList grads(pieces.size());
                  for (size_t i = 0; i < pieces.size(); ++i) {
                    if (!n.next_edges()[i].valid()) continue;
                    grads[i] = pieces[i].first < 0
                                   ? zeros({0}, TensorOptions(g[0].dtype()).device(g[0].device()))
                                   : narrow(g[0], d, pieces[i].first, pieces[i].second);
                  }
                  return grads;
                });
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "[stack] expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "[stack] expects each tensor to be equal size, but got ", tensors[0].sizes(),
                " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
    parts.push_back(unsqueeze(tensors[i], d));
  }
  return cat(parts, d);
}

Tensor hstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "[hstack] expects a non-empty TensorList");
  std::vector<Tensor> parts = at_least(tensors, 1);
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "[vstack] expects a non-empty TensorList");
  return cat(at_least(tensors, 2), 0);
}

Tensor dstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "[dstack] expects a non-empty TensorList");
  return cat(at_least(tensors, 3), 2);
}

// ---- splitting ----------------------------------------------------------------------------------

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[split] expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "split");
  const int64_t size = self.sizes()[d];
  EMBER_CHECK(split_size >= 0, "[split] split_size must be non-negative, got ", split_size);
  EMBER_CHECK(split_size > 0 || size == 0,
              "[split] split_size can only be 0 if dimension size is 0, but got dimension size of ",
              size);
  const int64_t n =
      split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  out.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t start = i * split_size;
    out.push_back(narrow(self, d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[split] expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "split");
  const int64_t size = self.sizes()[d];
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "[split] split_sizes must be non-negative, got ", split_sizes);
    total += s;
  }
  EMBER_CHECK(total == size, "[split] split_with_sizes expects split_sizes to sum exactly to ",
              size, " (input tensor's size at dimension ", d,
              "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(self, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "[chunk] expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "[chunk] expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, self.dim(), "chunk");
  const int64_t size = self.sizes()[d];
  const int64_t split_size = (size + chunks - 1) / chunks;
  // An empty dim gives `chunks` empty pieces, as PyTorch (split would give one).
  if (size == 0) return split_with_sizes(self, DimVector(size_t(chunks), 0), d);
  return split(self, split_size, d);
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  EMBER_CHECK_INDEX(self.dim() > 0, "[unbind] Dimension specified as ", dim,
                    " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, self.dim(), "unbind");
  std::vector<Tensor> out;
  out.reserve(size_t(self.sizes()[d]));
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(select(self, d, i));
  return out;
}

// ---- rearranging --------------------------------------------------------------------------------

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  EMBER_CHECK_INDEX(self.dim() > 0, "[unflatten] Dimension specified as ", dim,
                    " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, self.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "[unflatten] sizes must be non-empty");
  const int64_t size = self.sizes()[d];
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(infer < 0, "[unflatten] only one dimension can be inferred, got sizes ", sizes);
      infer = int64_t(i);
    } else {
      EMBER_CHECK(sizes[i] >= 0, "[unflatten] invalid size ", sizes[i], " in ", sizes);
      known *= sizes[i];
    }
  }
  DimVector inner = dims_of(sizes);
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && size % known == 0, "[unflatten] Provided sizes ", sizes,
                " don't multiply up to the size of dim ", dim, " (", size, ") in the input tensor");
    inner[size_t(infer)] = size / known;
  } else {
    EMBER_CHECK(known == size, "[unflatten] Provided sizes ", sizes,
                " don't multiply up to the size of dim ", dim, " (", size, ") in the input tensor");
  }
  DimVector shape;
  for (int64_t k = 0; k < d; ++k) shape.push_back(self.sizes()[k]);
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t k = d + 1; k < self.dim(); ++k) shape.push_back(self.sizes()[k]);
  return reshape(self, shape);
}

Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  EMBER_CHECK(source.size() == destination.size(),
              "[movedim] Invalid source or destination dims: source (", source,
              " dims) should contain the same number of dims as destination (", destination,
              " dims)");
  const int64_t nd = self.dim();
  DimVector src, dst;
  for (int64_t s : source) src.push_back(wrap_dim(s, nd, "movedim"));
  for (int64_t s : destination) dst.push_back(wrap_dim(s, nd, "movedim"));
  check_dims_unique(src, source, "movedim", "source");
  check_dims_unique(dst, destination, "movedim", "destination");
  if (nd == 0) return self;
  DimVector order(size_t(nd), -1);
  std::vector<bool> used(size_t(nd), false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[size_t(dst[i])] = src[i];
    used[size_t(src[i])] = true;
  }
  int64_t next = 0;  // the remaining dims fill the remaining places in order
  for (int64_t i = 0; i < nd; ++i) {
    if (order[size_t(i)] >= 0) continue;
    while (used[size_t(next)]) ++next;
    order[size_t(i)] = next++;
  }
  return permute(self, order);
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t nd = int64_t(repeats.size());
  EMBER_CHECK(nd >= self.dim(),
              "[repeat] Number of dimensions of repeat dims can not be smaller than number of "
              "dimensions of tensor: got ",
              nd, " repeats for a tensor of ", self.dim(), " dims");
  for (int64_t r : repeats)
    EMBER_CHECK(r >= 0, "[repeat] Trying to create tensor with negative dimension ", r, ": ",
                repeats);
  // (s0, s1, ...) viewed as (1, s0, 1, s1, ...), expanded to (r0, s0, r1, s1, ...), copied and
  // viewed as (r0 * s0, r1 * s1, ...): one copy, and expand's backward sums the repeats.
  DimVector inter, expanded, final_shape;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t j = i - (nd - self.dim());
    const int64_t s = j < 0 ? 1 : self.sizes()[j];
    inter.push_back(1);
    inter.push_back(s);
    expanded.push_back(repeats[i]);
    expanded.push_back(s);
    final_shape.push_back(repeats[i] * s);
  }
  return view(clone(expand(reshape(self, inter), expanded), MemoryFormat::Contiguous), final_shape);
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  if (int64_t(dims.size()) >= self.dim()) return repeat(self, dims);
  DimVector reps(size_t(self.dim() - int64_t(dims.size())), 1);
  for (int64_t r : dims) reps.push_back(r);
  return repeat(self, reps);
}

Tensor repeat_interleave(const Tensor& self,
                         int64_t repeats,
                         std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, "[repeat_interleave] repeats can not be negative, got ", repeats);
  const Tensor x = dim ? self : reshape(self, {-1});
  EMBER_CHECK_INDEX(x.dim() > 0, "[repeat_interleave] Dimension specified as ", *dim,
                    " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim.value_or(0), x.dim(), "repeat_interleave");
  const int64_t size = x.sizes()[d];
  EMBER_CHECK(!output_size || *output_size == size * repeats, "[repeat_interleave] output_size (",
              output_size.value_or(0), ") does not match the sum of repeats (", size * repeats,
              ")");
  DimVector expanded = dims_of(x.sizes()), final_shape = dims_of(x.sizes());
  expanded.insert(size_t(d) + 1, repeats);
  final_shape[size_t(d)] = size * repeats;
  return view(clone(expand(unsqueeze(x, d + 1), expanded), MemoryFormat::Contiguous), final_shape);
}

Tensor repeat_interleave(const Tensor& self,
                         const Tensor& repeats,
                         std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32,
              "[repeat_interleave] repeats has to be Long or Int tensor, got ", repeats.dtype());
  EMBER_CHECK(repeats.dim() <= 1, "[repeat_interleave] repeats must be 0-dim or 1-dim tensor, got ",
              repeats.dim(), " dims");
  if (repeats.numel() == 1)
    return repeat_interleave(self, repeats.item<int64_t>(), dim, output_size);
  const Tensor x = dim ? self : reshape(self, {-1});
  EMBER_CHECK_INDEX(x.dim() > 0, "[repeat_interleave] Dimension specified as ", *dim,
                    " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim.value_or(0), x.dim(), "repeat_interleave");
  const int64_t size = x.sizes()[d];
  EMBER_CHECK(repeats.numel() == size,
              "[repeat_interleave] repeats must have the same size as input along dim, but got "
              "repeats.size(0) = ",
              repeats.numel(), " and input.size(", d, ") = ", size);
  const std::vector<int64_t> reps = repeats.to_vector<int64_t>();
  int64_t total = 0;
  for (int64_t r : reps) {
    EMBER_CHECK(r >= 0, "[repeat_interleave] repeats can not be negative, got ", r);
    total += r;
  }
  EMBER_CHECK(!output_size || *output_size == total, "[repeat_interleave] output_size (",
              output_size.value_or(0), ") does not match the sum of repeats (", total, ")");
  // One expanded slice per element; cat copies them all into the output at once.
  std::vector<Tensor> parts;
  DimVector shape = dims_of(x.sizes());
  for (int64_t i = 0; i < size; ++i) {
    if (reps[size_t(i)] == 0) continue;
    shape[size_t(d)] = reps[size_t(i)];
    parts.push_back(expand(narrow(x, d, i, 1), shape));
  }
  if (parts.empty()) {
    shape[size_t(d)] = 0;
    parts.push_back(expand(narrow(x, d, 0, 0), shape));
  }
  return parts.size() == 1 ? clone(parts[0]) : cat(parts, d);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() <= 1, "[repeat_interleave] repeats must be 0-dim or 1-dim tensor, got ",
              repeats.dim(), " dims");
  const Tensor r = reshape(repeats, {-1});
  return repeat_interleave(arange(r.numel(), TensorOptions(r.dtype()).device(r.device())), r, 0,
                           output_size);
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1,
                "[roll] shifts and dimensions must align. shifts: ", shifts.size(), ", dims: 0");
    return view(roll(reshape(self, {-1}), shifts, {0}), self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(),
              "[roll] shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims: ", dims.size());
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim(), "roll");
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    out = cat({narrow(out, d, n - s, s), narrow(out, d, 0, n - s)}, d);
  }
  return out.is_same(self) ? clone(self) : out;
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  const int64_t nd = self.dim();
  DimVector wrapped;
  for (int64_t d : dims) wrapped.push_back(wrap_dim(d, nd, "flip"));
  for (size_t i = 0; i < wrapped.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EMBER_CHECK(wrapped[i] != wrapped[j], "[flip] dim ", wrapped[i],
                  " appears multiple times in the list of dims ", dims);
  // Copy from the input seen with negative strides along the flipped dims.
  DimVector strides = dims_of(self.strides());
  int64_t offset = self.storage_offset();
  if (nd > 0) {
    for (int64_t d : wrapped) {
      offset += (self.sizes()[d] - 1) * strides[size_t(d)];
      strides[size_t(d)] = -strides[size_t(d)];
    }
  }
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (self.numel() > 0) {
    const Tensor reversed(
        make_ref<TensorImpl>(self.storage(), self.dtype(), self.sizes(), strides, offset));
    copy_into(out, reversed, "flip");
  }
  if (any_requires_grad(self)) {
    record("FlipBackward0", {&self}, {&out},
           [wrapped](TensorList& g, Node&) { return TensorList{flip(g[0], wrapped)}; });
  }
  return out;
}

Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "[fliplr] Input must be >= 2-d, got ", self.dim(), "-d");
  return flip(self, {1});
}

Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "[flipud] Input must be >= 1-d, got ", self.dim(), "-d");
  return flip(self, {0});
}

// ---- triangles and diagonals --------------------------------------------------------------------

namespace {
Tensor triangle(const Tensor& self, int64_t k, bool lower, const char* op) {
  EMBER_CHECK(self.dim() >= 2, "[", op, "] input tensor must have at least 2 dimensions, got ",
              self.dim());
  const int64_t r = self.sizes()[self.dim() - 2], c = self.sizes()[self.dim() - 1];
  Tensor keep;
  {
    NoGradGuard no_grad;
    const TensorOptions opts = TensorOptions(kInt64).device(self.device());
    const Tensor diff = sub(arange(c, opts), reshape(arange(r, opts), {r, 1}));  // col - row
    keep = lower ? le(diff, k) : ge(diff, k);
  }
  return where(keep, self, zeros({}, TensorOptions(self.dtype()).device(self.device())));
}

struct DiagGeometry {
  DimVector sizes, strides;
  int64_t offset;
};

DiagGeometry diagonal_geometry(
    IntArrayRef sizes, IntArrayRef strides, int64_t base, int64_t offset, int64_t d1, int64_t d2) {
  int64_t len = offset >= 0 ? std::min(sizes[d1], sizes[d2] - offset)
                            : std::min(sizes[d1] + offset, sizes[d2]);
  len = std::max<int64_t>(len, 0);
  int64_t start = base;
  if (len > 0) start += offset >= 0 ? offset * strides[d2] : -offset * strides[d1];
  DiagGeometry g{{}, {}, start};
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (int64_t(k) == d1 || int64_t(k) == d2) continue;
    g.sizes.push_back(sizes[k]);
    g.strides.push_back(strides[k]);
  }
  g.sizes.push_back(len);
  g.strides.push_back(strides[d1] + strides[d2]);
  return g;
}

std::pair<int64_t, int64_t> diag_dims(int64_t dim1, int64_t dim2, int64_t nd, const char* op) {
  const int64_t d1 = wrap_dim(dim1, nd, op), d2 = wrap_dim(dim2, nd, op);
  EMBER_CHECK(d1 != d2, "[", op, "] diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  return {d1, d2};
}

// Zeros of `sizes` with `src` written on the diagonal; its backward takes the diagonal.
Tensor diagonal_scatter_zeros(const Tensor& src,
                              IntArrayRef sizes,
                              int64_t offset,
                              int64_t d1,
                              int64_t d2,
                              const char* name) {
  Tensor out = zeros(sizes, TensorOptions(src.dtype()).device(src.device()));
  const DiagGeometry g = diagonal_geometry(out.sizes(), out.strides(), 0, offset, d1, d2);
  EMBER_CHECK(src.sizes() == IntArrayRef(g.sizes), "[", name, "] expected a tensor of size ",
              g.sizes, " for the diagonal, got ", src.sizes());
  {
    NoGradGuard no_grad;
    copy_into(make_view(out, g.sizes, g.strides, g.offset), src, name);
  }
  if (any_requires_grad(src)) {
    record(name, {&src}, {&out}, [offset, d1, d2](TensorList& gr, Node&) {
      return TensorList{diagonal(gr[0], offset, d1, d2)};
    });
  }
  return out;
}
}  // namespace

Tensor tril(const Tensor& self, int64_t diagonal) { return triangle(self, diagonal, true, "tril"); }
Tensor triu(const Tensor& self, int64_t diagonal) {
  return triangle(self, diagonal, false, "triu");
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  auto [d1, d2] = diag_dims(dim1, dim2, self.dim(), "diagonal");
  const DiagGeometry g =
      diagonal_geometry(self.sizes(), self.strides(), self.storage_offset(), offset, d1, d2);
  Tensor out = make_view(self, g.sizes, g.strides, g.offset);
  if (any_requires_grad(self)) {
    record("DiagonalBackward0", {&self}, {&out},
           [in = dims_of(self.sizes()), offset, d1, d2](TensorList& g, Node&) {
             return TensorList{diagonal_backward(g[0], in, offset, d1, d2)};
           });
  }
  return out;
}

Tensor diagonal_backward(
    const Tensor& grad, IntArrayRef input_sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  auto [d1, d2] = diag_dims(dim1, dim2, int64_t(input_sizes.size()), "diagonal_backward");
  return diagonal_scatter_zeros(grad, input_sizes, offset, d1, d2, "DiagonalBackwardBackward0");
}

Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim() + 1;
  auto [d1, d2] = diag_dims(dim1, dim2, nd, "diag_embed");
  const int64_t n = self.sizes()[self.dim() - 1] + (offset < 0 ? -offset : offset);
  DimVector sizes;
  int64_t k = 0;  // the next of self's leading dims
  for (int64_t i = 0; i < nd; ++i) sizes.push_back(i == d1 || i == d2 ? n : self.sizes()[k++]);
  return diagonal_scatter_zeros(self, sizes, offset, d1, d2, "DiagEmbedBackward0");
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, "[diag] Supports 1D or 2D tensors. Got ",
              self.dim(), "D");
  if (self.dim() == 1) return diag_embed(self, diagonal, 0, 1);
  return clone(ember::diagonal(self, diagonal, 0, 1));
}

// ---- broadcasting -------------------------------------------------------------------------------

Tensor broadcast_to(const Tensor& self, IntArrayRef shape) {
  const int64_t nd = int64_t(shape.size()), sd = self.dim();
  EMBER_CHECK(nd >= sd, "[broadcast_to] the number of sizes provided (", nd,
              ") must be greater or equal to the number of dimensions in the tensor (", sd, ")");
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t j = i - (nd - sd), want = shape[i];
    EMBER_CHECK(want >= -1 && (j >= 0 || want >= 0), "[broadcast_to] invalid size ", want,
                " at dim ", i, " of ", shape);
    if (j < 0) continue;
    const int64_t have = self.sizes()[j];
    EMBER_CHECK(want == -1 || want == have || have == 1,
                "[broadcast_to] The expanded size of the tensor (", want,
                ") must match the existing size (", have, ") at non-singleton dimension ", i,
                ".  Target sizes: ", shape, ".  Tensor sizes: ", self.sizes());
  }
  return expand(self, shape);
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) return {};
  DimVector shape = dims_of(tensors[0].sizes());
  for (size_t i = 1; i < tensors.size(); ++i)
    shape = broadcast_shapes(shape, tensors[i].sizes(), "broadcast_tensors");
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(expand(t, shape));
  return out;
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), "[meshgrid] expects a non-empty TensorList");
  EMBER_CHECK(indexing == "ij" || indexing == "xy",
              "[meshgrid] indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1,
                "[meshgrid] Expected 0D or 1D tensor in the tensor list but got a tensor of ",
                tensors[i].dim(), " dims at position ", i);
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(),
                "[meshgrid] expects all tensors to have the same dtype, got ", tensors[0].dtype(),
                " and ", tensors[i].dtype());
    EMBER_CHECK(tensors[i].device() == tensors[0].device(),
                "[meshgrid] expects all tensors to have the same device");
  }
  // "xy" is "ij" with the first two inputs swapped, and then the first two grids.
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  std::vector<Tensor> ins = tensors;
  if (swap) std::swap(ins[0], ins[1]);
  const size_t n = ins.size();
  DimVector shape;
  for (const Tensor& t : ins) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  grids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    DimVector view_shape(n, 1);
    view_shape[i] = -1;
    grids.push_back(expand(reshape(ins[i], view_shape), shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

// ---- padding ------------------------------------------------------------------------------------

namespace {
// Constant padding (negative pads crop): a fill, then the input copied into the middle. Its
// backward is the same op with the pads negated and zero fill.
Tensor constant_pad(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const int64_t nd = self.dim();
  DimVector sizes = dims_of(self.sizes());
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = nd - 1 - int64_t(i);
    const int64_t padded = sizes[size_t(d)] + pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(padded >= 0, "[pad] The input size ", sizes[size_t(d)], ", plus negative padding ",
                pad[2 * i], " and ", pad[2 * i + 1],
                " resulted in a negative output size, which is invalid. Check dimension ", d,
                " of your input.");
    sizes[size_t(d)] = padded;
  }
  Tensor out = empty(sizes, TensorOptions(self.dtype()).device(self.device()));
  kernel(kernels(out.device()).elementwise.fill, out.device(), "pad")(out, value);
  {
    NoGradGuard no_grad;
    Tensor dst = out, src = self;
    bool empty_middle = false;
    for (size_t i = 0; i < pad.size() / 2 && !empty_middle; ++i) {
      const int64_t d = nd - 1 - int64_t(i), lo = pad[2 * i], hi = pad[2 * i + 1];
      const int64_t len = self.sizes()[d] + std::min<int64_t>(lo, 0) + std::min<int64_t>(hi, 0);
      if (len <= 0) {
        empty_middle = true;
        break;
      }
      dst = narrow(dst, d, std::max<int64_t>(lo, 0), len);
      src = narrow(src, d, std::max<int64_t>(-lo, 0), len);
    }
    if (!empty_middle) copy_into(dst, src, "pad");
  }
  if (any_requires_grad(self)) {
    DimVector neg;
    for (int64_t p : pad) neg.push_back(-p);
    record("ConstantPadNdBackward0", {&self}, {&out},
           [neg](TensorList& g, Node&) { return TensorList{constant_pad(g[0], neg, 0)}; });
  }
  return out;
}
}  // namespace

Tensor pad(const Tensor& self,
           IntArrayRef pad,
           std::string_view mode,
           std::optional<Scalar> value) {
  const int64_t nd = self.dim();
  EMBER_CHECK(pad.size() % 2 == 0, "[pad] Padding length must be divisible by 2, got ", pad.size());
  EMBER_CHECK(int64_t(pad.size()) <= 2 * nd,
              "[pad] Padding length should be less than or equal to two times the input "
              "dimension but got padding length ",
              pad.size(), " and input of dimension ", nd);
  if (mode == "constant") return constant_pad(self, pad, value.value_or(Scalar(0)));
  EMBER_CHECK_KIND(ErrorKind::NotImplemented,
                   mode == "reflect" || mode == "replicate" || mode == "circular",
                   "[pad] Unrecognised padding mode ", mode,
                   " (expected 'constant', 'reflect', 'replicate' or 'circular')");
  EMBER_CHECK(!value || value->to_double() == 0, "[pad] Padding mode \"", mode,
              "\" doesn't take in value argument");
  const int64_t k = int64_t(pad.size()) / 2;
  EMBER_CHECK_KIND(ErrorKind::NotImplemented, k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2),
                   "[pad] Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for "
                   "now: got padding length ",
                   pad.size(), " for an input of ", nd, " dims (mode ", mode, ")");
  // Negative pads crop first; then each dim gets its two borders, from pieces of itself.
  Tensor out = self;
  bool copied = false;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, lo = pad[2 * i], hi = pad[2 * i + 1];
    const int64_t size = self.sizes()[d];
    if (mode == "reflect") {
      EMBER_CHECK(lo < size && hi < size,
                  "[pad] Padding size should be less than the corresponding input dimension, but "
                  "got: padding (",
                  lo, ", ", hi, ") at dimension ", d, " of input ", self.sizes());
    } else if (mode == "circular") {
      EMBER_CHECK(lo <= size && hi <= size,
                  "[pad] Padding value causes wrapping around more than once: padding (", lo, ", ",
                  hi, ") at dimension ", d, " of input ", self.sizes());
    }
    const int64_t crop_lo = std::max<int64_t>(-lo, 0), crop_hi = std::max<int64_t>(-hi, 0);
    EMBER_CHECK(size - crop_lo - crop_hi >= 0, "[pad] The input size ", size,
                ", plus negative padding ", lo, " and ", hi,
                " resulted in a negative output size, which is invalid. Check dimension ", d,
                " of your input.");
    if (crop_lo || crop_hi) out = narrow(out, d, crop_lo, size - crop_lo - crop_hi);
    const int64_t n = out.sizes()[d], before = std::max<int64_t>(lo, 0),
                  after = std::max<int64_t>(hi, 0);
    if (before == 0 && after == 0) continue;
    EMBER_CHECK(n > 0 || mode == "circular", "[pad] padding mode \"", mode,
                "\" needs a non-empty input dimension, but dimension ", d, " of input ",
                self.sizes(), " is empty after cropping");
    std::vector<Tensor> parts;
    if (mode == "reflect") {
      EMBER_CHECK(before < n && after < n,
                  "[pad] Padding size should be less than the corresponding input dimension, but "
                  "got: padding (",
                  lo, ", ", hi, ") at dimension ", d, " of input ", self.sizes());
      if (before) parts.push_back(flip(narrow(out, d, 1, before), {d}));
      parts.push_back(out);
      if (after) parts.push_back(flip(narrow(out, d, n - 1 - after, after), {d}));
    } else if (mode == "replicate") {
      DimVector shape = dims_of(out.sizes());
      shape[size_t(d)] = before;
      if (before) parts.push_back(expand(narrow(out, d, 0, 1), shape));
      parts.push_back(out);
      shape[size_t(d)] = after;
      if (after) parts.push_back(expand(narrow(out, d, n - 1, 1), shape));
    } else {
      EMBER_CHECK(before <= n && after <= n,
                  "[pad] Padding value causes wrapping around more than once: padding (", lo, ", ",
                  hi, ") at dimension ", d, " of input ", self.sizes());
      if (before) parts.push_back(narrow(out, d, n - before, before));
      parts.push_back(out);
      if (after) parts.push_back(narrow(out, d, 0, after));
    }
    out = cat(parts, d);
    copied = true;
  }
  return copied ? out : clone(out);
}

}  // namespace ember
