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
  } else if constexpr (is_std_complex<S> && !is_std_complex<D>) {
    return convert<D>(v.real());  // complex to real keeps the real part, as PyTorch's casts
  } else {
    return D(static_cast<opmath_t<D>>(static_cast<opmath_t<S>>(v)));
  }
}

// Whether `t` lines up with `out` element by element in memory from data_ptr() on: both
// contiguous with the same count (a broadcast that adds only size-1 dims), or both dense in the
// same permuted layout (channels-last). `out` must be dense.
inline bool flat_like(const Tensor& t, const Tensor& out) {
  if (out.is_contiguous()) return t.is_contiguous() && t.numel() == out.numel();
  return t.sizes() == out.sizes() && t.strides() == out.strides();
}

// Whether `out` and the tensor inputs can be walked as one flat array each: the common case, and
// the cheapest for tiny tensors (no iterator).
inline bool all_flat(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  if (!out.is_non_overlapping_and_dense()) return false;
  for (const Tensor* t : inputs)
    if (!flat_like(*t, out)) return false;
  return true;
}

// One run of n elements: out[i] = f(in[i]), with byte strides s (contiguous runs vectorise).
template <class O, class T, class F>
inline void unary_run(char** p, const int64_t* s, int64_t n, const F& f) {
  using A = opmath_t<T>;
  O* out = reinterpret_cast<O*>(p[0]);
  if (s[0] == sizeof(O) && s[1] == sizeof(T)) {
    const T* x = reinterpret_cast<const T*>(p[1]);
    for (int64_t i = 0; i < n; ++i) out[i] = O(f(A(x[i])));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const T x = *reinterpret_cast<const T*>(p[1] + i * s[1]);
      *reinterpret_cast<O*>(p[0] + i * s[0]) = O(f(A(x)));
    }
  }
}

// out[i] = f(a[i], b[i]); contiguous and stride-0 (broadcast) inputs take the fast loops.
template <class O, class T, class F>
inline void binary_run(char** p, const int64_t* s, int64_t n, const F& f) {
  using A = opmath_t<T>;
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
}

// out = f(in) with `in` read as T and the result stored as O, flat or through the iterator.
template <class O, class T, class F>
void run_unary(const Tensor& out, const Tensor& in, const F& f) {
  if (all_flat(out, {&in})) {
    char* base[2] = {static_cast<char*>(out.data_ptr()), static_cast<char*>(in.data_ptr())};
    const int64_t s[2] = {sizeof(O), sizeof(T)};
    parallel_for(0, out.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      char* p[2] = {base[0] + b * s[0], base[1] + b * s[1]};
      unary_run<O, T>(p, s, e - b, f);
    });
    return;
  }
  ElementwiseIter it;
  it.add_output(out);
  it.add_input(in);
  it.build();
  parallel_for(0, it.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
    it.for_each_row(b, e,
                    [&](char** p, const int64_t* s, int64_t n) { unary_run<O, T>(p, s, n, f); });
  });
}

// out = f(a, b). A scalar operand stays in the op-math type (a float for float16 tensors): rounding
// it to T first would change results (float16(1e5) is inf).
template <class T, class F>
void run_binary(const Tensor& out, const Operand& a, const Operand& b, const F& f) {
  using A = opmath_t<T>;
  using O = std::conditional_t<std::is_same_v<decltype(f(A(), A())), bool>, bool, T>;
  if (!a.tensor) {
    EMBER_ASSERT(b.tensor, "a binary kernel needs a tensor operand");
    const A av = a.scalar.to<A>();
    return run_unary<O, T>(out, *b.tensor, [&](A y) { return f(av, y); });
  }
  if (!b.tensor) {
    const A bv = b.scalar.to<A>();
    return run_unary<O, T>(out, *a.tensor, [&](A x) { return f(x, bv); });
  }
  if (all_flat(out, {a.tensor, b.tensor})) {
    char* base[3] = {static_cast<char*>(out.data_ptr()), static_cast<char*>(a.tensor->data_ptr()),
                     static_cast<char*>(b.tensor->data_ptr())};
    const int64_t s[3] = {sizeof(O), sizeof(T), sizeof(T)};
    parallel_for(0, out.numel(), kElementwiseGrain, [&](int64_t lo, int64_t hi) {
      char* p[3] = {base[0] + lo * s[0], base[1] + lo * s[1], base[2] + lo * s[2]};
      binary_run<O, T>(p, s, hi - lo, f);
    });
    return;
  }
  ElementwiseIter it;
  it.add_output(out);
  it.add_input(*a.tensor);
  it.add_input(*b.tensor);
  it.build();
  parallel_for(0, it.numel(), kElementwiseGrain, [&](int64_t lo, int64_t hi) {
    it.for_each_row(lo, hi,
                    [&](char** p, const int64_t* s, int64_t n) { binary_run<O, T>(p, s, n, f); });
  });
}

}  // namespace ember::cpu
