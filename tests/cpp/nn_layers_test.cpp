// The C++ layers beyond Linear / Conv2d / BatchNorm (nn_module_test.cpp): parameter names and
// shapes as PyTorch's, output shapes, and forwards equal to the ops they wrap on the same
// weights; containers; losses as modules.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

namespace nn = ember::nn;
using ember::ErrorKind;
using ember::Tensor;
using ember_test::vec;
using Names = std::vector<std::string>;
using Shape = std::vector<int64_t>;

Names param_names(const nn::Module& m) {
  Names out;
  for (const auto& [k, v] : m.named_parameters()) out.push_back(k);
  return out;
}

void expect_same(const Tensor& a, const Tensor& b, double tol = 1e-6) {
  ASSERT_EQ(vec(a.sizes()), vec(b.sizes()));
  EXPECT_TRUE(ember::allclose(a, b, tol, tol)) << a << "\n" << b;
}

TEST(NnLayers, ConvolutionsHavePyTorchShapes) {
  ember::manual_seed(0);
  nn::Conv1d c1(2, 4, 3, {.padding = "same"});
  EXPECT_EQ(vec(c1.weight.sizes()), (Shape{4, 2, 3}));
  EXPECT_EQ(vec(c1.forward(ember::randn({1, 2, 7})).sizes()), (Shape{1, 4, 7}));
  nn::Conv3d c3(2, 4, {1, 2, 3}, {.stride = {1, 2, 1}, .groups = 2, .bias = false});
  EXPECT_EQ(vec(c3.weight.sizes()), (Shape{4, 1, 1, 2, 3}));
  EXPECT_EQ(param_names(c3), Names{"weight"});
  EXPECT_EQ(vec(c3.forward(ember::randn({2, 2, 3, 6, 5})).sizes()), (Shape{2, 4, 3, 3, 3}));
  // Transposed: weight [in, out / groups, k]; out = (in - 1) * stride - 2 * pad + k + out_pad.
  nn::ConvTranspose2d t2(3, 2, 3, {.stride = 2, .padding = 1, .output_padding = 1});
  EXPECT_EQ(vec(t2.weight.sizes()), (Shape{3, 2, 3, 3}));
  const Tensor x = ember::randn({1, 3, 4, 5});
  EXPECT_EQ(vec(t2.forward(x).sizes()), (Shape{1, 2, 8, 10}));
  expect_same(t2.forward(x), ember::conv_transpose2d(x, t2.weight, t2.bias, 2, 1, 1));
  nn::ConvTranspose1d t1(2, 2, 2);
  EXPECT_EQ(vec(t1.forward(ember::randn({2, 4})).sizes()), (Shape{2, 5}));
  EXPECT_EMBER_ERROR(nn::Conv2d(3, 4, 3, {.groups = 2}), ErrorKind::Value,
                     "in_channels must be divisible by groups");
  EXPECT_EMBER_ERROR(nn::Conv2d(3, 4, {3, 3, 3}), ErrorKind::Value,
                     "[Conv2d] kernel_size takes 1 or 2 values, got 3");
}

TEST(NnLayers, PoolingLayersCallTheirOps) {
  const Tensor x = ember_test::iota({1, 1, 4, 4});
  expect_same(nn::MaxPool2d(2).forward(x),
              ember::tensor({5.f, 7.f, 13.f, 15.f}).view({1, 1, 2, 2}));
  expect_same(nn::AvgPool2d(2).forward(x),
              ember::tensor({2.5f, 4.5f, 10.5f, 12.5f}).view({1, 1, 2, 2}));
  expect_same(nn::MaxPool2d(3, {.stride = 1, .padding = 1}).forward(x),
              ember::max_pool2d(x, 3, 1, 1));
  expect_same(nn::AdaptiveAvgPool2d(1).forward(x), ember::full({1, 1, 1, 1}, 7.5f));
  expect_same(nn::AdaptiveMaxPool2d({1, 2}).forward(x),
              ember::tensor({13.f, 15.f}).view({1, 1, 1, 2}));
  const Tensor s = ember_test::iota({1, 2, 6});
  expect_same(nn::MaxPool1d(3).forward(s), ember::tensor({2.f, 5.f, 8.f, 11.f}).view({1, 2, 2}));
  expect_same(nn::AvgPool1d(2, {.stride = 2}).forward(s), ember::avg_pool1d(s, 2, 2));
  expect_same(nn::AdaptiveAvgPool1d(2).forward(s),
              ember::tensor({1.f, 4.f, 7.f, 10.f}).view({1, 2, 2}));
  const Tensor v = ember_test::iota({1, 1, 2, 2, 2});
  expect_same(nn::MaxPool3d(2).forward(v), ember::full({1, 1, 1, 1, 1}, 7.f));
  expect_same(nn::AvgPool3d(2).forward(v), ember::full({1, 1, 1, 1, 1}, 3.5f));
  expect_same(nn::AdaptiveAvgPool3d(1).forward(v), ember::full({1, 1, 1, 1, 1}, 3.5f));
}

TEST(NnLayers, NormsMatchTheirOps) {
  ember::manual_seed(1);
  const Tensor x = ember::randn({4, 6, 3, 3});
  nn::GroupNorm gn(3, 6);
  EXPECT_EQ(param_names(gn), (Names{"weight", "bias"}));
  expect_same(gn.forward(x), ember::group_norm(x, 3, gn.weight, gn.bias));
  nn::LayerNorm ln({3, 3}, {.eps = 1e-3, .bias = false});
  EXPECT_EQ(param_names(ln), Names{"weight"});
  expect_same(ln.forward(x), ember::layer_norm(x, {3, 3}, ln.weight, std::nullopt, 1e-3));
  // InstanceNorm2d: no parameters or buffers by default; each plane to mean 0.
  nn::InstanceNorm2d in(6);
  EXPECT_TRUE(in.named_parameters().empty());
  EXPECT_TRUE(in.state_dict().empty());
  const Tensor y = in.forward(x);
  EXPECT_LT(y.mean({2, 3}).abs().max().item<float>(), 1e-5f);
  EXPECT_EQ(vec(in.forward(x[0]).sizes()), (Shape{6, 3, 3}));
  nn::InstanceNorm2d tracked(6, {.affine = true, .track_running_stats = true});
  EXPECT_EQ(tracked.state_dict().size(), 5u);
  nn::BatchNorm3d bn3(6);
  EXPECT_EQ(vec(bn3.forward(ember::randn({2, 6, 2, 2, 2})).sizes()), (Shape{2, 6, 2, 2, 2}));
  EXPECT_EMBER_ERROR(bn3.forward(x), ErrorKind::Value, "expected 5D input (got 4D input)");
  nn::BatchNorm2d nobias(6, {.bias = false});
  EXPECT_EQ(param_names(nobias), Names{"weight"});
  EXPECT_EQ(nobias.repr(),
            "BatchNorm2d(6, eps=1e-05, momentum=0.1, affine=True, bias=False, "
            "track_running_stats=True)");
  EXPECT_EQ(nn::InstanceNorm2d(3).repr(),
            "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
            "track_running_stats=False)");
  EXPECT_EQ(nn::GroupNorm(3, 6, {.bias = false}).repr(),
            "GroupNorm(3, 6, eps=1e-05, affine=True, bias=False)");
  EXPECT_EQ(ln.repr(), "LayerNorm((3, 3), eps=0.001, elementwise_affine=True, bias=False)");
  nn::BatchNorm2d untracked(6, {.affine = false, .track_running_stats = false});
  EXPECT_TRUE(untracked.state_dict().empty());
  untracked.eval();  // no running stats: batch statistics even in eval
  EXPECT_LT(untracked.forward(x).mean({0, 2, 3}).abs().max().item<float>(), 1e-5f);
}

TEST(NnLayers, DropoutAndActivationsMatchTheirOps) {
  ember::manual_seed(2);
  const Tensor x = ember::randn({3, 4});
  expect_same(nn::ReLU().forward(x), ember::relu(x));
  expect_same(nn::ReLU6().forward(x * 5), ember::relu6(x * 5));
  expect_same(nn::GELU("tanh").forward(x), ember::gelu(x, "tanh"));
  expect_same(nn::SiLU().forward(x), x * ember::sigmoid(x));
  expect_same(nn::Tanh().forward(x), ember::tanh(x));
  expect_same(nn::Sigmoid().forward(x), ember::sigmoid(x));
  expect_same(nn::LeakyReLU(0.2).forward(x), ember::where(x > 0, x, x * 0.2));
  expect_same(nn::ELU().forward(x), ember::elu(x));
  expect_same(nn::SELU().forward(x), ember::selu(x));
  expect_same(nn::Mish().forward(x), ember::mish(x));
  expect_same(nn::Softplus(2.0).forward(x), ember::softplus(x, 2.0));
  expect_same(nn::Hardtanh(-0.5, 0.5).forward(x), ember::clamp(x, -0.5, 0.5));
  expect_same(nn::Hardsigmoid().forward(x), ember::hardsigmoid(x));
  expect_same(nn::Hardswish().forward(x), ember::hardswish(x));
  expect_same(nn::Softsign().forward(x), x / (x.abs() + 1));
  expect_same(nn::Softmax(1).forward(x).sum({1}), ember::ones({3}));
  expect_same(nn::LogSoftmax(1).forward(x), ember::log_softmax(x, 1));
  EXPECT_EQ(nn::LeakyReLU().repr(), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(nn::GELU().repr(), "GELU(approximate='none')");
  EXPECT_EMBER_ERROR(nn::GELU("fast"), ErrorKind::Value, "'fast'");

  // Dropout2d zeroes whole channels in training, nothing in eval.
  nn::Dropout2d d2(0.5);
  const Tensor y = d2.forward(ember::ones({8, 16, 2, 2}));
  const Tensor per_channel = y.sum({2, 3});  // 0 or 4 * 2
  EXPECT_TRUE(ember::equal(per_channel * (per_channel - 8), ember::zeros({8, 16})));
  d2.eval();
  EXPECT_TRUE(ember::equal(d2.forward(ember::ones({2, 3, 2, 2})), ember::ones({2, 3, 2, 2})));
  EXPECT_EMBER_ERROR(nn::Dropout(1.5), ErrorKind::Value, "between 0 and 1");
}

TEST(NnLayers, LinearFamilyAndReshaping) {
  ember::manual_seed(3);
  nn::Bilinear bl(2, 3, 4);
  EXPECT_EQ(vec(bl.weight.sizes()), (Shape{4, 2, 3}));
  const Tensor a = ember::randn({5, 2}), b = ember::randn({5, 3});
  expect_same(bl.forward(a, b), ember::bilinear(a, b, bl.weight, bl.bias));
  nn::Linear nob(3, 2, {.bias = false});
  EXPECT_EQ(param_names(nob), Names{"weight"});
  EXPECT_EQ(nob.repr(), "Linear(in_features=3, out_features=2, bias=False)");
  const Tensor x = ember::randn({2, 3, 4});
  EXPECT_EQ(vec(nn::Flatten().forward(x).sizes()), (Shape{2, 12}));
  EXPECT_EQ(vec(nn::Flatten(0).forward(x).sizes()), (Shape{24}));
  EXPECT_EQ(vec(nn::Unflatten(2, {2, 2}).forward(x).sizes()), (Shape{2, 3, 2, 2}));
  EXPECT_TRUE(nn::Identity().forward(x).is_same(x));
}

TEST(NnLayers, EmbeddingsFollowPyTorch) {
  ember::manual_seed(4);
  nn::Embedding emb(10, 3, {.padding_idx = -1});
  EXPECT_EQ(*emb.options.padding_idx, 9);
  EXPECT_EQ(emb.weight[9].to_vector<float>(), std::vector<float>(3, 0.f));
  const Tensor idx = ember::tensor({{1, 2}, {9, 1}}).to(ember::kInt64);
  const Tensor y = emb.forward(idx);
  EXPECT_EQ(vec(y.sizes()), (Shape{2, 2, 3}));
  expect_same(y[0][0], emb.weight[1]);
  y.sum().backward();
  // Row 1 is used twice, the padding row gets no gradient.
  EXPECT_EQ(emb.weight.grad()[1].to_vector<float>(), std::vector<float>(3, 2.f));
  EXPECT_EQ(emb.weight.grad()[9].to_vector<float>(), std::vector<float>(3, 0.f));
  EXPECT_EQ(emb.repr(), "Embedding(10, 3, padding_idx=9)");
  EXPECT_EMBER_ERROR(nn::Embedding(4, 2, {.sparse = true}), ErrorKind::NotImplemented, "sparse");

  nn::EmbeddingBag bag(10, 3, {.mode = "sum"});
  const Tensor flat = ember::tensor({1, 2, 4, 5, 4}).to(ember::kInt64);
  const Tensor offsets = ember::tensor({0, 2}).to(ember::kInt64);
  const Tensor sums = bag.forward(flat, offsets);
  expect_same(sums[0], bag.weight[1] + bag.weight[2]);
  expect_same(sums[1], bag.weight[4] * 2 + bag.weight[5], 1e-5);
}

TEST(NnLayers, RecurrentLayersHavePyTorchParametersAndShapes) {
  ember::manual_seed(5);
  nn::LSTM lstm(3, 4, {.num_layers = 2, .bidirectional = true});
  EXPECT_EQ(
      param_names(lstm),
      (Names{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
             "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse", "weight_ih_l1",
             "weight_hh_l1", "bias_ih_l1", "bias_hh_l1", "weight_ih_l1_reverse",
             "weight_hh_l1_reverse", "bias_ih_l1_reverse", "bias_hh_l1_reverse"}));
  EXPECT_EQ(vec(lstm.parameter("weight_ih_l1").sizes()), (Shape{16, 8}));
  // All weights in U(-1/2, 1/2) for hidden_size 4.
  for (const Tensor& p : lstm.parameters()) EXPECT_LE(p.abs().max().item<float>(), 0.5f);
  const Tensor x = ember::randn({5, 2, 3});
  auto [out, hc] = lstm.forward(x);
  EXPECT_EQ(vec(out.sizes()), (Shape{5, 2, 8}));
  EXPECT_EQ(vec(hc.first.sizes()), (Shape{4, 2, 4}));
  EXPECT_EQ(vec(hc.second.sizes()), (Shape{4, 2, 4}));
  // Same as the op on the same weights and zero states.
  auto [o2, h2, c2] = ember::lstm(x, {ember::zeros({4, 2, 4}), ember::zeros({4, 2, 4})},
                                  lstm.parameters(), true, 2, 0.0, true, true, false);
  expect_same(out, o2);
  expect_same(hc.second, c2);
  // Unbatched input [T, I] gives [T, D * H] and states without a batch dim.
  auto [uo, uhc] = lstm.forward(x.select(1, 0));
  EXPECT_EQ(vec(uo.sizes()), (Shape{5, 8}));
  expect_same(uo, out.select(1, 0));
  EXPECT_EQ(vec(uhc.first.sizes()), (Shape{4, 4}));

  nn::GRU gru(3, 4, {.batch_first = true});
  auto [go, gh] = gru.forward(ember::randn({2, 5, 3}));
  EXPECT_EQ(vec(go.sizes()), (Shape{2, 5, 4}));
  EXPECT_EQ(vec(gh.sizes()), (Shape{1, 2, 4}));
  nn::RNN rnn(3, 4, {.nonlinearity = "relu", .bias = false});
  EXPECT_EQ(param_names(rnn), (Names{"weight_ih_l0", "weight_hh_l0"}));
  auto [ro, rh] = rnn.forward(x, ember::ones({1, 2, 4}));
  EXPECT_GE(ember::min(ro).item<float>(), 0.f);
  expect_same(ro.select(0, 4), rh[0]);
  EXPECT_EMBER_ERROR(nn::RNN(3, 4, {.nonlinearity = "gelu"}), ErrorKind::Value, "'gelu'");

  nn::LSTMCell cell(3, 4);
  EXPECT_EQ(param_names(cell), (Names{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  auto [h, c] = cell.forward(ember::randn({2, 3}));
  EXPECT_EQ(vec(h.sizes()), (Shape{2, 4}));
  nn::GRUCell gcell(3, 4);
  const Tensor xi = ember::randn({2, 3}), hi = ember::randn({2, 4});
  expect_same(gcell.forward(xi, hi), ember::gru_cell(xi, hi, gcell.weight_ih, gcell.weight_hh,
                                                     gcell.bias_ih, gcell.bias_hh));
  EXPECT_EQ(vec(gcell.forward(xi[0]).sizes()), (Shape{4}));
  nn::RNNCell rcell(3, 4, {.nonlinearity = "relu"});
  EXPECT_EQ(rcell.repr(), "RNNCell(3, 4, nonlinearity=relu)");
  EXPECT_EQ(vec(rcell.forward(xi).sizes()), (Shape{2, 4}));
}

TEST(NnLayers, ContainersIndexNameAndChain) {
  auto seq = std::make_shared<nn::Sequential>();
  seq->push_back(std::make_shared<nn::Linear>(2, 2));
  seq->push_back([](const Tensor& x) { return x * 2; });
  seq->push_back("act", std::make_shared<nn::ReLU>());
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ((*seq)[-1]->type_name(), "ReLU");
  EXPECT_EQ((*seq)[1]->type_name(), "Functional");
  EXPECT_EQ(seq->at<nn::Linear>(0)->in_features, 2);
  EXPECT_EMBER_ERROR(seq->at<nn::Linear>(2), ErrorKind::Type, "is a ReLU");
  EXPECT_EMBER_ERROR((*seq)[3], ErrorKind::Index, "index 3 is out of range for 3 modules");
  EXPECT_EMBER_ERROR(seq->push_back("act", std::make_shared<nn::Tanh>()), ErrorKind::Value,
                     "a module named 'act' is already in the Sequential");
  auto lin = seq->at<nn::Linear>(0);
  const Tensor x = ember::tensor({{1.f, -1.f}});
  expect_same(seq->forward(x), ember::relu(lin->forward(x) * 2));
  Names names;
  for (const auto& [k, m] : seq->named_children()) names.push_back(k);
  EXPECT_EQ(names, (Names{"0", "1", "act"}));

  auto list = std::make_shared<nn::ModuleList>(std::make_shared<nn::Linear>(2, 3),
                                               std::make_shared<nn::Linear>(3, 1));
  EXPECT_EQ(param_names(*list), (Names{"0.weight", "0.bias", "1.weight", "1.bias"}));
  Tensor h = x;
  for (const auto& m : *list) h = std::dynamic_pointer_cast<nn::Linear>(m)->forward(h);
  EXPECT_EQ(vec(h.sizes()), (Shape{1, 1}));
}

TEST(NnLayers, LossModulesMatchTheirOps) {
  ember::manual_seed(6);
  const Tensor logits = ember::randn({4, 3});
  const Tensor target = ember::tensor({0, 2, 1, 2}).to(ember::kInt64);
  const Tensor w = ember::tensor({1.f, 2.f, 0.5f});
  nn::CrossEntropyLoss ce({.weight = w, .label_smoothing = 0.1});
  expect_same(ce.forward(logits, target),
              ember::cross_entropy(logits, target, w, "mean", -100, 0.1));
  EXPECT_EQ(ce.state_dict().size(), 1u);  // the class weight is a buffer, as in PyTorch
  nn::NLLLoss nll({.reduction = "sum"});
  expect_same(nll.forward(ember::log_softmax(logits, 1), target),
              ember::cross_entropy(logits, target, {}, "sum"), 1e-5);
  const Tensor a = ember::randn({5}), b = ember::randn({5});
  expect_same(nn::MSELoss().forward(a, b), ((a - b) * (a - b)).mean());
  expect_same(nn::L1Loss("sum").forward(a, b), (a - b).abs().sum(), 1e-5);
  expect_same(nn::SmoothL1Loss("mean", 0.5).forward(a, b),
              ember::smooth_l1_loss(a, b, "mean", 0.5));
  expect_same(nn::HuberLoss("none", 2.0).forward(a, b), ember::huber_loss(a, b, "none", 2.0));
  const Tensor t01 = ember::tensor({0.f, 1.f, 1.f, 0.f, 1.f});
  expect_same(nn::BCEWithLogitsLoss().forward(a, t01),
              nn::BCELoss().forward(ember::sigmoid(a), t01), 1e-5);
  expect_same(nn::KLDivLoss("sum").forward(ember::log_softmax(a, 0), ember::softmax(b, 0)),
              ember::kl_div(ember::log_softmax(a, 0), ember::softmax(b, 0), "sum"));
}

TEST(NnLayers, MoreShapesDropoutsAndResampling) {
  ember::manual_seed(7);
  nn::ConvTranspose3d t3(2, 3, 2, {.stride = 2});
  EXPECT_EQ(vec(t3.weight.sizes()), (Shape{2, 3, 2, 2, 2}));
  const Tensor v = ember::randn({1, 2, 2, 3, 4});
  EXPECT_EQ(vec(t3.forward(v).sizes()), (Shape{1, 3, 4, 6, 8}));
  expect_same(t3.forward(v), ember::conv_transpose3d(v, t3.weight, t3.bias, 2));

  nn::InstanceNorm1d in1(3);
  const Tensor s = ember::randn({2, 3, 5});
  expect_same(in1.forward(s), ember::instance_norm(s, std::nullopt, std::nullopt, std::nullopt,
                                                   std::nullopt, true, 0.1, 1e-5));
  EXPECT_EQ(vec(in1.forward(s[0]).sizes()), (Shape{3, 5}));
  EXPECT_EMBER_ERROR(in1.forward(v), ErrorKind::Value, "[InstanceNorm1d] expected 2D or 3D input");
  EXPECT_EQ(vec(nn::InstanceNorm3d(2).forward(v).sizes()), (Shape{1, 2, 2, 3, 4}));

  // Channel dropouts zero whole channels: every (n, c) row of ones sums to 0 or 2 * size.
  const Tensor ones1 = ember::ones({4, 8, 6});
  const Tensor r1 = nn::Dropout1d().forward(ones1).sum({2});
  EXPECT_TRUE(ember::equal(r1 * (r1 - 12), ember::zeros({4, 8})));
  const Tensor r3 = nn::Dropout3d().forward(ember::ones({2, 8, 2, 2, 2})).sum({2, 3, 4});
  EXPECT_TRUE(ember::equal(r3 * (r3 - 16), ember::zeros({2, 8})));
  nn::AlphaDropout ad(0.2);
  ad.eval();
  EXPECT_TRUE(ember::equal(ad.forward(s), s));
  ad.train();
  EXPECT_FALSE(ember::equal(ad.forward(s), s));

  expect_same(nn::AdaptiveMaxPool1d(2).forward(ember_test::iota({1, 1, 6})),
              ember::tensor({2.f, 5.f}).view({1, 1, 2}));
  nn::Upsample up({.scale_factor = std::vector<double>{2.0}});
  expect_same(up.forward(ember::tensor({1.f, 2.f}).view({1, 1, 2})),
              ember::tensor({1.f, 1.f, 2.f, 2.f}).view({1, 1, 4}));
  EXPECT_EQ(up.repr(), "Upsample(scale_factor=2.0, mode='nearest')");
  EXPECT_EMBER_ERROR(nn::Upsample({}), ErrorKind::Value, "exactly one of size and scale_factor");
  const Tensor img = ember::randn({1, 8, 3, 3});
  const Tensor shuffled = nn::PixelShuffle(2).forward(img);
  EXPECT_EQ(vec(shuffled.sizes()), (Shape{1, 2, 6, 6}));
  EXPECT_TRUE(ember::equal(nn::PixelUnshuffle(2).forward(shuffled), img));
}

TEST(NnLayers, PaddingLayersCallPad) {
  const Tensor x = ember_test::iota({1, 1, 3});  // [0, 1, 2]
  expect_same(nn::ZeroPad1d({1, 2}).forward(x),
              ember::tensor({0.f, 0.f, 1.f, 2.f, 0.f, 0.f}).view({1, 1, 6}));
  expect_same(nn::ConstantPad1d(1, 3.5).forward(x),
              ember::tensor({3.5f, 0.f, 1.f, 2.f, 3.5f}).view({1, 1, 5}));
  expect_same(nn::ReflectionPad1d(2).forward(x),
              ember::tensor({2.f, 1.f, 0.f, 1.f, 2.f, 1.f, 0.f}).view({1, 1, 7}));
  expect_same(nn::ReplicationPad1d({0, 2}).forward(x),
              ember::tensor({0.f, 1.f, 2.f, 2.f, 2.f}).view({1, 1, 5}));
  expect_same(nn::CircularPad1d(1).forward(x),
              ember::tensor({2.f, 0.f, 1.f, 2.f, 0.f}).view({1, 1, 5}));
  const Tensor img = ember::randn({2, 3, 4, 4});
  expect_same(nn::ReflectionPad2d({1, 0, 2, 1}).forward(img),
              ember::pad(img, {1, 0, 2, 1}, "reflect"));
  EXPECT_EQ(vec(nn::ZeroPad3d(1).forward(ember::ones({1, 2, 2, 2})).sizes()), (Shape{1, 4, 4, 4}));
  EXPECT_EQ(nn::ZeroPad2d({1, 1, 2, 0}).repr(), "ZeroPad2d((1, 1, 2, 0))");
  EXPECT_EQ(nn::ConstantPad2d(1, 3.5).repr(), "ConstantPad2d(padding=(1, 1, 1, 1), value=3.5)");
  EXPECT_EMBER_ERROR(nn::ZeroPad2d({1, 2, 3}), ErrorKind::Value,
                     "[ZeroPad2d] padding takes 1 or 4 values, got 3");
}

// Against numbers from torch.nn.MultiheadAttention(4, 2) 2.15 with the same deterministic
// weights (0.3 * sin(0.7 i + k) for the k-th parameter) and input (sin(0.37 i), [3, 2, 4]).
TEST(NnLayers, MultiheadAttentionMatchesTorchNumbers) {
  nn::MultiheadAttention mha(4, 2);
  std::vector<std::string> names;
  ember::StateDict sd;
  int64_t k = 0;
  for (const auto& [name, p] : mha.named_parameters()) {
    names.push_back(name);
    const Tensor w =
        ember::sin(ember::arange(p.numel(), ember::kFloat64) * 0.7 + double(k++)) * 0.3;
    sd.insert(name, w.to(ember::kFloat32).reshape(p.sizes()));
  }
  EXPECT_EQ(names, (Names{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}));
  mha.load_state_dict(sd);
  const Tensor x =
      ember::sin(ember::arange(24, ember::kFloat64) * 0.37).to(ember::kFloat32).view({3, 2, 4});
  const Tensor kpm = ember::tensor({0, 0, 0, 0, 0, 1}).to(ember::kBool).view({2, 3});
  auto [out, w] = mha.forward(x, x, x, kpm);
  const std::vector<float> want_out = {
      -0.00196813792f, -0.189306065f,   -0.18397373f,    -0.438673258f,   0.0658149421f,
      -0.245227277f,   -0.146376371f,   -0.453602225f,   -0.00655347109f, -0.179890752f,
      -0.197131038f,   -0.423294395f,   -0.00418739766f, -0.192499712f,   -0.175736219f,
      -0.451002777f,   -0.00113116577f, -0.189576596f,   -0.1843009f,     -0.437786222f,
      0.0771758333f,   -0.257616729f,   -0.134390026f,   -0.463800371f};
  const std::vector<float> want_w = {
      0.315119028f, 0.328671187f, 0.356209815f, 0.351949513f, 0.330055237f, 0.31799525f,
      0.315357417f, 0.335974514f, 0.348668069f, 0.423155755f, 0.576844275f, 0.f,
      0.581767976f, 0.418232024f, 0.f,          0.374025375f, 0.625974655f, 0.f};
  expect_same(out, ember::tensor(want_out).view({3, 2, 4}), 1e-5);
  expect_same(w, ember::tensor(want_w).view({2, 3, 3}), 1e-5);
  // A causal bool attn_mask, per-head weights.
  const Tensor causal = ember::triu(ember::ones({3, 3}), 1).to(ember::kBool);
  auto [out2, w2] = mha.forward(x, x, x, {}, true, causal, false);
  EXPECT_EQ(vec(w2.sizes()), (Shape{2, 2, 3, 3}));
  expect_same(w2[1][1].flatten(),
              ember::tensor({1.f, 0.f, 0.f, 0.483941406f, 0.516058624f, 0.f, 0.283391923f,
                             0.433872908f, 0.282735109f}),
              1e-5);
  expect_same(out2[0][0],
              ember::tensor({-0.09619762f, -0.0991170928f, -0.259700388f, -0.386159599f}), 1e-5);
  // batch_first and unbatched inputs give the same numbers.
  nn::MultiheadAttention bf(4, 2, {.batch_first = true});
  bf.load_state_dict(sd);
  expect_same(bf.forward(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), kpm).first,
              out.transpose(0, 1), 1e-6);
  const Tensor x0 = x.select(1, 0);
  expect_same(mha.forward(x0, x0, x0).first, out.select(1, 0), 1e-6);
  EXPECT_FALSE(mha.forward(x, x, x, {}, false).second.defined());
  EXPECT_EMBER_ERROR(nn::MultiheadAttention(6, 4), ErrorKind::Value, "divisible by num_heads");
}

// Against torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=6) 2.15 in eval mode, post-norm
// with relu and pre-norm with gelu, weights and input as in the MultiheadAttention test.
TEST(NnLayers, TransformerEncoderLayerMatchesTorchNumbers) {
  const Tensor x =
      ember::sin(ember::arange(24, ember::kFloat64) * 0.37).to(ember::kFloat32).view({3, 2, 4});
  const Tensor kpm = ember::tensor({0, 0, 0, 0, 0, 1}).to(ember::kBool).view({2, 3});
  const std::vector<float> want_post = {
      -0.418284953f, -0.581186235f,  0.1736480f,    0.306863695f,  -0.54248035f,  -0.243543759f,
      0.314331532f,  0.182003289f,   -0.547764242f, -0.246633798f, 0.297889769f,  0.195864707f,
      -0.578864038f, -0.0898874849f, 0.17967084f,   0.205715328f,  -0.445215017f, -0.535890579f,
      0.148132667f,  0.320311397f,   -0.541328728f, -0.23050499f,  0.319466680f,  0.172411233f};
  const std::vector<float> want_pre = {
      0.345873654f,  0.488485515f,  0.637806177f,  0.595168829f,   1.3226347f,      1.11924875f,
      0.744862676f,  0.211212337f,  0.511810303f,  -0.0304587483f, -0.580857933f,   -1.11697686f,
      -0.630705476f, -0.842556596f, -0.945101738f, -0.9758600f,    -0.00944322348f, 0.134380043f,
      0.330844939f,  0.378716111f,  1.2260993f,    1.15074706f,    0.910815001f,    0.480042636f};
  for (bool norm_first : {false, true}) {
    nn::TransformerEncoderLayer layer(4, 2,
                                      {.dim_feedforward = 6,
                                       .activation = norm_first ? "gelu" : "relu",
                                       .norm_first = norm_first});
    ember::StateDict sd;
    Names names;
    int64_t k = 0;
    for (const auto& [name, p] : layer.named_parameters()) {
      names.push_back(name);
      const Tensor w =
          ember::sin(ember::arange(p.numel(), ember::kFloat64) * 0.7 + double(k++)) * 0.3;
      sd.insert(name, w.to(ember::kFloat32).reshape(p.sizes()));
    }
    EXPECT_EQ(names, (Names{"self_attn.in_proj_weight", "self_attn.in_proj_bias",
                            "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                            "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
                            "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"}));
    layer.load_state_dict(sd);
    layer.eval();
    expect_same(layer.forward(x, {}, kpm),
                ember::tensor(norm_first ? want_pre : want_post).view({3, 2, 4}), 1e-5);
  }
}

TEST(NnLayers, PReLULearnsOneSlopePerChannel) {
  nn::PReLU prelu(3);
  EXPECT_EQ(prelu.weight.to_vector<float>(), std::vector<float>(3, 0.25f));
  {
    ember::NoGradGuard g;
    prelu.weight.copy_(ember::tensor({0.1f, 0.2f, 0.3f}));
  }
  const Tensor x = ember::tensor({{-1.f, 2.f, -3.f}});
  const Tensor y = prelu.forward(x);
  expect_same(y, ember::tensor({{-0.1f, 2.f, -0.9f}}));
  y.sum().backward();
  expect_same(prelu.weight.grad(), ember::tensor({-1.f, 0.f, -3.f}));
  EXPECT_EQ(prelu.repr(), "PReLU(num_parameters=3)");
  EXPECT_EMBER_ERROR(prelu.forward(ember::ones({2, 4})), ErrorKind::Value, "expected 3 channels");
  expect_same(nn::PReLU().forward(ember::tensor({-4.f, 4.f})), ember::tensor({-1.f, 4.f}));
}

TEST(NnLayers, ApplyAndNonStrictLoadResult) {
  auto seq = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(2, 2),
                                              std::make_shared<nn::ReLU>(),
                                              std::make_shared<nn::Linear>(2, 1));
  std::vector<std::string> order;
  seq->apply([&](nn::Module& m) {
    order.push_back(m.type_name());
    if (auto* lin = dynamic_cast<nn::Linear*>(&m)) nn::init::zeros_(lin->weight);
  });
  EXPECT_EQ(order, (Names{"Linear", "ReLU", "Linear", "Sequential"}));
  EXPECT_EQ(seq->at<nn::Linear>(2)->weight.to_vector<float>(), std::vector<float>(2, 0.f));
  ember::StateDict sd;
  sd.insert("0.weight", ember::ones({2, 2}));
  sd.insert("9.bias", ember::ones({1}));
  const nn::LoadStateDictResult r = seq->load_state_dict(sd, /*strict=*/false);
  EXPECT_EQ(r.missing_keys, (Names{"0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(r.unexpected_keys, Names{"9.bias"});
  EXPECT_EQ(seq->at<nn::Linear>(0)->weight.to_vector<float>(), std::vector<float>(4, 1.f));
}

}  // namespace
