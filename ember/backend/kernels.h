// The kernel table: what a backend provides, one typed slot per primitive kernel. Ops (ember/ops)
// check arguments, pick dtypes and shapes, allocate outputs, and call a slot; a backend
// (backend/cpu, backend/cuda) fills the slots with one explicit registration call. An empty slot
// is a clear error, so a backend can be partial.
//
// Kernels receive outputs already allocated with the right shape and dtype, and inputs already
// converted to the dtype the kernel computes in; they never allocate tensors themselves.
//
// Each topic's slots are a struct in backend/kernels_<topic>.h, named as the topic's ops
// (ops/<topic>.*) and CPU kernels (backend/cpu/<topic>.cpp). The core topics are members by value
// (every op file includes them anyway); the neural-network topics and the optimizer updates are
// reached through a pointer to a struct that only that topic's files include, so that adding a
// slot there rebuilds only that topic.
#pragma once

#include "ember/backend/kernels_complex.h"
#include "ember/backend/kernels_creation.h"
#include "ember/backend/kernels_elementwise.h"
#include "ember/backend/kernels_indexing.h"
#include "ember/backend/kernels_linalg.h"
#include "ember/backend/kernels_random.h"
#include "ember/backend/kernels_reduce.h"
#include "ember/backend/kernels_scan.h"
#include "ember/backend/kernels_softmax.h"
#include "ember/backend/kernels_sort.h"
#include "ember/core/tensor.h"

namespace ember {

struct ConvKernels;          // kernels_nn_conv.h
struct PoolKernels;          // kernels_nn_pool.h
struct ResampleKernels;      // kernels_nn_resample.h
struct NormKernels;          // kernels_nn_norm.h
struct DropoutKernels;       // kernels_nn_dropout.h
struct LossKernels;          // kernels_nn_loss.h
struct EmbeddingKernels;     // kernels_nn_embedding.h
struct RnnKernels;           // kernels_nn_rnn.h
struct AttentionKernels;     // kernels_nn_attention.h
struct OptimKernels;         // kernels_optim.h
struct LinalgFactorKernels;  // kernels_linalg_factor.h
struct FftKernels;           // kernels_fft.h

struct KernelTable {
  Allocator* allocator = nullptr;  // memory for this device's tensors
  ElementwiseKernels elementwise;
  CreationKernels creation;
  RandomKernels random;
  ReduceKernels reduce;
  SoftmaxKernels softmax;
  LinalgKernels linalg;
  IndexingKernels indexing;
  SortKernels sort;
  ScanKernels scan;
  ComplexKernels complex;
  const ConvKernels* nn_conv = nullptr;
  const PoolKernels* nn_pool = nullptr;
  const ResampleKernels* nn_resample = nullptr;
  const NormKernels* nn_norm = nullptr;
  const DropoutKernels* nn_dropout = nullptr;
  const LossKernels* nn_loss = nullptr;
  const EmbeddingKernels* nn_embedding = nullptr;
  const RnnKernels* nn_rnn = nullptr;
  const AttentionKernels* nn_attention = nullptr;
  const OptimKernels* optim = nullptr;
  const LinalgFactorKernels* linalg_factor = nullptr;
  const FftKernels* fft = nullptr;
};

// The table of `device`'s backend; throws if ember was built without it.
const KernelTable& kernels(Device device);
// Returns the slot, or throws "[op] has no <device> kernel".
template <class K>
K kernel(K slot, Device device, const char* op) {
  if (!slot) [[unlikely]] {
    EMBER_FAIL("[", op, "] has no kernel for device ", device);
  }
  return slot;
}

// A pointer topic's slots (kernels(device).nn_conv, ...), or throws "[op] has no <device> kernel".
template <class K>
const K& kernels_of(const K* topic, Device device, const char* op) {
  if (!topic) [[unlikely]] {
    EMBER_FAIL("[", op, "] has no kernel for device ", device);
  }
  return *topic;
}

// One registration function per backend, called from backend/kernels.cpp (the CUDA one only in
// builds with EMBER_CUDA).
namespace cpu {
void register_kernels(KernelTable& table);
}
namespace cuda {
void register_kernels(KernelTable& table);
}

}  // namespace ember
