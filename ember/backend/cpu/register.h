// The CPU backend's registration, one function per kernel file.
#pragma once

#include "ember/backend/kernels.h"

namespace ember::cpu {
void register_elementwise(KernelTable& t);
void register_reduce(KernelTable& t);
void register_matmul(KernelTable& t);
void register_random(KernelTable& t);
void register_softmax(KernelTable& t);
void register_indexing(KernelTable& t);
void register_sort(KernelTable& t);
void register_scan(KernelTable& t);
void register_nn_conv(KernelTable& t);
void register_nn_pool(KernelTable& t);
void register_nn_norm(KernelTable& t);
void register_nn_loss(KernelTable& t);
void register_nn_rnn(KernelTable& t);
}  // namespace ember::cpu
