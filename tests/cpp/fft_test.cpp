// The Fourier transforms from C++ on hand-checked values: the DFT of [1, 2, 3, 4], rfft and its
// inverse, a 2-d transform, the norm= scalings, rfft's gradient through backward, and a bad
// norm's error.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using ember_test::expect_near;
using D = std::vector<double>;

ember::TensorOptions f64() { return ember::TensorOptions(ember::kFloat64); }

TEST(Fft, DftOfFourPoints) {
  // X_k = sum_j x_j exp(-2 pi i j k / 4): [10, -2 + 2i, -2, -2 - 2i].
  const Tensor x = ember::tensor({1.0, 2.0, 3.0, 4.0}, f64());
  const Tensor X = ember::fft::fft(x);
  EXPECT_EQ(X.dtype(), ember::kComplex128);
  expect_near(X, {10, 0, -2, 2, -2, 0, -2, -2});
  expect_near(ember::fft::rfft(x), {10, 0, -2, 2, -2, 0});
  expect_near(ember::fft::irfft(ember::fft::rfft(x)), {1, 2, 3, 4});
  expect_near(ember::fft::ifft(X), {1, 0, 2, 0, 3, 0, 4, 0});
  // norm="forward" divides the forward transform by n, "ortho" by sqrt(n).
  expect_near(ember::fft::fft(x, {}, -1, "forward"), {2.5, 0, -0.5, 0.5, -0.5, 0, -0.5, -0.5});
  expect_near(ember::fft::fft(x, {}, -1, "ortho"), {5, 0, -1, 1, -1, 0, -1, -1});
  // Zero-padded to 6 points: X_3 = 1 - 2 + 3 - 4 = -2.
  expect_near(ember::fft::fft(x, 6).select(0, 3), {-2, 0});
}

TEST(Fft, TwoDimensions) {
  // [[1, 2], [3, 4]]: sums [[10, -2], [-4, 0]].
  const Tensor x = ember::tensor({{1.0, 2.0}, {3.0, 4.0}}, f64());
  expect_near(ember::fft::fft2(x), {10, 0, -2, 0, -4, 0, 0, 0});
  expect_near(ember::fft::irfft2(ember::fft::rfft2(x), ember::DimVector{2, 2}), {1, 2, 3, 4});
  expect_near(ember::fft::fftshift(ember::arange(5)), {3, 4, 0, 1, 2}, 0);
}

TEST(Fft, RfftGradient) {
  // L = sum over k < 3 of Re X_k + Im X_k, so dL/dx_j = sum_k cos(pi j k / 2) - sin(pi j k / 2):
  // [3, -1, 1, 1].
  const Tensor x = ember::tensor({0.5, -1.0, 2.0, 0.25}, f64().requires_grad());
  ember::sum(ember::view_as_real(ember::fft::rfft(x))).backward();
  expect_near(x.grad(), {3, -1, 1, 1});
}

TEST(Fft, BadArgumentsRaise) {
  const Tensor x = ember::ones({4});
  EXPECT_EMBER_ERROR(ember::fft::fft(x, {}, -1, "sideways"), ErrorKind::Runtime,
                     "Invalid normalization mode");
  EXPECT_EMBER_ERROR(ember::fft::fft(x, 0), ErrorKind::Runtime, "Invalid number of data points");
  EXPECT_EMBER_ERROR(ember::fft::rfft(ember::fft::fft(x)), ErrorKind::Type,
                     "expects a real input tensor");
}

}  // namespace
