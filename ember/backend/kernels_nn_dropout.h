// Kernel slots of the dropout ops (ops/nn_dropout.cpp): one fused pass that draws the mask and
// applies it.
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

struct DropoutKernels {
  // Dropout: out and in (any floating dtype) have the same sizes and strides and are dense (their
  // elements fill one block of memory, in any dim order; they may be the same tensor). Element i in
  // memory order is kept when its random word (Note [Dropout mask] in backend/cpu/nn_dropout.cpp,
  // from Philox with `key` and counters from `counter`) is below `threshold`; out = in * (kept ?
  // mul : 0) + (kept ? add_kept : add_dropped), computed in in's op-math type.
  using Dropout = void (*)(const Tensor& out,
                           const Tensor& in,
                           uint64_t key,
                           uint64_t counter,
                           uint32_t threshold,
                           double mul,
                           double add_kept,
                           double add_dropped);

  Dropout dropout = nullptr;
};

// Philox counters one dropout call of n elements uses (16 blocks per group of 64 elements).
inline uint64_t dropout_counters(int64_t n) { return 16 * ((uint64_t(n) + 63) / 64); }

}  // namespace ember
