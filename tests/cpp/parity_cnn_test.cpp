// The Python-vs-C++ parity check (issue 5): the small CNN of docs/design/cpp_frontend.md
// ("Parity test"), built from ember::nn modules with deterministic weights and batches, trained
// 20 Adam steps; its losses must match tests/data/parity_cnn_adam_losses.txt, which the Python
// front end checks too (tests/python). Regenerate the file from this C++ run with (one line)
//   EMBER_WRITE_PARITY_LOSSES=tests/data/parity_cnn_adam_losses.txt
//   build/dev/tests/cpp/ember_tests --gtest_filter='ParityCnn.*'
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace {

namespace nn = ember::nn;
using ember::Tensor;

// conv1 -> relu -> pool -> conv2 -> relu -> pool -> flatten -> fc: [16, 1, 8, 8] -> [16, 10].
struct ParityCnn : nn::Module {
  std::shared_ptr<nn::Conv2d> conv1, conv2;
  std::shared_ptr<nn::MaxPool2d> pool;
  std::shared_ptr<nn::Linear> fc;

  ParityCnn() : Module("ParityCnn") {
    conv1 = register_module("conv1",
                            std::make_shared<nn::Conv2d>(1, 4, 3, nn::ConvOptions{.padding = 1}));
    conv2 = register_module("conv2",
                            std::make_shared<nn::Conv2d>(4, 8, 3, nn::ConvOptions{.padding = 1}));
    pool = std::make_shared<nn::MaxPool2d>(2);
    fc = register_module("fc", std::make_shared<nn::Linear>(32, 10));
  }
  Tensor forward(const Tensor& x) const {
    const Tensor h = pool->forward(ember::relu(conv1->forward(x)));
    return fc->forward(pool->forward(ember::relu(conv2->forward(h))).flatten(1));
  }
};

// (0.3 * sin(arange(n, float64) * 0.7 + k)).to(float32), in the given shape.
Tensor det_weight(int64_t k, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  const Tensor t = ember::sin(ember::arange(n, ember::kFloat64) * 0.7 + double(k)) * 0.3;
  return t.to(ember::kFloat32).reshape(shape);
}

std::vector<double> run_parity() {
  auto model = std::make_shared<ParityCnn>();
  ember::StateDict init;
  int64_t k = 0;
  for (const auto& [name, p] : model->named_parameters())
    init.insert(name, det_weight(k++, p.sizes().vec()));
  model->load_state_dict(init);

  ember::optim::Adam opt(model->parameters(), {.lr = 0.01});
  std::vector<double> losses;
  for (int t = 0; t < 20; ++t) {
    const Tensor x = ember::sin(ember::arange(16 * 64, ember::kFloat64) * 0.37 + double(t))
                         .to(ember::kFloat32)
                         .reshape({16, 1, 8, 8});
    const Tensor y = ember::remainder(ember::arange(16, ember::kInt64) * 3 + t, 10);
    opt.zero_grad();
    const Tensor loss = ember::cross_entropy(model->forward(x), y);
    losses.push_back(loss.item<double>());
    loss.backward();
    opt.step();
  }
  return losses;
}

TEST(ParityCnn, TwentyAdamStepsMatchTheGoldenLosses) {
  const std::vector<double> losses = run_parity();
  ASSERT_EQ(losses.size(), 20u);
  if (const char* out = std::getenv("EMBER_WRITE_PARITY_LOSSES")) {
    FILE* f = std::fopen(out, "w");
    ASSERT_NE(f, nullptr) << out;
    for (double l : losses) std::fprintf(f, "%.9g\n", l);
    std::fclose(f);
  }
  std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/parity_cnn_adam_losses.txt");
  ASSERT_TRUE(in.good()) << "missing " << EMBER_TEST_DATA_DIR << "/parity_cnn_adam_losses.txt";
  std::vector<double> golden;
  for (double v; in >> v;) golden.push_back(v);
  ASSERT_EQ(golden.size(), 20u);
  for (size_t i = 0; i < 20; ++i)
    EXPECT_NEAR(losses[i], golden[i], 1e-4 * std::abs(golden[i])) << "step " << i;
  // Training works at all: the loss falls over the 20 steps.
  EXPECT_LT(losses.back(), losses.front());
}

}  // namespace
