// End to end: a 784-256-256-10 MLP learns a random linear teacher with plain SGD.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ember.h"

namespace {

using ember::Tensor;

// Mean cross-entropy of logits [N, C] against one-hot targets, via a stable log-softmax.
Tensor onehot_cross_entropy(const Tensor& logits, const Tensor& one_hot) {
  const Tensor m = logits.max(1, /*keepdim=*/true).first.detach();
  const Tensor shifted = logits - m;
  const Tensor log_probs = shifted - shifted.exp().sum({1}, true).log();
  return -(log_probs * one_hot).sum() / double(logits.size(0));
}

Tensor param(std::vector<int64_t> shape, double scale) {
  Tensor p = ember::randn(shape) * scale;
  p.requires_grad_();
  return p;
}

TEST(MLP, SgdHalvesTheLossOnSyntheticData) {
  ember::manual_seed(0);
  const int64_t n = 512, classes = 10;
  const Tensor x = ember::randn({n, 784});
  const Tensor teacher = ember::randn({784, classes});
  const Tensor labels = x.matmul(teacher).max(1).second;  // int64 [n]
  const Tensor one_hot =
      (ember::arange(classes).view({1, classes}) == labels.view({n, 1})).to(ember::kFloat32);
  EXPECT_EQ(one_hot.sum().item<float>(), float(n));

  // He initialisation for the ReLU layers.
  std::vector<Tensor> params = {
      param({784, 256}, std::sqrt(2.0 / 784)),
      ember::zeros({256}, ember::TensorOptions().requires_grad()),
      param({256, 256}, std::sqrt(2.0 / 256)),
      ember::zeros({256}, ember::TensorOptions().requires_grad()),
      param({256, 10}, std::sqrt(1.0 / 256)),
      ember::zeros({10}, ember::TensorOptions().requires_grad()),
  };
  auto forward = [&] {
    const Tensor h1 = (x.matmul(params[0]) + params[1]).relu();
    const Tensor h2 = (h1.matmul(params[2]) + params[3]).relu();
    return h2.matmul(params[4]) + params[5];
  };

  const double lr = 0.1;
  float first = 0, last = 0;
  for (int step = 0; step < 100; ++step) {
    const Tensor loss = onehot_cross_entropy(forward(), one_hot);
    const float value = loss.item<float>();
    ASSERT_TRUE(std::isfinite(value)) << "step " << step;
    if (step == 0) first = value;
    last = value;
    loss.backward();
    ember::NoGradGuard no_grad;
    for (Tensor& p : params) {
      p.sub_(p.grad() * lr);
      p.grad().zero_();
    }
  }
  // 10 balanced-ish classes start near log(10); the loss must at least halve.
  EXPECT_GT(first, 1.5f);
  EXPECT_LT(last, 0.5f * first) << "first " << first << ", last " << last;
  // The weights stayed leaves that require grad.
  for (const Tensor& p : params) {
    EXPECT_TRUE(p.is_leaf());
    EXPECT_TRUE(p.requires_grad());
  }
}

}  // namespace
