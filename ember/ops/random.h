// Random tensors (rand, randn, randint, randperm and their *_like), sampling ops that take their
// parameters from tensors (bernoulli, multinomial, normal) and the in-place samplers of Tensor
// (normal_, uniform_, ...). Draws come from the counter-based
// generator (core/generator.h): reproducible for a seed, whatever the thread count.
#pragma once

#include <optional>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

// Uniform on [0, 1), standard normal, integers in [low, high), a permutation of 0..n-1.
Tensor rand(IntArrayRef size, TensorOptions options = {}, Generator* generator = nullptr);
Tensor randn(IntArrayRef size, TensorOptions options = {}, Generator* generator = nullptr);
Tensor randint(int64_t low,
               int64_t high,
               IntArrayRef size,
               TensorOptions options = {},
               Generator* generator = nullptr);
Tensor randperm(int64_t n, TensorOptions options = {}, Generator* generator = nullptr);
// The same shape as `like` (and by default its dtype and device); requires_grad is not copied.
Tensor rand_like(const Tensor& like, TensorOptions options = {}, Generator* generator = nullptr);

// 1 with probability p[i], else 0; p's shape and (floating) dtype; p in [0, 1].
Tensor bernoulli(const Tensor& p, Generator* generator = nullptr);
// 1 with probability p, else 0, in self's shape and dtype.
Tensor bernoulli(const Tensor& self, double p, Generator* generator = nullptr);
// num_samples category indices (int64) per row of the non-negative weights (1-d or 2-d). Without
// replacement no index repeats within a row, so num_samples must not exceed the number of
// nonzero weights.
Tensor multinomial(const Tensor& input,
                   int64_t num_samples,
                   bool replacement = false,
                   Generator* generator = nullptr);
// Normal samples with the given means and standard deviations (broadcast together). As in
// PyTorch, the gradient with respect to mean and std is zero (the samples are not
// reparameterised).
Tensor normal(const Tensor& mean, const Tensor& std, Generator* generator = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* generator = nullptr);
Tensor normal(const Tensor& mean, double std = 1, Generator* generator = nullptr);
Tensor normal(double mean,
              double std,
              IntArrayRef size,
              TensorOptions options = {},
              Generator* generator = nullptr);

// In place, as Tensor methods: self's values replaced by samples (self's dtype and shape).
Tensor& normal_(Tensor& self, double mean = 0, double std = 1, Generator* generator = nullptr);
Tensor& uniform_(Tensor& self, double from = 0, double to = 1, Generator* generator = nullptr);
Tensor& exponential_(Tensor& self, double lambd = 1, Generator* generator = nullptr);
// Integers in [from, to); without `to`, up to the largest value of self's dtype (for floating
// dtypes, 2^digits, where every integer is exact).
Tensor& random_(Tensor& self,
                int64_t from,
                std::optional<int64_t> to,
                Generator* generator = nullptr);
// Integers in [0, 2^digits] for floating dtypes, [0, max] for integer dtypes.
Tensor& random_(Tensor& self, Generator* generator = nullptr);
Tensor& bernoulli_(Tensor& self, double p = 0.5, Generator* generator = nullptr);
Tensor& bernoulli_(Tensor& self, const Tensor& p, Generator* generator = nullptr);

// Samplers with per-element parameters (rejection methods, PyTorch's algorithms), in the
// parameters' dtype. _standard_gamma: Gamma(alpha, 1), at least the dtype's smallest normal
// number, no gradient (ember._standard_gamma adds the reparameterised one); poisson: rates >= 0,
// a zero gradient as PyTorch's; binomial: count and prob broadcast, no gradient.
Tensor _standard_gamma(const Tensor& alpha, Generator* generator = nullptr);
Tensor poisson(const Tensor& rates, Generator* generator = nullptr);
Tensor binomial(const Tensor& count, const Tensor& prob, Generator* generator = nullptr);

}  // namespace ember
