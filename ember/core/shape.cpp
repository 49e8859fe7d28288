#include "ember/core/shape.h"

#include <algorithm>
#include <span>

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n),
                "numel: integer multiplication overflow for "
                "sizes ",
                sizes);
  }
  return n;
}

size_t storage_nbytes(int64_t numel, size_t itemsize) {
  size_t bytes = 0;
  EMBER_CHECK(numel >= 0 && !__builtin_mul_overflow(size_t(numel), itemsize, &bytes) &&
                  bytes < (size_t(1) << 62),
              "Storage size calculation overflowed: ", numel, " elements of ", itemsize, " bytes");
  return bytes;
}

bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides) {
  for (int64_t s : sizes)
    if (s == 0) return true;  // no element: any strides will do
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

namespace {
// Dims from innermost to outermost in a format's order: (C, W, H, N) and (C, W, H, D, N).
constexpr int64_t kChannelsLastOrder[] = {1, 3, 2, 0};
constexpr int64_t kChannelsLast3dOrder[] = {1, 4, 3, 2, 0};

std::span<const int64_t> order_of(MemoryFormat format) {
  if (format == MemoryFormat::ChannelsLast) return kChannelsLastOrder;
  return kChannelsLast3dOrder;
}
}  // namespace

DimVector strides_for(IntArrayRef sizes, MemoryFormat format, const char* op) {
  EMBER_CHECK(format != MemoryFormat::Preserve, "[", op,
              "] preserve_format has no strides of its own (it copies a tensor's)");
  if (format == MemoryFormat::Contiguous) return contiguous_strides(sizes);
  const size_t want = format == MemoryFormat::ChannelsLast ? 4 : 5;
  EMBER_CHECK(sizes.size() == want, "[", op, "] ",
              format == MemoryFormat::ChannelsLast ? "channels_last" : "channels_last_3d",
              " needs a ", want, "-d tensor, got ", sizes.size(), " dims");
  DimVector strides(sizes.size(), 0);
  int64_t step = 1;
  for (int64_t d : order_of(format)) {
    strides[size_t(d)] = step;
    step *= std::max<int64_t>(sizes[size_t(d)], 1);
  }
  return strides;
}

bool is_layout_of(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  if (format == MemoryFormat::Contiguous) return is_contiguous_layout(sizes, strides);
  if (format == MemoryFormat::Preserve) return true;
  if (sizes.size() != (format == MemoryFormat::ChannelsLast ? 4u : 5u)) return false;
  for (int64_t s : sizes)
    if (s == 0) return true;
  int64_t expected = 1;
  for (int64_t d : order_of(format)) {
    if (sizes[size_t(d)] == 1) continue;
    if (strides[size_t(d)] != expected) return false;
    expected *= sizes[size_t(d)];
  }
  return true;
}

bool is_dense_layout(IntArrayRef sizes, IntArrayRef strides) {
  if (is_contiguous_layout(sizes, strides)) return true;
  // Dims of size > 1 sorted by stride must step as a contiguous tensor would.
  DimVector dims;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return true;
    if (sizes[d] != 1) dims.push_back(int64_t(d));
  }
  std::sort(dims.begin(), dims.end(),
            [&](int64_t a, int64_t b) { return strides[size_t(a)] < strides[size_t(b)]; });
  int64_t expected = 1;
  for (int64_t d : dims) {
    if (strides[size_t(d)] != expected) return false;
    expected *= sizes[size_t(d)];
  }
  return true;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  EMBER_CHECK_INDEX(dim >= -n && dim < n, "[", op, "] dim ", dim,
                    " is out of range for a tensor of ", ndim, " dims (expected a dim in [", -n,
                    ", ", n - 1, "])");
  return dim < 0 ? dim + n : dim;
}

int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides, const char* op) {
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "[", op, "] sizes must be non-negative, got ", sizes);
    if (s == 0) return 0;
  }
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;  // its stride is never used
    EMBER_CHECK(strides[i] >= 0, "[", op, "] strides must be non-negative, got ", strides);
    int64_t reach = 0;
    EMBER_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) &&
                    !__builtin_add_overflow(last, reach, &last),
                "[", op, "] Storage size calculation overflowed with sizes=", sizes,
                " and strides=", strides);
  }
  return last + 1;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right: i counts dims from the last one.
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    EMBER_CHECK(da == db || da == 1 || db == 1, "[", op, "] shapes ", a, " and ", b,
                " cannot be broadcast: size ", da, " vs ", db, " at dim ", int64_t(n - 1 - i),
                " of the result");
    out[n - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

bool is_expandable_to(IntArrayRef shape, IntArrayRef target) {
  if (shape.size() > target.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t s = shape[shape.size() - 1 - i];
    const int64_t t = target[target.size() - 1 - i];
    if (s != t && s != 1) return false;
  }
  return true;
}

DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out(shape.data(), shape.size());
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(infer < 0, "[", op, "] only one dimension can be inferred, got shape ", shape);
      infer = int(i);
    } else {
      EMBER_CHECK(shape[i] >= 0, "[", op, "] invalid shape dimension ", shape[i], " in ", shape);
      EMBER_CHECK(!__builtin_mul_overflow(known, shape[i], &known), "[", op, "] shape ", shape,
                  " overflows the number of elements");
    }
  }
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && numel % known == 0, "[", op, "] shape ", shape,
                " is invalid for input of size ", numel);
    out[infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, "[", op, "] shape ", shape, " is invalid for input of size ",
                numel);
  }
  return out;
}

}  // namespace ember
