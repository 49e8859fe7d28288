// Trains a 784-256-256-10 MLP with SGD on synthetic data: random inputs labelled by a random
// linear "teacher". Prints the loss every 10 steps. Uses ember::nn for the model and the loss,
// and ember::optim for the update, as a C++ user would.
#include <cstdio>
#include <memory>

#include <ember/ember.h>

namespace nn = ember::nn;
using ember::Tensor;

int main() {
  ember::manual_seed(0);
  const int64_t n = 512, classes = 10;
  const Tensor x = ember::randn({n, 784});
  const Tensor labels = x.matmul(ember::randn({784, classes})).max(1).second;

  auto model = std::make_shared<nn::Sequential>(
      std::make_shared<nn::Linear>(784, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, classes));
  nn::CrossEntropyLoss criterion;
  ember::optim::SGD optimizer(model->parameters(), {.lr = 0.1});

  for (int step = 0; step <= 100; ++step) {
    optimizer.zero_grad();
    const Tensor loss = criterion.forward(model->forward(x), labels);
    if (step % 10 == 0) std::printf("step %3d  loss %.4f\n", step, loss.item<double>());
    loss.backward();
    optimizer.step();
  }
  return 0;
}
