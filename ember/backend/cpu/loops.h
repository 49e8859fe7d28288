// CPU elementwise loops: a functor applied over an ElementwiseIter, with contiguous and
// scalar-broadcast inner loops the compiler vectorises, parallel over the output.
#pragma once

#include <cstring>
#include <type_traits>

#include "ember/backend/common/elementwise_iter.h"
#include "ember/backend/kernels.h"
#include "ember/core/parallel.h"

namespace ember::cpu {

// Below this many elements a loop stays on the calling thread.
inline constexpr int64_t kElementwiseGrain = 32768;

// Converts between element types the way a C cast on the op-math types would; bool is nonzero.
template <class D, class S>
inline D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<D, bool>) {
    return static_cast<opmath_t<S>>(v) != opmath_t<S>(0);
  } else {
    return D(static_cast<opmath_t<D>>(static_cast<opmath_t<S>>(v)));
  }
}

// out[i] = f(in...) over the iterator, where each input is read as T and the result stored as O.
// The row callback gets byte strides; contiguous and stride-0 inputs take the fast loops.
template <class O, class T, class F>
void unary_rows(const ElementwiseIter& it, const F& f) {
  parallel_for(0, it.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
    it.for_each_row(b, e, [&](char** p, const int64_t* s, int64_t n) {
      O* out = reinterpret_cast<O*>(p[0]);
      const char* in = p[1];
      if (s[0] == sizeof(O) && s[1] == sizeof(T)) {
        const T* x = reinterpret_cast<const T*>(in);
        for (int64_t i = 0; i < n; ++i) out[i] = O(f(static_cast<opmath_t<T>>(x[i])));
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const T x = *reinterpret_cast<const T*>(in + i * s[1]);
          *reinterpret_cast<O*>(p[0] + i * s[0]) = O(f(static_cast<opmath_t<T>>(x)));
        }
      }
    });
  });
}

template <class O, class T, class F>
void binary_rows(const ElementwiseIter& it, const F& f) {
  using A = opmath_t<T>;
  parallel_for(0, it.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
    it.for_each_row(b, e, [&](char** p, const int64_t* s, int64_t n) {
      O* out = reinterpret_cast<O*>(p[0]);
      const T* x = reinterpret_cast<const T*>(p[1]);
      const T* y = reinterpret_cast<const T*>(p[2]);
      constexpr int64_t kT = sizeof(T), kO = sizeof(O);
      if (s[0] == kO && s[1] == kT && s[2] == kT) {
        for (int64_t i = 0; i < n; ++i) out[i] = O(f(A(x[i]), A(y[i])));
      } else if (s[0] == kO && s[1] == kT && s[2] == 0) {
        const A yv = A(*y);
        for (int64_t i = 0; i < n; ++i) out[i] = O(f(A(x[i]), yv));
      } else if (s[0] == kO && s[1] == 0 && s[2] == kT) {
        const A xv = A(*x);
        for (int64_t i = 0; i < n; ++i) out[i] = O(f(xv, A(y[i])));
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const T xv = *reinterpret_cast<const T*>(p[1] + i * s[1]);
          const T yv = *reinterpret_cast<const T*>(p[2] + i * s[2]);
          *reinterpret_cast<O*>(p[0] + i * s[0]) = O(f(A(xv), A(yv)));
        }
      }
    });
  });
}

// out = f(a, b). A scalar operand stays in the op-math type (a float for float16 tensors): rounding
// it to T first would change results (float16(1e5) is inf).
template <class T, class F>
void run_binary(const Tensor& out, const Operand& a, const Operand& b, const F& f) {
  using A = opmath_t<T>;
  using O = std::conditional_t<std::is_same_v<decltype(f(A(), A())), bool>, bool, T>;
  ElementwiseIter it;
  it.add_output(out);
  if (a.tensor && b.tensor) {
    it.add_input(*a.tensor);
    it.add_input(*b.tensor);
    it.build();
    binary_rows<O, T>(it, f);
  } else if (a.tensor) {
    it.add_input(*a.tensor);
    it.build();
    const A bv = b.scalar.to<A>();
    unary_rows<O, T>(it, [&](A x) { return f(x, bv); });
  } else {
    EMBER_ASSERT(b.tensor, "a binary kernel needs a tensor operand");
    it.add_input(*b.tensor);
    it.build();
    const A av = a.scalar.to<A>();
    unary_rows<O, T>(it, [&](A y) { return f(av, y); });
  }
}

}  // namespace ember::cpu
