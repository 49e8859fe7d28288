// The C++ optimizers and schedulers (ember/optim), with values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::Tensor;
using V = std::vector<double>;
namespace optim = ember::optim;

Tensor param(V v) {
  return ember::tensor(v, {int64_t(v.size())}, ember::kFloat64).requires_grad_();
}
Tensor f64(V v) { return ember::tensor(v, {int64_t(v.size())}, ember::kFloat64); }

void expect_near(const Tensor& t, const V& want, double tol = 1e-12) {
  const V got = t.to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(Optim, AdamFirstStepsMoveByLrTimesSignOfAConstantGradient) {
  // Step 1: m = 0.1 g, v = 0.001 g^2; bias-corrected m / sqrt(v) = g / |g| (up to eps), and
  // step 2 again (m_hat = g, v_hat = g^2): p moves by lr * sign(g) each time.
  Tensor p = param({1, -2});
  optim::Adam opt({p}, {.lr = 0.1});
  for (int s = 1; s <= 2; ++s) {
    p.set_grad(f64({0.5, -0.1}));
    opt.step();
    expect_near(p, {1 - 0.1 * s, -2 + 0.1 * s}, 1e-7);
  }
  expect_near(opt.state(0, 0).at("step"), {2});
  // m = 0.9 * 0.1 g + 0.1 g = 0.19 g; v = (0.999 * 0.001 + 0.001) g^2 = 0.001999 g^2.
  expect_near(opt.state(0, 0).at("exp_avg"), {0.19 * 0.5, 0.19 * -0.1});
  expect_near(opt.state(0, 0).at("exp_avg_sq"), {0.001999 * 0.25, 0.001999 * 0.01});
}

TEST(Optim, AdamWDecaysTheWeightsBeforeTheStep) {
  // p *= 1 - lr * wd = 0.99, then the first Adam step of lr * sign(g).
  Tensor p = param({1, -2});
  optim::AdamW opt({p}, {.lr = 0.1, .weight_decay = 0.1});
  p.set_grad(f64({3, -4}));
  opt.step();
  expect_near(p, {0.99 - 0.1, -1.98 + 0.1}, 1e-7);
}

TEST(Optim, AdamL2WeightDecayAddsToTheGradient) {
  // g' = g + 0.5 p = [0.5 + 0.5, -1 - 1] and the first step is lr * sign(g').
  Tensor p = param({1, -2});
  optim::Adam opt({p}, {.lr = 0.01, .weight_decay = 0.5});
  p.set_grad(f64({0.5, -1}));
  opt.step();
  expect_near(p, {0.99, -1.99}, 1e-7);
  expect_near(opt.state(0, 0).at("exp_avg"), {0.1, -0.2});
}

TEST(Optim, SgdMomentumAndNesterov) {
  Tensor a = param({1, 2}), b = param({1, 2});
  optim::SGD heavy({a}, {.lr = 0.1, .momentum = 0.9});
  optim::SGD nesterov({b}, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
  for (int s = 0; s < 2; ++s) {
    a.set_grad(f64({1, 1}));
    b.set_grad(f64({1, 1}));
    heavy.step();
    nesterov.step();
  }
  // Heavy ball: buf 1 then 1.9: p -= 0.1, then 0.19. Nesterov: d = g + 0.9 buf = 1.9, then 2.71.
  expect_near(a, {0.71, 1.71});
  expect_near(b, {1 - 0.19 - 0.271, 2 - 0.19 - 0.271});
  expect_near(heavy.state(0, 0).at("momentum_buffer"), {1.9, 1.9});
}

TEST(Optim, ParamsWithoutGradAreSkippedAndZeroGradClears) {
  Tensor p = param({1}), q = param({5});
  optim::SGD opt({p, q}, {.lr = 1});
  p.set_grad(f64({2}));
  opt.step();
  expect_near(p, {-1});
  expect_near(q, {5});
  EXPECT_TRUE(opt.state(0, 1).empty());
  opt.zero_grad(false);
  expect_near(p.grad(), {0});
  opt.zero_grad();
  EXPECT_FALSE(p.grad().defined());
}

TEST(Optim, GroupsKeepTheirOwnOptions) {
  Tensor p = param({1}), q = param({1});
  optim::SGD opt({p}, {.lr = 0.1});
  opt.add_param_group({q}, {.lr = 1});
  p.set_grad(f64({1}));
  q.set_grad(f64({1}));
  opt.step();
  expect_near(p, {0.9});
  expect_near(q, {0});
}

TEST(Optim, StateDictRoundTripContinuesIdentically) {
  Tensor p = param({0.5, -1.5, 2});
  optim::Adam opt({p}, {.lr = 0.05, .amsgrad = true});
  const V grads[] = {{1, -2, 0.5}, {0.1, 0.3, -0.2}, {-1, 1, 2}};
  for (const V& g : grads) {
    p.set_grad(f64(g));
    opt.step();
  }
  const ember::StateDict sd = opt.state_dict();
  EXPECT_TRUE(sd.contains("state.0.max_exp_avg_sq"));
  EXPECT_EQ(sd.at("param_groups.0.lr").item<double>(), 0.05);

  Tensor q = p.detach().clone().requires_grad_();
  optim::Adam fresh({q}, {.lr = 1});  // lr comes from the dict
  fresh.load_state_dict(sd);
  EXPECT_EQ(fresh.lr(0), 0.05);
  EXPECT_TRUE(fresh.param_groups()[0].options.amsgrad);
  for (const V& g : grads) {
    p.set_grad(f64(g));
    q.set_grad(f64(g));
    opt.step();
    fresh.step();
  }
  EXPECT_EQ(p.to_vector<double>(), q.to_vector<double>());
  expect_near(fresh.state(0, 0).at("step"), {6});
}

TEST(Optim, LoadStateDictRejectsAMismatch) {
  Tensor p = param({1, 2});
  optim::Adam opt({p});
  p.set_grad(f64({1, 1}));
  opt.step();
  const ember::StateDict sd = opt.state_dict();
  optim::Adam other({param({1, 2, 3})});
  EXPECT_EMBER_ERROR(other.load_state_dict(sd), ember::ErrorKind::Value,
                     "'state.0.exp_avg' has shape [2] but its parameter has shape [3]");
  ember::StateDict bad = sd;
  bad.insert("param_groups.0.lr", ember::scalar_tensor(0.5, ember::kFloat64));
  bad.insert("param_groups.0.momentum", ember::scalar_tensor(0.9, ember::kFloat64));
  optim::Adam same({param({1, 2})}, {.lr = 0.25});
  EXPECT_EMBER_ERROR(same.load_state_dict(bad), ember::ErrorKind::Value,
                     "unknown option 'param_groups.0.momentum'");
  EXPECT_EQ(same.lr(0), 0.25);  // a bad dict changes nothing
  EXPECT_TRUE(same.state(0, 0).empty());
  Tensor a = param({1}), b = param({1});
  optim::Adam two({a});
  two.add_param_group({b});
  EXPECT_THROW(two.load_state_dict(sd), ember::Error);
}

TEST(Optim, BadParamsAndOptionsRaise) {
  Tensor p = param({1});
  EXPECT_THROW(optim::Adam({p, p}), ember::Error);
  EXPECT_THROW(optim::Adam({p}, {.lr = -1}), ember::Error);
  EXPECT_THROW(optim::Adam({p}, {.betas = {1.0, 0.999}}), ember::Error);
  EXPECT_THROW(optim::SGD({p}, {.nesterov = true}), ember::Error);
  EXPECT_THROW(optim::SGD({p * 2}), ember::Error);  // not a leaf
  optim::SGD opt({p});
  EXPECT_THROW(opt.add_param_group({p}), ember::Error);  // already in a group
}

TEST(Optim, FusedOpsCheckTheirLists) {
  Tensor p = f64({1, 2}), g = f64({1, 1}), m = f64({0, 0}), s = ember::zeros({}, ember::kFloat32);
  EXPECT_EMBER_ERROR(ember::fused_adam_({p}, {g}, {m}, {f64({0, 0, 0})}, {}, {s}, 0.1, 0.9, 0.999,
                                        0, 1e-8, false, false),
                     ember::ErrorKind::Runtime,
                     "[fused_adam_] exp_avg_sqs[0] has shape [3] but its param has shape [2]");
  EXPECT_EMBER_ERROR(
      ember::fused_adam_({p}, {g}, {m}, {}, {}, {s}, 0.1, 0.9, 0.999, 0, 1e-8, false, false),
      ember::ErrorKind::Value, "[fused_adam_] expected 1 exp_avg_sqs (one per param), got 0");
  EXPECT_EMBER_ERROR(
      ember::fused_adam_({p}, {g}, {m}, {m}, {}, {s, s}, 0.1, 0.9, 0.999, 0, 1e-8, false, false),
      ember::ErrorKind::Value, "[fused_adam_] expected one state_steps tensor per param (1)");
  // A bad step tensor is refused before any count moves.
  const Tensor s2 = ember::zeros({}, ember::kFloat32);
  EXPECT_EMBER_ERROR(
      ember::fused_adam_({p, p.clone()}, {g, g}, {m, m.clone()}, {m.clone(), m.clone()}, {},
                         {s2, ember::zeros({}, ember::kInt32)}, 0.1, 0.9, 0.999, 0, 1e-8, false,
                         false),
      ember::ErrorKind::Type, "state_steps[1] has dtype int32");
  EXPECT_EQ(s2.item<double>(), 0);
  // Parameters of both float dtypes in one call; each state tensor has its parameter's dtype.
  const Tensor p32 = ember::zeros({2}, ember::kFloat32);
  EXPECT_EMBER_ERROR(ember::fused_sgd_({p, p32}, {g, g}, {}, 0.1, 0, 0, 0, false, false),
                     ember::ErrorKind::Type,
                     "[fused_sgd_] grads[1] has dtype float64 but its param");
  const Tensor g32 = ember::ones({2}, ember::kFloat32);
  ember::fused_sgd_({p, p32}, {g, g32}, {}, 0.5, 0, 0, 0, false, false);
  expect_near(p, {0.5, 1.5});
  expect_near(p32, {-0.5, -0.5});
  // A strided gradient is read through a copy; a strided parameter (a view with gaps) is
  // updated through a staged copy that lands in the view only (Note [Fused layouts]).
  const Tensor wide = ember::as_strided(f64({1, 9, 1, 9}), {2}, {2});
  ember::fused_sgd_({p}, {wide}, {}, 0.5, 0, 0, 0, false, false);
  expect_near(p, {0, 1});
  const Tensor base = f64({1, 2, 3, 4});
  ember::fused_sgd_({ember::as_strided(base, {2}, {2})}, {g}, {}, 0.5, 0, 0, 0, false, false);
  expect_near(base, {0.5, 2, 2.5, 4});
}

TEST(Optim, FusedAdamIsIdenticalOnOneAndTwoThreads) {
  ember_test::NumThreadsGuard guard;
  auto run = [](int threads) {
    ember::set_num_threads(threads);
    ember::manual_seed(3);
    std::vector<Tensor> ps, gs, ms, vs, ss;
    for (int64_t n : {70000, 3, 50000, 1}) {
      ps.push_back(ember::randn({n}));
      gs.push_back(ember::randn({n}));
      ms.push_back(ember::zeros({n}));
      vs.push_back(ember::zeros({n}));
      ss.push_back(ember::zeros({}));
    }
    for (int s = 0; s < 2; ++s)
      ember::fused_adam_(ps, gs, ms, vs, {}, ss, 1e-3, 0.9, 0.999, 0.01, 1e-8, false, false, true);
    return ember::cat(ps).to_vector<float>();
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(Optim, StepLRAndCosineAnnealingFollowPyTorch) {
  Tensor p = param({1});
  optim::SGD opt({p}, {.lr = 1});
  optim::StepLR step(opt, 2, 0.5);
  V got;
  for (int e = 0; e < 5; ++e) {
    got.push_back(step.get_last_lr()[0]);
    step.step();
  }
  EXPECT_EQ(got, (V{1, 1, 0.5, 0.5, 0.25}));

  optim::SGD opt2({param({1})}, {.lr = 1});
  optim::CosineAnnealingLR cos(opt2, 4, 0.1);
  for (int e = 0; e <= 8; ++e) {
    // The recursive form equals the closed form eta_min + (lr - eta_min)(1 + cos(pi e / T)) / 2.
    const double want = 0.1 + 0.9 * (1 + std::cos(std::numbers::pi * e / 4)) / 2;
    EXPECT_NEAR(cos.get_last_lr()[0], want, 1e-12) << "epoch " << e;
    EXPECT_NEAR(opt2.lr(0), want, 1e-12);
    cos.step();
  }
}

}  // namespace
