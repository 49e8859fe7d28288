#include "ember/backend/cpu/register.h"

namespace ember::cpu {

void register_kernels(KernelTable& t) {
  t.allocator = &cpu_allocator();
  register_elementwise(t);
  register_creation(t);
  register_random(t);
  register_reduce(t);
  register_softmax(t);
  register_linalg(t);
  register_linalg_factor(t);
  register_indexing(t);
  register_sort(t);
  register_scan(t);
  register_complex(t);
  register_fft(t);
  register_nn_conv(t);
  register_nn_pool(t);
  register_nn_resample(t);
  register_nn_norm(t);
  register_nn_dropout(t);
  register_nn_loss(t);
  register_nn_embedding(t);
  register_nn_rnn(t);
  register_nn_attention(t);
  register_optim(t);
}

}  // namespace ember::cpu
