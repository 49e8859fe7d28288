// Scalar: a number from the user (a Python int/float/bool/complex or a C++ literal) before it
// meets a tensor. Its kind makes it a "weak" type in promotion: 2.5 * int_tensor is float32, not
// float64, and 1j * float_tensor is complex64.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "ember/core/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { v_.i = v; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int) {
    v_.i = static_cast<int64_t>(v);
  }
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Float) {
    v_.d = static_cast<double>(v);
  }
  Scalar(Half v) : Scalar(float(v)) {}
  Scalar(BFloat16 v) : Scalar(float(v)) {}
  template <class T>
  Scalar(std::complex<T> v) : kind_(Kind::Complex), im_(double(v.imag())) {
    v_.d = double(v.real());
  }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  // A complex value gives its real part to the real conversions (as a cast of a complex tensor
  // to a real dtype does), and to_bool is true when either part is nonzero.
  double to_double() const { return has_double() ? v_.d : double(v_.i); }
  int64_t to_int() const { return has_double() ? int64_t(v_.d) : v_.i; }
  bool to_bool() const { return has_double() ? v_.d != 0 || im_ != 0 : v_.i != 0; }
  double imag() const { return kind_ == Kind::Complex ? im_ : 0.0; }
  std::complex<double> to_complex() const { return {to_double(), imag()}; }

  // The value converted to T, as a C cast would (bool: nonzero).
  // The value converted to T as a C cast would (bool: nonzero); integers wrap around, as they
  // do when PyTorch combines a tensor with a Python number.
  template <class T>
  T to() const {
    if constexpr (is_std_complex<T>) {
      using R = typename T::value_type;
      return T(R(to_double()), R(imag()));
    } else if constexpr (std::is_same_v<T, bool>) {
      return to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      if (!has_double()) return static_cast<T>(v_.i);
      // Beyond int64 a float has no integer to wrap to (and the cast would be undefined).
      if (!(v_.d > -9.3e18 && v_.d < 9.3e18)) {
        detail::throw_error(ErrorKind::Runtime,
                            detail::str("value ", v_.d, " cannot be converted to an integer"));
      }
      return static_cast<T>(int64_t(v_.d));
    } else {
      return static_cast<T>(static_cast<opmath_t<T>>(to_double()));
    }
  }

  // As to<T>, but raises when the value does not fit T, as PyTorch's fill and full do ("value
  // cannot be converted to type int32 without overflow"). Floats are truncated toward zero.
  template <class T>
  T checked_to() const {
    if constexpr (!is_std_complex<T>) {
      // A complex value with an imaginary part has no real value to become (PyTorch's error).
      if (kind_ == Kind::Complex && im_ != 0) {
        detail::throw_error(ErrorKind::Runtime,
                            detail::str("value ", *this, " cannot be converted to type ",
                                        dtype_of<T>, " without overflow"));
      }
    }
    if constexpr (is_std_complex<T>) {
      // Complex values are never narrowed here (complex64 takes what a float would).
    } else if constexpr (!std::is_integral_v<T> && !std::is_same_v<T, double>) {
      // A finite value beyond T's range would become inf.
      const double m = double(float(std::numeric_limits<T>::max()));
      if (has_double() && std::isfinite(v_.d) && (v_.d > m || v_.d < -m)) {
        detail::throw_error(ErrorKind::Runtime,
                            detail::str("value ", *this, " cannot be converted to type ",
                                        dtype_of<T>, " without overflow"));
      }
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const bool fits =
          has_double()
              ? v_.d > double(std::numeric_limits<T>::lowest()) - 1.0 &&
                    v_.d < double(std::numeric_limits<T>::max()) + 1.0  // false for NaN too
              : v_.i >= int64_t(std::numeric_limits<T>::lowest()) &&
                    (v_.i <= 0 || uint64_t(v_.i) <= uint64_t(std::numeric_limits<T>::max()));
      if (!fits) {
        detail::throw_error(ErrorKind::Runtime,
                            detail::str("value ", *this, " cannot be converted to type ",
                                        dtype_of<T>, " without overflow"));
      }
    }
    return to<T>();
  }

  // The dtype this scalar would have as a tensor of its own: bool, int64, float64 or complex128.
  DType natural_dtype() const {
    return kind_ == Kind::Bool  ? kBool
           : kind_ == Kind::Int ? kInt64
           : is_complex()       ? kComplex128
                                : kFloat64;
  }

 private:
  bool has_double() const { return kind_ == Kind::Float || kind_ == Kind::Complex; }

  Kind kind_;
  union {
    int64_t i;
    double d;  // a float, or a complex value's real part
  } v_;
  double im_ = 0;  // a complex value's imaginary part
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
