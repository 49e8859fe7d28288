#include "ember/core/dtype.h"

namespace ember {

std::string_view dtype_name(DType t) {
  switch (t) {
#define EMBER_DTYPE_NAME(name, type, str) \
  case DType::name:                       \
    return str;
    EMBER_FORALL_DTYPES(EMBER_DTYPE_NAME)
#undef EMBER_DTYPE_NAME
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

std::ostream& operator<<(std::ostream& os, DTypeSet s) {
  os << '{';
  bool first = true;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (!s.contains(DType(i))) continue;
    os << (first ? "" : ", ") << DType(i);
    first = false;
  }
  return os << '}';
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == kBool) return b;
  if (b == kBool) return a;
  // Complex wins over everything, at the precision of the wider of the two: complex64 with
  // float64 is complex128, as in PyTorch.
  if (is_complex(a) || is_complex(b)) {
    const bool wide = a == kComplex128 || b == kComplex128 || a == kFloat64 || b == kFloat64;
    return wide ? kComplex128 : kComplex64;
  }
  if (is_floating(a) && is_floating(b)) {
    // float16 and bfloat16 each lack range or precision the other has.
    if ((a == kFloat16 && b == kBFloat16) || (a == kBFloat16 && b == kFloat16)) return kFloat32;
    return a > b ? a : b;  // enum order: float16 < bfloat16 < float32 < float64
  }
  if (is_floating(a)) return a;
  if (is_floating(b)) return b;
  // Two distinct integer types.
  if (a == kUInt8 || b == kUInt8) {
    const DType other = a == kUInt8 ? b : a;
    return other == kInt8 ? kInt16 : other;  // uint8 values need a wider signed type
  }
  return a > b ? a : b;
}

}  // namespace ember
