#include "ember/backend/cpu/register.h"

namespace ember::cpu {

void register_kernels(KernelTable& t) {
  t.allocator = &cpu_allocator();
  register_elementwise(t);
  register_reduce(t);
  register_matmul(t);
  register_random(t);
  register_softmax(t);
  register_indexing(t);
  register_sort(t);
  register_scan(t);
  register_nn_conv(t);
  register_nn_pool(t);
  register_nn_norm(t);
  register_nn_loss(t);
  register_nn_rnn(t);
}

}  // namespace ember::cpu
