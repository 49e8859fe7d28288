// Kernel slots of the creation ops (ops/creation.cpp); filling uses the elementwise fill.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

struct CreationKernels {
  // out[i] = start + i * step (arange), or linspace from start to end (symmetric rounding).
  using Range = void (*)(const Tensor& out, double start, double step_or_end, bool linspace);

  Range range = nullptr;
};

}  // namespace ember
