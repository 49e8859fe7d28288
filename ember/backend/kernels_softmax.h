// Kernel slots of softmax and log_softmax (ops/softmax.cpp).
#pragma once

#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

struct SoftmaxKernels {
  // out = softmax (log_softmax when log) of in along dim; same shape and floating dtype.
  using Softmax = void (*)(const Tensor& out, const Tensor& in, int64_t dim, bool log);

  Softmax softmax = nullptr;
};

}  // namespace ember
