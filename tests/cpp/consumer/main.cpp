// Uses the installed headers and library; returns nonzero on a wrong result.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <ember/ember.h>

int main(int argc, char** argv) {
  // [[1, 2], [3, 4]] @ [1, 1] = [3, 7]; then 3^2 + 7^2 = 58, and d/dv = 2 * A^T (A v) = [48, 68].
  const ember::Tensor a = ember::tensor({{1.f, 2.f}, {3.f, 4.f}});
  ember::Tensor v = ember::ones({2}, ember::TensorOptions().requires_grad());
  const ember::Tensor y = a.matmul(v);
  const ember::Tensor loss = (y * y).sum();
  loss.backward();
  const float value = loss.item<float>();
  const std::vector<float> grad = v.grad().to_vector<float>();
  std::printf("ember %s: loss %s, grad %s\n", EMBER_VERSION, loss.repr().c_str(),
              v.grad().repr().c_str());
  if (value != 58.0f || grad.size() != 2 || grad[0] != 48.0f || grad[1] != 68.0f) {
    std::fprintf(stderr, "wrong result\n");
    return 1;
  }

  // The nn headers are installed and self-contained: a Linear with loaded weights gives
  // 1 * 3 + 2 * 4 + 0.5 = 11.5.
  auto lin = std::make_shared<ember::nn::Linear>(2, 1);
  ember::StateDict state;
  state.insert("weight", ember::tensor({{1.f, 2.f}}));
  state.insert("bias", ember::tensor({0.5f}));
  lin->load_state_dict(state);
  const float out = lin->forward(ember::tensor({3.f, 4.f})).item<float>();
  std::printf("%s -> %g\n", lin->repr().c_str(), out);
  if (out != 11.5f) {
    std::fprintf(stderr, "wrong nn::Linear result\n");
    return 1;
  }
  // A checkpoint round trip: ember::save / ember::load link without their JSON library, which
  // ember uses privately.
  ember::StateDict sd;
  sd.insert("grad", v.grad());
  const std::string path = std::string(argc > 1 ? argv[1] : ".") + "/consumer.safetensors";
  ember::save(sd, path);
  if (ember::load(path).at("grad").to_vector<float>() != grad) {
    std::fprintf(stderr, "wrong checkpoint round trip\n");
    return 1;
  }
  std::remove(path.c_str());
  return 0;
}
