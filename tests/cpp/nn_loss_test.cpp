// The C++ API of the losses and embeddings (ember/ops/nn_loss.h), with values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using V = std::vector<double>;

Tensor f64(std::vector<double> v, std::vector<int64_t> shape) {
  return ember::tensor(v, shape, ember::kFloat64);
}
Tensor i64(std::vector<int64_t> v) { return ember::tensor(v, {}, ember::kInt64); }

void expect_near(const Tensor& t, const V& want, double tol = 1e-12) {
  const V got = t.to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

const double kLn2 = std::log(2.0), kLn3 = std::log(3.0);

TEST(NnLoss, CrossEntropyValuesAndGradient) {
  // Row 0: logits [0, 0], target 0: log 2. Row 1: [ln 3, 0], target 1: -log(1/4) = 2 log 2.
  Tensor x = f64({0, 0, kLn3, 0}, {2, 2}).requires_grad_();
  const Tensor t = i64({0, 1});
  expect_near(ember::cross_entropy(x, t, {}, "none"), {kLn2, 2 * kLn2});
  Tensor loss = ember::cross_entropy(x, t);
  expect_near(loss, {1.5 * kLn2});
  loss.backward();
  // (softmax - onehot) / N: [0.5 - 1, 0.5] / 2 and [0.75, 0.25 - 1] / 2.
  expect_near(x.grad(), {-0.25, 0.25, 0.375, -0.375});
}

TEST(NnLoss, CrossEntropyWeightIgnoreIndexAndSmoothing) {
  const Tensor x = f64({0, 0, kLn3, 0}, {2, 2});
  const Tensor w = f64({2, 1}, {2});
  // The ignored sample counts nothing; "mean" divides by the counted weight (2): log 2.
  expect_near(ember::cross_entropy(x, i64({0, -100}), w), {kLn2});
  expect_near(ember::cross_entropy(x, i64({0, 1}), w), {(2 * kLn2 + 2 * kLn2) / 3});
  // label_smoothing 0.5 with C = 2: 0.5 * nll + 0.25 * (-sum of log-probabilities).
  const double row1 = 0.5 * 2 * kLn2 + 0.25 * (std::log(4.0 / 3) + 2 * kLn2);
  expect_near(ember::cross_entropy(x, i64({0, 1}), {}, "none", -100, 0.5), {kLn2, row1});
  // Class probabilities: the same as one-hot class indices.
  expect_near(ember::cross_entropy(x, f64({1, 0, 0, 1}, {2, 2})), {1.5 * kLn2});
}

TEST(NnLoss, ClassIndexErrors) {
  const Tensor x = f64({0, 0, 0, 0}, {2, 2});
  EXPECT_EMBER_ERROR(ember::cross_entropy(x, i64({0, 2})), ErrorKind::Index,
                     "Target 2 is out of bounds");
  EXPECT_EMBER_ERROR(ember::nll_loss(x, i64({0})), ErrorKind::Value,
                     "batch_size (2) to match target batch_size (1)");
  EXPECT_EMBER_ERROR(ember::cross_entropy(x, i64({0, 1}), {}, "avg"), ErrorKind::Value,
                     "avg is not a valid value for reduction");
}

TEST(NnLoss, NllAndRegressionLosses) {
  const Tensor lp = f64({-1, -2, -3, -4}, {2, 2});
  expect_near(ember::nll_loss(lp, i64({1, 0})), {2.5});
  expect_near(ember::nll_loss(lp, i64({1, 0}), f64({1, 3}, {2})), {(3 * 2 + 1 * 3) / 4.0});
  const Tensor a = f64({0.5, 2}, {2}), z = f64({0, 0}, {2});
  expect_near(ember::mse_loss(a, z), {(0.25 + 4) / 2});
  expect_near(ember::l1_loss(a, z, "sum"), {2.5});
  expect_near(ember::smooth_l1_loss(a, z), {(0.125 + 1.5) / 2});
  expect_near(ember::huber_loss(a, z, "none", 1.0), {0.125, 1.5});
  expect_near(ember::binary_cross_entropy(f64({0.5}, {1}), f64({1}, {1})), {kLn2});
  expect_near(ember::binary_cross_entropy_with_logits(f64({0}, {1}), f64({1}, {1})), {kLn2});
  EXPECT_EMBER_ERROR(ember::smooth_l1_loss(a, z, "mean", -1.0), ErrorKind::Runtime,
                     "negative values for beta");
}

TEST(NnEmbedding, LookupAndPaddingGradient) {
  Tensor w = ember_test::iota({4, 2}).requires_grad_();
  Tensor out = ember::embedding(i64({3, 0, 3}), w, /*padding_idx=*/0);
  expect_near(out, {6, 7, 0, 1, 6, 7});
  out.sum().backward();
  // Row 3 is used twice; row 0 is the padding row and gets no gradient.
  expect_near(w.grad(), {0, 0, 0, 0, 0, 0, 2, 2});
  EXPECT_EMBER_ERROR(ember::embedding(i64({4}), w), ErrorKind::Index, "index out of range");
  EXPECT_EMBER_ERROR(ember::embedding(i64({0}), w, std::nullopt, std::nullopt, 2.0, false, true),
                     ErrorKind::NotImplemented, "sparse");
}

TEST(NnEmbedding, BagModes) {
  // Rows [0, 1], [2, 3], [4, 5], [6, 7]; bags {0, 1} and {3}.
  const Tensor w = ember_test::iota({4, 2});
  const Tensor idx = i64({0, 1, 3}), off = i64({0, 2});
  expect_near(ember::embedding_bag(idx, w, off, std::nullopt, 2, false, "sum"), {2, 4, 6, 7});
  expect_near(ember::embedding_bag(idx, w, off, std::nullopt, 2, false, "mean"), {1, 2, 6, 7});
  expect_near(ember::embedding_bag(idx, w, off, std::nullopt, 2, false, "max"), {2, 3, 6, 7});
  // padding_idx 1 leaves row 0 alone in the first bag.
  expect_near(
      ember::embedding_bag(idx, w, off, std::nullopt, 2, false, "mean", false, {}, false, 1),
      {0, 1, 6, 7});
  EXPECT_EMBER_ERROR(ember::embedding_bag(i64({0, 9}), w, off), ErrorKind::Runtime,
                     "takes value 9 which is not in the valid range [0, 4)");
}

TEST(NnEmbedding, MaxNormRenormalisesInPlace) {
  Tensor w = f64({3, 4, 0.3, 0.4}, {2, 2});
  const Tensor out = ember::embedding(i64({0, 1}), w, std::nullopt, 1.0);
  expect_near(w, {0.6, 0.8, 0.3, 0.4}, 1e-7);
  expect_near(out, {0.6, 0.8, 0.3, 0.4}, 1e-7);
}

}  // namespace
