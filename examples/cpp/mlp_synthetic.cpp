// Trains a 784-256-256-10 MLP with plain SGD on synthetic data: random inputs labelled by a
// random linear "teacher". Prints the loss every 10 steps.
#include <cmath>
#include <cstdio>
#include <vector>

#include <ember/ember.h>

using ember::Tensor;

// Mean cross-entropy of logits [N, C] against one-hot targets, via a stable log-softmax.
Tensor onehot_cross_entropy(const Tensor& logits, const Tensor& one_hot) {
  const Tensor m = logits.max(1, /*keepdim=*/true).first.detach();
  const Tensor shifted = logits - m;
  const Tensor log_probs = shifted - shifted.exp().sum({1}, true).log();
  return -(log_probs * one_hot).sum() / double(logits.size(0));
}

// A weight matrix with He initialisation, or a zero bias when fan_out is 0.
Tensor param(int64_t fan_in, int64_t fan_out) {
  Tensor p = fan_out ? ember::randn({fan_in, fan_out}) * std::sqrt(2.0 / double(fan_in))
                     : ember::zeros({fan_in});
  p.requires_grad_();
  return p;
}

int main() {
  ember::manual_seed(0);
  const int64_t n = 512, classes = 10;
  const Tensor x = ember::randn({n, 784});
  const Tensor labels = x.matmul(ember::randn({784, classes})).max(1).second;
  const Tensor one_hot =
      (ember::arange(classes).view({1, classes}) == labels.view({n, 1})).to(ember::kFloat32);

  std::vector<Tensor> params = {param(784, 256), param(256, 0),  param(256, 256),
                                param(256, 0),   param(256, 10), param(10, 0)};
  const double lr = 0.1;
  for (int step = 0; step <= 100; ++step) {
    const Tensor h1 = (x.matmul(params[0]) + params[1]).relu();
    const Tensor h2 = (h1.matmul(params[2]) + params[3]).relu();
    const Tensor loss = onehot_cross_entropy(h2.matmul(params[4]) + params[5], one_hot);
    if (step % 10 == 0) std::printf("step %3d  loss %.4f\n", step, loss.item<double>());

    loss.backward();
    ember::NoGradGuard no_grad;  // the update itself is not part of the graph
    for (Tensor& p : params) {
      p.sub_(p.grad() * lr);
      p.grad().zero_();
    }
  }
  return 0;
}
