// Normalisation and dropout through the C++ API on hand-checked values: batch norm (training
// with running-stat updates, evaluation, backward), layer norm, group norm, dropout's mask and
// seeding, channels-last layout, and results that do not depend on the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using ember_test::vec;
using V = std::vector<float>;
using I = std::vector<int64_t>;

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(NnNorm, BatchNormTrainingNormalisesAndUpdatesRunningStats) {
  // Channel 0 holds {1, 3}: mean 2, biased variance 1; channel 1 holds {2, 6}: mean 4, variance 4.
  Tensor x = ember::tensor({{1.f, 2.f}, {3.f, 6.f}});
  Tensor w = ember::tensor({2.f, 3.f}), b = ember::tensor({0.5f, -1.f});
  Tensor rm = ember::zeros({2}), rv = ember::ones({2});
  Tensor y = ember::batch_norm(x, w, b, rm, rv, true, 0.5, 0.0);
  expect_near(y.to_vector<float>(), {-1.5f, -4.f, 2.5f, 2.f});
  // running = 0.5 * old + 0.5 * batch, the variance unbiased (x2 for two values per channel).
  expect_near(rm.to_vector<float>(), {1.f, 2.f});
  expect_near(rv.to_vector<float>(), {1.5f, 4.5f});
}

TEST(NnNorm, BatchNormEvaluationUsesRunningStats) {
  Tensor x = ember::tensor({{1.f, 2.f}, {3.f, 6.f}});
  Tensor rm = ember::tensor({1.f, 2.f}), rv = ember::tensor({4.f, 16.f});
  Tensor y = ember::batch_norm(x, std::nullopt, std::nullopt, rm, rv, false, 0.1, 0.0);
  expect_near(y.to_vector<float>(), {0.f, 0.f, 1.f, 1.f});
  expect_near(rm.to_vector<float>(), {1.f, 2.f});  // untouched
  EXPECT_EMBER_ERROR(ember::batch_norm(x, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                       false, 0.1, 1e-5),
                     ErrorKind::Runtime, "[batch_norm] running_mean must be defined");
  EXPECT_EMBER_ERROR(ember::batch_norm(x, ember::ones({3}), std::nullopt, std::nullopt,
                                       std::nullopt, true, 0.1, 1e-5),
                     ErrorKind::Runtime, "weight should contain 2 elements not 3");
}

TEST(NnNorm, BatchNormBackwardOfASum) {
  // sum(w * xhat + b): xhat sums to zero per channel whatever x is, so dx = 0 and dw = 0;
  // db counts the values per channel (N * H * W = 2 * 3).
  Tensor x = ember::arange(12, ember::kFloat32).view({2, 2, 3}) * 0.5;
  x = (x * x).detach().requires_grad_();
  Tensor w = ember::tensor({2.f, -1.f}).requires_grad_(), b = ember::zeros({2}).requires_grad_();
  ember::batch_norm(x, w, b, std::nullopt, std::nullopt, true, 0.1, 1e-5).sum().backward();
  for (float g : x.grad().to_vector<float>()) EXPECT_NEAR(g, 0.f, 1e-5f);
  expect_near(w.grad().to_vector<float>(), {0.f, 0.f}, 1e-5f);
  expect_near(b.grad().to_vector<float>(), {6.f, 6.f});
}

TEST(NnNorm, LayerNormAndGroupNorm) {
  // [1, 2, 3, 4]: mean 2.5, variance 1.25.
  Tensor y = ember::layer_norm(ember::tensor({{1.f, 2.f, 3.f, 4.f}}), {4}, std::nullopt,
                               std::nullopt, 0.0);
  const float s = 1.f / std::sqrt(1.25f);
  expect_near(y.to_vector<float>(), {-1.5f * s, -0.5f * s, 0.5f * s, 1.5f * s});
  // Groups {1, 3} and {10, 20} of one sample: each normalises to {-1, 1}; then weight and bias.
  Tensor x = ember::tensor({1.f, 3.f, 10.f, 20.f}).view({1, 4, 1});
  Tensor g = ember::group_norm(x, 2, ember::tensor({1.f, 2.f, 3.f, 4.f}),
                               ember::tensor({0.f, 0.f, 0.f, 1.f}), 0.0);
  expect_near(g.to_vector<float>(), {-1.f, 2.f, -3.f, 5.f});
  EXPECT_EMBER_ERROR(ember::group_norm(x, 3), ErrorKind::Runtime, "divisible by num_groups");
}

TEST(NnNorm, DropoutMaskScaleAndSeed) {
  Tensor x = ember::ones({1000});
  ember::manual_seed(11);
  Tensor a = ember::dropout(x, 0.25, true);
  ember::manual_seed(11);
  Tensor b = ember::dropout(x, 0.25, true);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  int kept = 0;
  for (float v : a.to_vector<float>()) {
    EXPECT_TRUE(v == 0.f || std::fabs(v - 1.f / 0.75f) < 1e-6f) << v;
    kept += v != 0.f;
  }
  EXPECT_GT(kept, 700);  // 750 expected; 5 standard deviations is about 68
  EXPECT_LT(kept, 800);
  EXPECT_TRUE(ember::dropout(x, 0.0, true).is_same(x));
  EXPECT_TRUE(ember::dropout(x, 0.5, false).is_same(x));
  for (float v : ember::dropout(x, 1.0, true).to_vector<float>()) EXPECT_EQ(v, 0.f);
  EXPECT_EMBER_ERROR(ember::dropout(x, 1.5, true), ErrorKind::Runtime,
                     "dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_EMBER_ERROR(ember::feature_dropout(x, 0.5, true), ErrorKind::Runtime,
                     "Feature dropout requires at least 2 dimensions");
}

TEST(NnNorm, ChannelsLastBatchNormKeepsLayoutAndIsThreadCountIndependent) {
  ember_test::NumThreadsGuard restore;
  ember::manual_seed(3);
  // (N, C, H, W) = (4, 40, 30, 30) stored as NHWC.
  Tensor x = ember::randn({4, 30, 30, 40}).permute({0, 3, 1, 2});
  Tensor xc = x.contiguous();
  auto run = [&](const Tensor& in) {
    Tensor rv = ember::ones({40});
    Tensor y =
        ember::batch_norm(in, std::nullopt, std::nullopt, ember::zeros({40}), rv, true, 0.1, 1e-5);
    return std::make_pair(y, rv);
  };
  ember::set_num_threads(1);
  auto [y1, rv1] = run(x);
  ember::set_num_threads(2);
  auto [y2, rv2] = run(x);
  EXPECT_EQ(vec(y1.strides()), vec(x.strides()));
  const V a = y1.to_vector<float>(), b = y2.to_vector<float>();
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  EXPECT_EQ(rv1.to_vector<float>(), rv2.to_vector<float>());
  // The planar (contiguous) kernel agrees up to rounding.
  auto [yc, rvc] = run(xc);
  expect_near(yc.to_vector<float>(), y1.contiguous().to_vector<float>(), 1e-5f);
  expect_near(rvc.to_vector<float>(), rv1.to_vector<float>(), 1e-6f);
}

}  // namespace
