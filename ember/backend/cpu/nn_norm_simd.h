// Vectorised inner loops of the normalisation and dropout kernels (backend/cpu/nn_norm.cpp),
// compiled once per SIMD target with Highway and chosen at run time (nn_norm_simd.cpp), like
// simd.h. Every loop works on contiguous memory; the callers split tensors into such runs with a
// split that depends on the shape only, so results do not depend on the thread count.
#pragma once

#include <cstdint>

namespace ember::cpu::norm_simd {

// Loops for one floating type T (float or double). Sums are accumulated in T within one call
// (a call covers at most a few tens of thousands of elements) and returned in double.
template <class T>
struct Loops {
  // The mean of n > 0 contiguous values and the sum of squared deviations from it (two passes
  // over memory the caller keeps small enough for the cache). `next` (or null): the piece the
  // caller does next, prefetched during the second pass so that memory keeps streaming.
  void (*moments)(const T* x, int64_t n, double* mean, double* m2, const T* next) = nullptr;
  // y = x * scale + shift.
  void (*affine)(const T* x, T* y, int64_t n, T scale, T shift) = nullptr;
  // sg = sum(g), sgx = sum(g * (x - mean)).
  void (*dot_sums)(const T* g, const T* x, int64_t n, T mean, double* sg, double* sgx) = nullptr;
  // dx = a * g + b * x + c.
  void (*axpby)(const T* g, const T* x, T* dx, int64_t n, T a, T b, T c) = nullptr;
  // The same per column of `rows` contiguous rows of C values (channels-last data): column c has
  // its own mean / scale / shift / a / b / c; outputs are per column. rows_moments' `next` is
  // the next block of as many rows (or null).
  void (*rows_moments)(
      const T* x, int64_t rows, int64_t C, double* mean, double* m2, const T* next) = nullptr;
  void (*rows_affine)(const T* x, T* y, int64_t rows, int64_t C, const T* scale, const T* shift) =
      nullptr;
  void (*rows_dot_sums)(const T* g,
                        const T* x,
                        int64_t rows,
                        int64_t C,
                        const T* mean,
                        double* sg,
                        double* sgx) = nullptr;
  void (*rows_axpby)(
      const T* g, const T* x, T* dx, int64_t rows, int64_t C, const T* a, const T* b, const T* c) =
      nullptr;
  // Layer norm of one row: y = (x - mean) * rstd * w + b (w, b may be null: 1 and 0).
  void (*ln_apply)(const T* x, T* y, int64_t n, T mean, T rstd, const T* w, const T* b) = nullptr;
  // sgw = sum(g * w), sgwx = sum(g * w * (x - mean)) (w may be null: 1).
  void (*ln_sums)(
      const T* g, const T* x, const T* w, int64_t n, T mean, double* sgw, double* sgwx) = nullptr;
  // One row of the layer norm backward: dx = a * g * w + b * x + c where dx is not null (w
  // null: 1), and, where dw is not null, dw += g * (x - mean) * rstd and db += g (both given).
  // next_g / next_x (or null): the next row's, prefetched.
  void (*ln_backward_row)(const T* g,
                          const T* x,
                          const T* w,
                          T* dx,
                          int64_t n,
                          T mean,
                          T rstd,
                          T a,
                          T b,
                          T c,
                          T* dw,
                          T* db,
                          const T* next_g,
                          const T* next_x) = nullptr;
  // Dropout of n contiguous values whose first is element 64 * k of the tensor and whose random
  // words come from Philox counter `counter` = base + 16 * k (Note [Dropout mask] in
  // backend/cpu/nn_norm.cpp): y = x * (kept ? mul : 0) + (kept ? add_kept : add_dropped), kept
  // when the word is below `threshold`.
  void (*dropout)(const T* x,
                  T* y,
                  int64_t n,
                  uint64_t key,
                  uint64_t counter,
                  uint32_t threshold,
                  T mul,
                  T add_kept,
                  T add_dropped) = nullptr;
};

struct Table {
  const char* target = "";
  Loops<float> f32;
  Loops<double> f64;
  // The 64 random words of one group of 64 elements (Note [Dropout mask]): word 16 * j + l is
  // word j of Philox block (counter + l).
  void (*philox_group)(uint64_t key, uint64_t counter, uint32_t* words) = nullptr;
};

const Table& table();

template <class T>
const Loops<T>& loops() {
  if constexpr (sizeof(T) == 4)
    return table().f32;
  else
    return table().f64;
}

}  // namespace ember::cpu::norm_simd
