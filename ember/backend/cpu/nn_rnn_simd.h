// Vectorised row loops of the recurrent and attention kernels (nn_rnn.cpp, nn_attention.cpp),
// compiled once per SIMD target by Highway (nn_rnn_simd.cpp) and chosen at run time, as simd.h's.
#pragma once

#include <cstdint>

#include "ember/backend/kernels_nn_rnn.h"

namespace ember::cpu::rnn_simd {

// One batch row of a cell step: the pointers a mode reads or writes, the others null. Gate blocks
// are H apart (xg, hg, ib, hb, ws, dgi, dgh); hg (except for Gru) and the biases ib and hb may be
// null (zero).
//   forward:  xg, hg, ib, hb, hx (Gru), cx (Lstm) -> hy, cy (Lstm), ws (Lstm, Gru; may be null
//             when no backward needs it)
//   backward: dh = g0 + g1 + g2 (each may be null), dcy (Lstm, may be null), ws, hx (Gru),
//             cx (Lstm), cy (Lstm), hy (Tanh, Relu) -> dgi, dgh (Gru), dcx (Lstm), dhx (Gru).
//             dcx may be dcy and dhx may be g2 (each element is read before it is written).
template <class T>
struct CellRow {
  const T *xg = nullptr, *hg = nullptr, *ib = nullptr, *hb = nullptr;
  const T *hx = nullptr, *cx = nullptr;
  T *ws = nullptr, *hy = nullptr, *cy = nullptr;
  const T *g0 = nullptr, *g1 = nullptr, *g2 = nullptr, *dcy = nullptr;
  T *dgi = nullptr, *dgh = nullptr, *dcx = nullptr, *dhx = nullptr;
  int64_t H = 0;
};

template <class T>
struct Fns {
  // Attention rows.
  T (*row_max)(const T* x, int64_t n) = nullptr;  // NaN if any is NaN; -inf for n == 0
  // x[i] = exp(x[i] - m) (0 where x[i] - m is below the dtype's exp range, -inf included);
  // returns the sum of the new values.
  T (*exp_shift_sum)(T* x, int64_t n, T m) = nullptr;
  void (*scale)(T* x, int64_t n, T a) = nullptr;                  // x *= a
  void (*add)(T* x, const T* y, int64_t n) = nullptr;             // x += y
  void (*dsoftmax)(T* dp, const T* p, int64_t n, T d) = nullptr;  // dp = p * (dp - d)
  T (*dot)(const T* a, const T* b, int64_t n) = nullptr;
  // Cell steps, indexed by RnnMode.
  void (*cell_forward[4])(const CellRow<T>& r) = {};
  void (*cell_backward[4])(const CellRow<T>& r) = {};
};

struct Table {
  const char* target = "";
  Fns<float> f32;
  Fns<double> f64;
};

// The table of the best target this CPU supports (chosen on first use).
const Table& table();

template <class T>
const Fns<T>& fns() {
  if constexpr (sizeof(T) == 4) {
    return table().f32;
  } else {
    return table().f64;
  }
}

}  // namespace ember::cpu::rnn_simd
