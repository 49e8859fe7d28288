// Data types, their C++ types, PyTorch's promotion table, and the dtype switch that instantiates a
// kernel only for the dtypes an op declares.
#pragma once

#include <complex>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "ember/core/error.h"
#include "ember/core/half.h"

namespace ember {

// The one list of dtypes: X(enum name, C++ type, Python name).
#define EMBER_FORALL_DTYPES(X)                   \
  X(Bool, bool, "bool")                          \
  X(UInt8, uint8_t, "uint8")                     \
  X(Int8, int8_t, "int8")                        \
  X(Int16, int16_t, "int16")                     \
  X(Int32, int32_t, "int32")                     \
  X(Int64, int64_t, "int64")                     \
  X(Float16, Half, "float16")                    \
  X(BFloat16, BFloat16, "bfloat16")              \
  X(Float32, float, "float32")                   \
  X(Float64, double, "float64")                  \
  X(Complex64, std::complex<float>, "complex64") \
  X(Complex128, std::complex<double>, "complex128")

enum class DType : uint8_t {
#define EMBER_DTYPE_ENUM(name, type, str) name,
  EMBER_FORALL_DTYPES(EMBER_DTYPE_ENUM)
#undef EMBER_DTYPE_ENUM
};
inline constexpr int kNumDTypes = 12;

// Short aliases for C++ users: ember::kFloat32, ...
inline constexpr DType kBool = DType::Bool;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt8 = DType::Int8;
inline constexpr DType kInt16 = DType::Int16;
inline constexpr DType kInt32 = DType::Int32;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;
inline constexpr DType kComplex64 = DType::Complex64;
inline constexpr DType kComplex128 = DType::Complex128;

constexpr size_t itemsize(DType t) {
  constexpr size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return sizes[int(t)];
}
// Real floating point (as PyTorch's is_floating_point: false for complex).
constexpr bool is_floating(DType t) { return t >= DType::Float16 && t <= DType::Float64; }
constexpr bool is_complex(DType t) { return t >= DType::Complex64; }
// The dtypes autograd tracks: floating and complex (PyTorch's isDifferentiableType).
constexpr bool is_differentiable(DType t) { return t >= DType::Float16; }
// complex64 <-> float32, complex128 <-> float64 (the dtype of a complex tensor's real part, and
// the complex dtype a real float computes in; float16 and bfloat16 go to complex64).
constexpr DType to_real_dtype(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}
constexpr DType to_complex_dtype(DType t) {
  return t == DType::Float64 || t == DType::Complex128 ? DType::Complex128 : DType::Complex64;
}
// Integral, bool excluded (as PyTorch's isIntegralType(t, includeBool=false)).
constexpr bool is_integral(DType t) { return t >= DType::UInt8 && t <= DType::Int64; }
constexpr bool is_signed(DType t) { return t != DType::Bool && t != DType::UInt8; }

std::string_view dtype_name(DType t);  // "float32"
std::ostream& operator<<(std::ostream& os, DType t);

// PyTorch's promoteTypes: the smallest dtype that holds both (uint8 + int8 -> int16,
// float16 + bfloat16 -> float32, any integer + any float -> that float).
DType promote_types(DType a, DType b);

// Whether T is std::complex<float> or std::complex<double>.
template <class T>
inline constexpr bool is_std_complex = false;
template <class T>
inline constexpr bool is_std_complex<std::complex<T>> = true;

// The C++ type that stores a dtype, and back.
template <DType D>
struct CppTypeOf;
template <class T>
struct DTypeOf;
#define EMBER_DTYPE_MAP(name, type, str)        \
  template <>                                   \
  struct CppTypeOf<DType::name> {               \
    using type_ = type;                         \
  };                                            \
  template <>                                   \
  struct DTypeOf<type> {                        \
    static constexpr DType value = DType::name; \
  };
EMBER_FORALL_DTYPES(EMBER_DTYPE_MAP)
#undef EMBER_DTYPE_MAP
template <DType D>
using cpp_type = typename CppTypeOf<D>::type_;
template <class T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

// A set of dtypes, as a bitmask; ops declare the dtypes they accept with one.
struct DTypeSet {
  uint16_t bits = 0;
  constexpr DTypeSet() = default;
  constexpr DTypeSet(DType t) : bits(uint16_t(1u << int(t))) {}
  constexpr bool contains(DType t) const { return bits & (1u << int(t)); }
  constexpr bool empty() const { return bits == 0; }
  constexpr DTypeSet operator|(DTypeSet o) const { return from_bits(bits | o.bits); }
  constexpr DTypeSet operator-(DTypeSet o) const { return from_bits(bits & ~o.bits); }
  static constexpr DTypeSet from_bits(unsigned b) {
    DTypeSet s;
    s.bits = uint16_t(b);
    return s;
  }
  friend constexpr bool operator==(DTypeSet, DTypeSet) = default;
};
inline constexpr DTypeSet kFloatingTypes = DTypeSet(kFloat16) | kBFloat16 | kFloat32 | kFloat64;
inline constexpr DTypeSet kIntegralTypes = DTypeSet(kUInt8) | kInt8 | kInt16 | kInt32 | kInt64;
inline constexpr DTypeSet kNumericTypes = kFloatingTypes | kIntegralTypes;
// kAllTypes is the real dtypes and bool: an op that also takes complex tensors says so with
// kComplexTypes, and a kernel is compiled for complex only where its op declares it.
inline constexpr DTypeSet kAllTypes = kNumericTypes | kBool;
inline constexpr DTypeSet kComplexTypes = DTypeSet(kComplex64) | kComplex128;
inline constexpr DTypeSet kAllTypesAndComplex = kAllTypes | kComplexTypes;
std::ostream& operator<<(std::ostream& os, DTypeSet s);

// Calls f.template operator()<T>() with T the C++ type of `t`, for the dtypes in Allowed only, so a
// kernel is compiled just for what its op declares. `op` names the op in the error for the rest.
template <DTypeSet Allowed = kAllTypes, class F>
decltype(auto) dispatch_dtype(DType t, const char* op, F&& f) {
  switch (t) {
#define EMBER_DTYPE_CASE(name, type, str)          \
  case DType::name:                                \
    if constexpr (Allowed.contains(DType::name)) { \
      return f.template operator()<type>();        \
    }                                              \
    break;
    EMBER_FORALL_DTYPES(EMBER_DTYPE_CASE)
#undef EMBER_DTYPE_CASE
  }
  EMBER_FAIL("[", op, "] not implemented for dtype ", t);
}

}  // namespace ember
