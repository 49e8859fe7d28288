// Kernel slots of the recurrent ops (ops/nn_rnn.cpp): RNN, LSTM and GRU cells and sequences.
//
// Layout rules shared by the slots: every tensor has the op's compute dtype (float32 or
// float64); 2-d "row" tensors [B, n] may have any row stride but unit stride in their last dim;
// tensors the ops allocate as workspace (ws, d_igates, d_hgates) are contiguous.
#pragma once

#include <cstdint>
#include <memory>

#include "ember/core/tensor.h"

namespace ember {

// The recurrence of a cell; G gate blocks of H columns each (rnn_gates).
enum class RnnMode : uint8_t { Tanh, Relu, Lstm, Gru };
constexpr int64_t rnn_gates(RnnMode m) {
  return m == RnnMode::Lstm ? 4 : m == RnnMode::Gru ? 3 : 1;
}

// One time step of the fused gate nonlinearity, for each row b of the batch, in PyTorch's gate
// order (LSTM i, f, g, o; GRU r, z, n). pre = igates + ibias + hgates + hbias, except GRU's n:
// hgates may be undefined (zero): the recurrent product was accumulated into igates.
//   Tanh/Relu: hy = act(pre)
//   Lstm:      i, f, o = sigmoid(pre), g = tanh(pre); cy = f * cx + i * g; hy = o * tanh(cy);
//              ws = [i, f, g, o]
//   Gru:       r, z = sigmoid(pre); hn = hgates_n + hbias_n; n = tanh(igates_n + ibias_n + r * hn);
//              hy = (1 - z) * n + z * hx; ws = [r, z, n, hn]
struct RnnCellForward {
  Tensor igates, hgates;  // [B, G*H]
  Tensor ibias, hbias;    // [G*H] contiguous, or undefined (zero)
  Tensor hx, cx;          // [B, H]: hx read by Gru, cx by Lstm
  Tensor hy, cy;          // [B, H] outputs (cy: Lstm)
  Tensor ws;              // [B, 4H] contiguous output (Lstm, Gru), or undefined: not kept
};

// The gradient of one step of RnnCellForward. grad_hy is g0 + g1 + g2 (each [B, H] or undefined);
// grad_cy (Lstm) may be undefined (zero). Reads ws, cx and cy (Lstm), hx (Gru), hy (Tanh, Relu).
// Writes d_igates, the gradient of the pre-activations on the input side, and, for Gru only,
// d_hgates (the hidden side, which differs in the n block: r * dn); for the other modes the hidden
// side equals d_igates. grad_cx (Lstm) is the gradient of cx; grad_hx (Gru) the part of hx's
// gradient that does not pass through the recurrent product (z * grad_hy).
struct RnnCellBackward {
  Tensor g0, g1, g2, grad_cy;
  Tensor ws, hx, cx, hy, cy;
  Tensor d_igates, d_hgates;  // [B, G*H] contiguous
  Tensor grad_cx, grad_hx;    // [B, H] contiguous
};

// Weights prepared by RnnKernels::pack_weights for many products with the same right operand;
// the contents are the backend's.
struct RnnPackedWeights {
  virtual ~RnnPackedWeights() = default;
  // True when the backend really prepared them (the products are then faster than plain ones).
  virtual bool prepared() const { return false; }
};

struct RnnKernels {
  // out = a @ b (accumulate: out += a @ b) for 2-d tensors, each with unit stride in one of its
  // dims (out: in its last); out may be a strided slice of a larger buffer. Cut into fixed blocks
  // of rows and columns, never along k, so every element is summed by one library call in one
  // order: the same bits on any thread count (Note [Deterministic matmul] in cpu/linalg.cpp).
  using Gemm = void (*)(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate);
  // Prepares b [k, n] (any strides; kept alive by the result) for products a @ b with a [m, k] of
  // row stride lda into out [m, n] of row stride ldc (unit column strides): the recurrent product
  // of every time step. The CPU reorders float32 weights once into oneDNN's blocked layout.
  using PackWeights = std::unique_ptr<RnnPackedWeights> (*)(
      const Tensor& b, int64_t m, int64_t lda, int64_t ldc, bool accumulate);
  // out = a @ b (accumulate: out += a @ b) with b prepared by PackWeights; other strides than the
  // prepared ones are allowed (a plain product then). Deterministic as Gemm.
  using PackedGemm = void (*)(const RnnPackedWeights& w, const Tensor& out, const Tensor& a);
  using CellForward = void (*)(RnnMode mode, const RnnCellForward& args);
  using CellBackward = void (*)(RnnMode mode, const RnnCellBackward& args);
  Gemm gemm = nullptr;
  PackWeights pack_weights = nullptr;
  PackedGemm packed_gemm = nullptr;
  CellForward cell_forward = nullptr;
  CellBackward cell_backward = nullptr;
};

}  // namespace ember
