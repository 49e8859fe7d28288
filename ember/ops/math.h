// Scalar functors of the elementwise ops: written once, called by the CPU loop and (later) the
// CUDA loop. Each takes and returns the "op math" type (float for the 16-bit floats).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#ifdef __CUDACC__
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember::math {

// Signed integer arithmetic wraps around, as in PyTorch, instead of being undefined: int32 and
// int64 compute in their unsigned twins (narrower types are promoted to int and cannot overflow).
template <class T, bool Wide = std::is_integral_v<T>&& std::is_signed_v<T> && (sizeof(T) >= 4)>
struct Wrap {
  using type = T;
};
template <class T>
struct Wrap<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using wrap_t = typename Wrap<T>::type;

// ---- unary ---------------------------------------------------------------------------------
struct Neg {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(wrap_t<T>(0) - wrap_t<T>(x));
  }
};
struct Abs {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>)
      return x;
    else
      return x < T(0) ? T(wrap_t<T>(0) - wrap_t<T>(x)) : x;
  }
};
struct Sign {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return x;
    else
      return T((T(0) < x) - (x < T(0)));
  }
};
struct Exp {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::exp(x);
  }
};
struct Log {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::log(x);
  }
};
struct Sqrt {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::sqrt(x);
  }
};
struct Tanh {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::tanh(x);
  }
};
struct Sigmoid {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(1) / (T(1) + std::exp(-x));
  }
};
struct Relu {
  // x < 0 ? 0 : x keeps NaN as NaN, as PyTorch does.
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }
};

// ---- binary --------------------------------------------------------------------------------
struct Add {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else
      return T(wrap_t<T>(a) + wrap_t<T>(b));
  }
};
struct Sub {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return T(wrap_t<T>(a) - wrap_t<T>(b));
  }
};
struct Mul {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else
      return T(wrap_t<T>(a) * wrap_t<T>(b));
  }
};
struct Div {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    return a / b;
  }
};
struct Pow {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      // Integer power by squaring. Negative exponents truncate toward zero as in PyTorch:
      // only bases 1 and -1 survive.
      if (b < T(0)) {
        if (a == T(1)) return T(1);
        if constexpr (std::is_signed_v<T>) {
          if (a == T(-1)) return (b % 2) ? T(-1) : T(1);
        }
        return T(0);
      }
      // In the unsigned twin: an overflowing result wraps (as PyTorch's), never undefined.
      using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < 4), int, T>>;
      U result = 1, base = U(a);
      auto e = b;
      while (true) {
        if (e & 1) result = U(result * base);
        e >>= 1;
        if (!e) break;
        base = U(base * base);
      }
      return T(result);
    }
  }
};

// ---- comparisons (return bool) -------------------------------------------------------------
struct Eq {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a == b;
  }
};
struct Ne {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a != b;
  }
};
struct Lt {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a < b;
  }
};
struct Le {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct Gt {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a > b;
  }
};
struct Ge {
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T a, T b) const {
    return a >= b;
  }
};

}  // namespace ember::math
