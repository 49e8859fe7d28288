// Kernel slots of the random ops (ops/random.cpp): seeded Philox numbers, the same for any
// thread count.
#pragma once

#include <cstdint>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

enum class RandomDist : uint8_t { Uniform, Normal, Integer, Exponential };
// The samplers with per-element parameters (rejection methods: a draw takes a varying number of
// random numbers).
enum class ParamSampler : uint8_t { Gamma, Poisson, Binomial };

struct RandomKernels {
  // Fills out with samples: Uniform [a, b), Normal(mean a, std b), Integer [a, b) (a and b
  // exact int64 for Integer), Exponential(rate a).
  using Random = void (*)(
      RandomDist dist, const Tensor& out, Generator& gen, const Scalar& a, const Scalar& b);
  using Randperm = void (*)(const Tensor& out, Generator& gen);
  // out [rows, k] int64 = k category indices per row of the weights w [rows, n] (contiguous
  // float64, checked: finite, >= 0, positive sum; without replacement, k <= nonzero count).
  using Multinomial = void (*)(const Tensor& out,
                               const Tensor& w,
                               bool replacement,
                               Generator& gen);

  // out[i] (contiguous float64) = a draw with parameters a[i] (and b[i]), contiguous float64 of
  // out's shape: Gamma(concentration a, rate 1), Poisson(rate a), Binomial(count a, prob b).
  using Sample = void (*)(
      ParamSampler which, const Tensor& out, const Tensor& a, const Tensor& b, Generator& gen);

  Random random = nullptr;
  Randperm randperm = nullptr;
  Multinomial multinomial = nullptr;
  Sample sample = nullptr;
};

}  // namespace ember
