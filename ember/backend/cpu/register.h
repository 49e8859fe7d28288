// The CPU backend's registration: one function per topic, in backend/cpu/<topic>.cpp.
#pragma once

#include "ember/backend/kernels.h"

namespace ember::cpu {
void register_elementwise(KernelTable& t);
void register_creation(KernelTable& t);
void register_random(KernelTable& t);
void register_reduce(KernelTable& t);
void register_softmax(KernelTable& t);
void register_linalg(KernelTable& t);
void register_linalg_factor(KernelTable& t);
void register_indexing(KernelTable& t);
void register_sort(KernelTable& t);
void register_scan(KernelTable& t);
void register_complex(KernelTable& t);
void register_fft(KernelTable& t);
void register_nn_conv(KernelTable& t);
void register_nn_pool(KernelTable& t);
void register_nn_resample(KernelTable& t);
void register_nn_norm(KernelTable& t);
void register_nn_dropout(KernelTable& t);
void register_nn_loss(KernelTable& t);
void register_nn_embedding(KernelTable& t);
void register_nn_rnn(KernelTable& t);
void register_nn_attention(KernelTable& t);
void register_optim(KernelTable& t);
}  // namespace ember::cpu
