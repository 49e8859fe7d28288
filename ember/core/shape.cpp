#include "ember/core/shape.h"

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
  for (int64_t s : sizes) n *= s;
  return n;
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

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  EMBER_CHECK_INDEX(dim >= -n && dim < n, "[", op, "] dim ", dim,
                    " is out of range for a tensor of ", ndim, " dims (expected a dim in [", -n,
                    ", ", n - 1, "])");
  return dim < 0 ? dim + n : dim;
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
      known *= shape[i];
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
