// Vectorised inner loops for contiguous float32 and float64 data, compiled once per SIMD target
// (SSE4, AVX2, AVX-512, ...) with Highway and chosen at run time for the CPU at hand
// (backend/cpu/simd.cpp). The elementwise kernels, the sum and softmax call them for contiguous
// runs; everything else (strided data, other dtypes) takes the portable loops in loops.h.
#pragma once

#include <cstdint>

#include "ember/core/elementwise_ops.h"
#include "ember/core/scalar.h"

namespace ember::cpu::simd {

// out[i] = f(in[i]) for i < n.
using UnaryFn = void (*)(const void* in, void* out, int64_t n);
// The same with the op's parameters (ParamUnaryOp).
using ParamUnaryFn = void (*)(const void* in, void* out, int64_t n, const Scalar* params);
// out[i] = f(a[i], b[i]); `a_scalar` / `b_scalar`: that operand is one value used for every i.
using BinaryFn =
    void (*)(const void* a, const void* b, void* out, int64_t n, bool a_scalar, bool b_scalar);
// The sum of n contiguous values, accumulated in a fixed order (independent of threads).
using SumFn = double (*)(const void* in, int64_t n);
// The smallest and largest of n contiguous int64 values (n > 0): index bounds checks.
using MinMaxFn = void (*)(const int64_t* in, int64_t n, int64_t* lo, int64_t* hi);
// softmax (log_softmax when log) of one contiguous line of n values.
using SoftmaxFn = void (*)(const void* in, void* out, int64_t n, bool log);

// Index 0: float32, 1: float64.
struct Table {
  const char* target = "";  // the SIMD target chosen, e.g. "AVX2"
  UnaryFn unary[2][kNumUnaryOps] = {};
  ParamUnaryFn param_unary[2][kNumParamUnaryOps] = {};
  BinaryFn binary[2][kNumBinaryOps] = {};
  SumFn sum[2] = {};
  SoftmaxFn softmax[2] = {};
  MinMaxFn minmax_i64 = nullptr;
};

// The table for the best target this CPU supports (chosen on first use).
const Table& table();

}  // namespace ember::cpu::simd
