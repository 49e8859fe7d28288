// ember::nn::Module through the C++ API: registration and PyTorch's dotted names, state dict
// round trips and strict-loading errors, train/eval, dtype moves, zero_grad, printing, hand-checked
// forwards of Linear / Conv2d / BatchNorm, default init, and a training loop that learns.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

namespace nn = ember::nn;
using ember::ErrorKind;
using ember::Tensor;
using Names = std::vector<std::string>;

template <class Pairs>
Names names_of(const Pairs& pairs) {
  Names out;
  for (const auto& p : pairs) out.push_back(p.first);
  return out;
}

Names keys_of(const ember::StateDict& sd) {
  Names out;
  for (const auto& [k, v] : sd) out.push_back(k);
  return out;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// A user-defined module, written as a C++ user would: children registered in the constructor,
// a hand-written forward.
struct Net : nn::Module {
  std::shared_ptr<nn::Sequential> features;
  std::shared_ptr<nn::Linear> fc;
  Tensor scale;

  Net() : Module("Net") {
    features = register_module(
        "features", std::make_shared<nn::Sequential>(std::make_shared<nn::Conv2d>(1, 2, 3),
                                                     std::make_shared<nn::BatchNorm2d>(2),
                                                     std::make_shared<nn::ReLU>()));
    fc = register_module("fc", std::make_shared<nn::Linear>(8, 3));
    scale = register_buffer("scale", ember::ones({1}), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) { return fc->forward(features->forward(x).flatten(1)) * scale; }
};

TEST(NnModule, NamesFollowPyTorch) {
  auto net = std::make_shared<Net>();
  EXPECT_EQ(names_of(net->named_parameters()),
            (Names{"features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias",
                   "fc.weight", "fc.bias"}));
  EXPECT_EQ(names_of(net->named_parameters(/*recurse=*/false)), Names{});
  EXPECT_EQ(names_of(net->named_buffers()),
            (Names{"scale", "features.1.running_mean", "features.1.running_var",
                   "features.1.num_batches_tracked"}));
  // Non-persistent buffers stay out of the state dict; parameters come before buffers per module.
  EXPECT_EQ(keys_of(net->state_dict()),
            (Names{"features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias",
                   "features.1.running_mean", "features.1.running_var",
                   "features.1.num_batches_tracked", "fc.weight", "fc.bias"}));
  EXPECT_EQ(names_of(net->named_children()), (Names{"features", "fc"}));
  EXPECT_EQ(names_of(net->named_modules()),
            (Names{"", "features", "features.0", "features.1", "features.2", "fc"}));
  EXPECT_EQ(net->parameters().size(), 6u);
  EXPECT_EQ(net->buffers().size(), 4u);
  EXPECT_TRUE(
      net->parameter("features.0.weight").is_same(net->features->at<nn::Conv2d>(0)->weight));
  EXPECT_EQ(net->buffer("features.1.num_batches_tracked").dtype(), ember::kInt64);
  EXPECT_EQ(net->submodule("features.1")->type_name(), "BatchNorm2d");
  EXPECT_EMBER_ERROR(net->parameter("fc.nope"), ErrorKind::Index, "no parameter named 'fc.nope'");
  EXPECT_EMBER_ERROR(net->submodule("features.7"), ErrorKind::Index, "features.7");
  for (const Tensor& p : net->parameters()) {
    EXPECT_TRUE(p.requires_grad());
    EXPECT_TRUE(p.is_leaf());
  }
}

TEST(NnModule, RegistrationRules) {
  nn::Module m;
  m.register_parameter("w", ember::ones({2}));
  EXPECT_EMBER_ERROR(m.register_buffer("w", ember::ones({2})), ErrorKind::Runtime,
                     "already exists");
  EXPECT_EMBER_ERROR(m.register_parameter("a.b", ember::ones({2})), ErrorKind::Value,
                     "must not contain '.'");
  EXPECT_EMBER_ERROR(m.register_parameter("", ember::ones({2})), ErrorKind::Value, "empty");
  // A None slot (bias=False) is skipped by traversal and state dicts.
  m.register_parameter("bias", Tensor());
  EXPECT_EQ(names_of(m.named_parameters()), Names{"w"});
  EXPECT_EQ(keys_of(m.state_dict()), Names{"w"});
  // A computed tensor becomes a leaf parameter; requires_grad=false is kept.
  Tensor x = ember::ones({2}, ember::TensorOptions().requires_grad());
  Tensor& p = m.register_parameter("p", x * 2, /*requires_grad=*/false);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_FALSE(p.requires_grad());
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{2, 2}));
}

TEST(NnModule, SharedParametersAreListedOnce) {
  auto lin = std::make_shared<nn::Linear>(2, 2);
  auto seq = std::make_shared<nn::Sequential>(lin, std::make_shared<nn::Tanh>(), lin);
  EXPECT_EQ(names_of(seq->named_parameters()), (Names{"0.weight", "0.bias"}));
  EXPECT_EQ(names_of(seq->named_modules()), (Names{"", "0", "1"}));
  // state_dict keeps every key, as PyTorch's.
  EXPECT_EQ(keys_of(seq->state_dict()), (Names{"0.weight", "0.bias", "2.weight", "2.bias"}));
}

TEST(NnModule, StateDictRoundTripIntoAFreshModel) {
  ember::manual_seed(1);
  auto a = std::make_shared<Net>();
  // Train mode once so the running stats and the batch counter move off their defaults.
  const Tensor x = ember::randn({4, 1, 4, 4});
  a->forward(x);
  ember::manual_seed(2);
  auto b = std::make_shared<Net>();
  const Tensor before = b->parameter("fc.weight").clone();
  b->load_state_dict(a->state_dict());
  for (const auto& [k, v] : a->state_dict())
    EXPECT_TRUE(ember::equal(b->state_dict().at(k), v)) << k;
  EXPECT_EQ(b->buffer("features.1.num_batches_tracked").item<int64_t>(), 1);
  EXPECT_FALSE(ember::equal(before, b->parameter("fc.weight")));
  // The copy is in place: the layer's own handle sees the loaded values, and stays a leaf.
  EXPECT_TRUE(ember::equal(b->fc->weight, a->fc->weight));
  EXPECT_TRUE(b->fc->weight.is_leaf());
  EXPECT_TRUE(b->fc->weight.requires_grad());
  a->eval();
  b->eval();
  EXPECT_TRUE(ember::equal(a->forward(x), b->forward(x)));
  // The state dict's tensors are the module's (detached) data, not copies.
  const ember::StateDict sd = a->state_dict();
  EXPECT_EQ(sd.at("fc.weight").data_ptr(), a->fc->weight.data_ptr());
  EXPECT_FALSE(sd.at("fc.weight").requires_grad());
}

TEST(NnModule, StrictLoadingReportsMissingUnexpectedAndShapes) {
  auto net = std::make_shared<Net>();
  ember::StateDict sd = net->state_dict();
  ember::StateDict partial;
  for (const auto& [k, v] : sd)
    if (k != "fc.bias") partial.insert(k, v.clone());
  partial.insert("fc.extra", ember::zeros({1}));
  EXPECT_EMBER_ERROR(net->load_state_dict(partial), ErrorKind::Runtime,
                     "Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "
                     "\"fc.bias\". \n\tUnexpected key(s) in state_dict: \"fc.extra\". ");
  // Non-strict: the present keys load, the rest is ignored.
  ember::StateDict changed;
  changed.insert("fc.weight", ember::full({3, 8}, 0.25f));
  changed.insert("fc.extra", ember::zeros({1}));
  net->load_state_dict(changed, /*strict=*/false);
  EXPECT_EQ(net->fc->weight.to_vector<float>(), std::vector<float>(24, 0.25f));
  // A wrong shape is an error even when not strict, and nothing is loaded.
  ember::StateDict bad = net->state_dict();
  bad.insert("fc.weight", ember::zeros({8, 3}));
  bad.insert("fc.bias", ember::full({3}, 7.f));
  EXPECT_EMBER_ERROR(net->load_state_dict(bad, false), ErrorKind::Runtime,
                     "size mismatch for fc.weight: copying a param with shape [8, 3] from "
                     "checkpoint, the shape in current model is [3, 8].");
  EXPECT_NE(net->fc->bias.to_vector<float>(), std::vector<float>(3, 7.f));
}

TEST(NnModule, TrainAndEvalSwitchDropoutAndBatchNorm) {
  auto seq = std::make_shared<nn::Sequential>(std::make_shared<nn::Dropout>(0.5),
                                              std::make_shared<nn::BatchNorm1d>(2));
  EXPECT_TRUE(seq->is_training());
  ember::manual_seed(0);
  auto drop = seq->at<nn::Dropout>(0);
  const Tensor ones = ember::ones({1000});
  const std::vector<float> y = drop->forward(ones).to_vector<float>();
  int zeros = 0;
  for (float v : y) {
    EXPECT_TRUE(v == 0.f || v == 2.f) << v;
    zeros += v == 0.f;
  }
  EXPECT_GT(zeros, 400);
  EXPECT_LT(zeros, 600);
  seq->eval();
  EXPECT_FALSE(seq->is_training());
  EXPECT_FALSE(drop->is_training());
  EXPECT_TRUE(ember::equal(drop->forward(ones), ones));

  // BatchNorm1d: batch statistics and a running-stat update in training, running stats in eval.
  auto bn = seq->at<nn::BatchNorm1d>(1);
  bn->train();
  const Tensor x = ember::tensor({{1.f, 2.f}, {3.f, 6.f}});
  const float s = 1.f / std::sqrt(1.f + 1e-5f), s4 = 2.f / std::sqrt(4.f + 1e-5f);
  expect_near(bn->forward(x).to_vector<float>(), {-s, -s4, s, s4});
  // running = 0.9 * old + 0.1 * batch, the variance unbiased: 2 and 8.
  expect_near(bn->running_mean.to_vector<float>(), {0.2f, 0.4f});
  expect_near(bn->running_var.to_vector<float>(), {1.1f, 1.7f});
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  expect_near(bn->forward(x).to_vector<float>(),
              {0.8f / std::sqrt(1.1f + 1e-5f), 1.6f / std::sqrt(1.7f + 1e-5f),
               2.8f / std::sqrt(1.1f + 1e-5f), 5.6f / std::sqrt(1.7f + 1e-5f)});
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  EXPECT_EMBER_ERROR(bn->forward(ember::zeros({2, 2, 2, 2})), ErrorKind::Value,
                     "expected 2D or 3D input (got 4D input)");
}

TEST(NnModule, BatchNormWithoutMomentumAveragesCumulatively) {
  nn::BatchNorm1d bn(1, {.momentum = std::nullopt});
  bn.forward(ember::tensor({{1.f}, {3.f}}));  // mean 2, factor 1/1
  bn.forward(ember::tensor({{5.f}, {7.f}}));  // mean 6, factor 1/2
  expect_near(bn.running_mean.to_vector<float>(), {4.f});
  EXPECT_EQ(bn.extra_repr(),
            "1, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True");
}

TEST(NnModule, ToFloat64MovesParametersBuffersAndGradientsInPlace) {
  auto net = std::make_shared<Net>();
  const Tensor x = ember::randn({2, 1, 4, 4});
  net->forward(x).sum().backward();
  const Tensor held = net->fc->weight;  // a handle taken before the move (as an optimizer's)
  const std::vector<float> w32 = held.to_vector<float>();
  net->to(ember::kFloat64);
  for (const auto& [k, p] : net->named_parameters()) {
    EXPECT_EQ(p.dtype(), ember::kFloat64) << k;
    EXPECT_EQ(p.grad().dtype(), ember::kFloat64) << k;
    EXPECT_TRUE(p.requires_grad()) << k;
  }
  EXPECT_EQ(held.dtype(), ember::kFloat64);
  const std::vector<double> w64 = held.to_vector<double>();
  for (size_t i = 0; i < w32.size(); ++i) EXPECT_EQ(w64[i], double(w32[i]));
  EXPECT_EQ(net->buffer("features.1.running_var").dtype(), ember::kFloat64);
  EXPECT_EQ(net->buffer("features.1.num_batches_tracked").dtype(), ember::kInt64);
  EXPECT_EQ(net->forward(x.to(ember::kFloat64)).dtype(), ember::kFloat64);
  EXPECT_EMBER_ERROR(net->to(ember::kInt32), ErrorKind::Type, "only floating dtypes");
  EXPECT_NO_THROW(net->to(ember::kCPU));
  // Without a CUDA backend the move fails with an error that names the module and the device,
  // and leaves every tensor where it was.
  bool has_cuda = true;
  try {
    ember::zeros({1}).to(ember::Device("cuda"));
  } catch (const ember::Error&) {
    has_cuda = false;
  }
  if (!has_cuda) {
    EXPECT_EMBER_ERROR(net->to(ember::Device("cuda")), ErrorKind::Runtime,
                       "[Net.to] cannot move the module to cuda");
    for (const Tensor& t : net->parameters()) EXPECT_TRUE(t.device().is_cpu());
  }
}

TEST(NnModule, ZeroGradSetsToNoneOrZero) {
  nn::Linear lin(3, 2);
  lin.forward(ember::ones({1, 3})).sum().backward();
  ASSERT_TRUE(lin.weight.grad().defined());
  lin.zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(lin.weight.grad().to_vector<float>(), std::vector<float>(6, 0.f));
  lin.zero_grad();
  EXPECT_FALSE(lin.weight.grad().defined());
  EXPECT_FALSE(lin.bias.grad().defined());
}

TEST(NnModule, PrintsAsPyTorch) {
  auto net = std::make_shared<Net>();
  EXPECT_EQ(net->repr(),
            "Net(\n"
            "  (features): Sequential(\n"
            "    (0): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n"
            "    (1): BatchNorm2d(2, eps=1e-05, momentum=0.1, affine=True, "
            "bias=True, track_running_stats=True)\n"
            "    (2): ReLU()\n"
            "  )\n"
            "  (fc): Linear(in_features=8, out_features=3, bias=True)\n"
            ")");
  std::ostringstream os;
  os << nn::Conv2d(4, 8, 3, {.stride = 2, .padding = 1, .bias = false});
  EXPECT_EQ(os.str(),
            "Conv2d(4, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)");
  EXPECT_EQ(nn::MaxPool2d(2).repr(),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(nn::Dropout(0.25).repr(), "Dropout(p=0.25, inplace=False)");
  EXPECT_EQ(nn::LSTM(10, 20, {.num_layers = 2, .batch_first = true}).repr(),
            "LSTM(10, 20, num_layers=2, batch_first=True)");
}

TEST(NnModule, LinearConv2dForwardsMatchHandValues) {
  nn::Linear lin(2, 3);
  lin.load_state_dict([] {
    ember::StateDict sd;
    sd.insert("weight", ember::tensor({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}));
    sd.insert("bias", ember::tensor({1.f, 0.f, -1.f}));
    return sd;
  }());
  expect_near(lin.forward(ember::tensor({1.f, -1.f})).to_vector<float>(), {0.f, -1.f, -2.f});

  // Ones kernel 2x2 over 0..8 in 3x3: window sums 8, 12, 20, 24, plus the bias.
  nn::Conv2d conv(1, 1, 2);
  nn::init::ones_(conv.weight);
  nn::init::constant_(conv.bias, 0.5);
  const Tensor y = conv.forward(ember_test::iota({1, 1, 3, 3}));
  EXPECT_EQ(ember_test::vec(y.sizes()), (std::vector<int64_t>{1, 1, 2, 2}));
  expect_near(y.to_vector<float>(), {8.5f, 12.5f, 20.5f, 24.5f});
  // Kernel 2, stride 2, padding 1 on 4x4: a 3x3 output (floor((4 + 2 - 2) / 2) + 1).
  nn::Conv2d strided(1, 1, 2, {.stride = 2, .padding = 1, .bias = false});
  nn::init::ones_(strided.weight);
  // Padded 6x6 with windows at rows/cols 0, 2, 4: corners see one input element each.
  expect_near(strided.forward(ember::ones({1, 1, 4, 4})).to_vector<float>(),
              {1, 2, 1, 2, 4, 2, 1, 2, 1});
  EXPECT_EMBER_ERROR(conv.forward(ember::ones({3, 3})), ErrorKind::Runtime,
                     "[Conv2d] expected a 3-D (unbatched) or 4-D (batched) input, got 2-D");
}

TEST(NnModule, DefaultInitMatchesPyTorchBounds) {
  ember::manual_seed(3);
  nn::Linear lin(16, 4);
  // kaiming_uniform_(a = sqrt(5)) and the bias both give U(-1/4, 1/4) for fan_in 16.
  for (const Tensor& t : {lin.weight, lin.bias}) {
    const std::vector<float> v = t.to_vector<float>();
    float lo = 1, hi = -1;
    for (float x : v) lo = std::min(lo, x), hi = std::max(hi, x);
    EXPECT_GE(lo, -0.25f);
    EXPECT_LE(hi, 0.25f);
    EXPECT_LT(lo, -0.1f);  // spread over the range, not constant
    EXPECT_GT(hi, 0.1f);
  }
  // Conv2d(2, 3, 3): fan_in 18; the same seed gives the same weights.
  ember::manual_seed(4);
  nn::Conv2d c1(2, 3, 3);
  ember::manual_seed(4);
  nn::Conv2d c2(2, 3, 3);
  EXPECT_TRUE(ember::equal(c1.weight, c2.weight));
  EXPECT_LE(c1.weight.abs().max().item<float>(), 1.f / std::sqrt(18.f));
  // Norm layers start at weight 1, bias 0.
  nn::LayerNorm ln({4});
  EXPECT_EQ(ln.weight.to_vector<float>(), std::vector<float>(4, 1.f));
  EXPECT_EQ(ln.bias.to_vector<float>(), std::vector<float>(4, 0.f));
}

TEST(NnInit, GainsFansAndBounds) {
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("tanh"), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("conv2d"), 1.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu", std::sqrt(5.0)), std::sqrt(1.0 / 3.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("selu"), 0.75);
  EXPECT_EMBER_ERROR(nn::init::calculate_gain("swish"), ErrorKind::Value, "'swish'");
  Tensor w = ember::empty({6, 4, 3, 3});
  EXPECT_EQ(nn::init::calculate_fan_in_and_fan_out(w), (std::pair<int64_t, int64_t>{36, 54}));
  Tensor v = ember::empty({3});
  EXPECT_EMBER_ERROR(nn::init::xavier_uniform_(v), ErrorKind::Value, "fewer than 2 dimensions");

  ember::manual_seed(5);
  Tensor big = ember::empty({200, 300});
  nn::init::xavier_uniform_(big, 2.0);
  const float a = float(2.0 * std::sqrt(6.0 / 500.0));
  EXPECT_LE(big.abs().max().item<float>(), a);
  EXPECT_GT(big.abs().max().item<float>(), 0.99f * a);
  nn::init::kaiming_normal_(big, 0.0, "fan_out", "relu");
  // std = sqrt(2) / sqrt(200) = 0.1; 60000 samples pin it to about 0.3%.
  EXPECT_NEAR(ember::std(big).item<float>(), 0.1f, 0.002f);
  nn::init::normal_(big, 3.0, 0.5);
  EXPECT_NEAR(big.mean().item<float>(), 3.0f, 0.01f);
  nn::init::zeros_(big);
  EXPECT_EQ(big.abs().max().item<float>(), 0.f);
  // In place on a parameter without recording autograd.
  Tensor p = ember::zeros({2, 2}, ember::TensorOptions().requires_grad());
  nn::init::kaiming_uniform_(p);
  EXPECT_TRUE(p.is_leaf());
}

TEST(NnModule, MlpTrainingLoopLowersTheLoss) {
  ember::manual_seed(0);
  const int64_t n = 64;
  const Tensor x = ember::randn({n, 4});
  const Tensor y = (x.sum({1}) > 0).to(ember::kInt64);  // a separable two-class problem
  auto model = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(4, 16),
                                                std::make_shared<nn::ReLU>(),
                                                std::make_shared<nn::Linear>(16, 2));
  nn::CrossEntropyLoss criterion;
  ember::optim::SGD opt(model->parameters(), {.lr = 0.5});
  double first = 0, last = 0;
  for (int step = 0; step < 40; ++step) {
    opt.zero_grad();
    const Tensor loss = criterion.forward(model->forward(x), y);
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_GT(first, 0.5);
  EXPECT_LT(last, 0.2 * first);
}

// Checkpoint and resume: model and Adam state saved after 3 steps and loaded into a fresh model
// and optimizer give the same next losses, bit for bit, as training on without a break
// (BatchNorm's running stats, Dropout's masks from the reseeded generator included).
TEST(NnModule, ResumingFromStateDictsContinuesTrainingExactly) {
  auto make = [] {
    return std::make_shared<nn::Sequential>(
        std::make_shared<nn::Conv2d>(1, 3, 3, nn::ConvOptions{.padding = 1}),
        std::make_shared<nn::BatchNorm2d>(3), std::make_shared<nn::ReLU>(),
        std::make_shared<nn::Dropout>(0.2), std::make_shared<nn::Flatten>(),
        std::make_shared<nn::Linear>(3 * 16, 4));
  };
  ember::manual_seed(10);
  const Tensor x = ember::randn({8, 1, 4, 4});
  const Tensor y = ember::remainder(ember::arange(8, ember::kInt64), 4);
  auto step = [&](nn::Sequential& m, ember::optim::Adam& opt) {
    opt.zero_grad();
    const Tensor loss = ember::cross_entropy(m.forward(x), y);
    loss.backward();
    opt.step();
    return loss.item<float>();
  };
  auto a = make();
  ember::optim::Adam opt_a(a->parameters(), {.lr = 0.05});
  for (int i = 0; i < 3; ++i) step(*a, opt_a);
  // state_dict() holds the live tensors (as PyTorch's): clone to keep a snapshot.
  ember::StateDict model_sd, opt_sd;
  for (const auto& [k, v] : a->state_dict()) model_sd.insert(k, v.clone());
  for (const auto& [k, v] : opt_a.state_dict()) opt_sd.insert(k, v.clone());
  ember::manual_seed(11);
  const float a4 = step(*a, opt_a), a5 = step(*a, opt_a);

  auto b = make();
  ember::optim::Adam opt_b(b->parameters(), {.lr = 0.05});
  b->load_state_dict(model_sd);
  opt_b.load_state_dict(opt_sd);
  ember::manual_seed(11);
  EXPECT_EQ(step(*b, opt_b), a4);
  EXPECT_EQ(step(*b, opt_b), a5);
  EXPECT_EQ(b->buffer("1.num_batches_tracked").item<int64_t>(), 5);
}

// Module state dicts through ember::save / ember::load (safetensors): a round trip into a fresh
// model, and the checkpoint the Python front end wrote (tests/data/make_small_model.py) loaded
// into the same architecture built in C++.
TEST(NnModule, CheckpointsThroughEmberSaveAndLoad) {
  ember::manual_seed(12);
  auto a = std::make_shared<Net>();
  a->forward(ember::randn({2, 1, 4, 4}));  // running stats off their defaults
  const std::string path =
      testing::TempDir() + "/nn_module_test_" + std::to_string(::getpid()) + ".safetensors";
  ember::save(a->state_dict(), path);
  auto b = std::make_shared<Net>();
  b->load_state_dict(ember::load(path));
  std::remove(path.c_str());
  for (const auto& [k, v] : a->state_dict())
    EXPECT_TRUE(ember::equal(b->state_dict().at(k), v)) << k;

  auto seq = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(2, 3),
                                              std::make_shared<nn::ReLU>(),
                                              std::make_shared<nn::Linear>(3, 1));
  const nn::LoadStateDictResult r =
      seq->load_state_dict(ember::load(EMBER_TEST_DATA_DIR "/small_model.safetensors"), false);
  EXPECT_TRUE(r.missing_keys.empty());
  EXPECT_EQ(r.unexpected_keys, Names{"steps"});
  // x = [1, 2]: relu(W0 x + b0) = [2, 2, 10]; then 0.25 * 2 - 0.5 * 2 + 10 - 1.25 = 8.25 (the
  // bfloat16 and float64 entries are converted into the float32 parameters).
  EXPECT_EQ(seq->forward(ember::tensor({1.f, 2.f})).item<float>(), 8.25f);
}

}  // namespace
