// Vectorised row loops of the fused cross entropy and the embedding bags (backend/cpu/nn_loss.cpp),
// compiled once per SIMD target with Highway and chosen at run time, like backend/cpu/simd.h. Rows
// are contiguous float32 (index 0) or float64 (index 1) values; scalars travel as double. Each loop
// runs in a fixed order, so a row's result does not depend on which thread runs it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::cpu::loss_simd {

// Prefetches the cache line holding p into L1. An asm statement, because GCC 12 drops a loop of
// __builtin_prefetch calls as dead code (it has no side effect the optimiser must keep).
inline void prefetch_line(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

// Prefetches every cache line of [p, p + bytes): from the line holding p, so that a row that
// does not start on a line boundary (NumPy's memory is 16-byte aligned) has its last line too.
inline void prefetch_bytes(const void* p, size_t bytes) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63);
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
  for (uintptr_t a = first; a < end; a += 64) prefetch_line(reinterpret_cast<const void*>(a));
}

struct Table {
  // The max of n > 0 values; *special is set when any value is NaN or infinite (the caller then
  // takes its scalar path, which has PyTorch's NaN and inf behaviour).
  double (*max)(const void* x, int64_t n, bool* special) = nullptr;
  // sum(exp(x - shift)) with x - shift <= 0 (no overflow).
  double (*sum_exp)(const void* x, int64_t n, double shift) = nullptr;
  // sum(x), or sum(w * x) when w is not null (label smoothing's term).
  double (*sum)(const void* x, const void* w, int64_t n) = nullptr;
  // out = a * exp(x - lse) - c * w (w null: - c): the gradient of a row, before the target's term.
  void (*grad)(const void* x, int64_t n, double lse, double a, double c, const void* w, void* out) =
      nullptr;
  // acc[i] += s * x[i] for i < n (s == 1: a plain add): embedding bag sums and their gradients.
  void (*axpy)(void* acc, const void* x, int64_t n, double s) = nullptr;
  // Bags [b0, b1): out[bag, 0:n] = sum over k in [starts[bag], starts[bag + 1]) of
  // s_k * row(idx[k])[0:n], row(i) = base + i * stride (in elements), s_k = w[k] when w is not
  // null, else 1 / count for a mean, else 1; indices equal to `pad` (when >= 0) are skipped and
  // bag_size[bag] = the rows counted. The sums stay in registers across a bag, and rows are
  // prefetched ahead, across bags: every idx[0:n_idx] must be in range (checked by the caller).
  void (*bag_sums)(void* out,
                   const void* base,
                   int64_t stride,
                   const int64_t* idx,
                   const int64_t* starts,
                   int64_t b0,
                   int64_t b1,
                   int64_t n_idx,
                   const void* w,
                   bool mean,
                   int64_t pad,
                   int64_t n,
                   int64_t* bag_size) = nullptr;
};

// The tables for float32 ([0]) and float64 ([1]) on the best target this CPU supports.
const Table* tables();

}  // namespace ember::cpu::loss_simd
