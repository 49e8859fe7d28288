// One init function per binding file (python/src/*.cpp).
#pragma once

#include "convert.h"

namespace ember::py {
void init_types(nb::module_& m);     // types.cpp: dtype, device, Generator
void init_tensor(nb::module_& m);    // tensor.cpp: the Tensor class
void init_ops(nb::module_& m);       // ops.cpp: ops as functions and methods
void init_indexing(nb::module_& m);  // indexing.cpp: gather, scatter, index_*, masks
void init_shape(nb::module_& m);     // shape.cpp: cat, split, flip, pad and the other shape ops
void init_sort(nb::module_& m);      // sort.cpp: sort, topk, median, unique, cumsum and other scans
void init_creation(nb::module_& m);  // creation.cpp: factories and ember.tensor
void init_linalg_random(nb::module_& m);  // linalg_random.cpp: addmm, einsum, ...; samplers
void init_autograd(nb::module_& m);       // autograd.cpp: grad mode, backward, custom functions
void init_interop(nb::module_& m);        // interop.cpp: NumPy and DLPack
void init_utils(nb::module_& m);          // utils.cpp: threads, memory, printing, registry
void init_nn_conv(nb::module_& m);        // nn_conv.cpp: convolution
void init_nn_pool(nb::module_& m);        // nn_pool.cpp: pooling
void init_nn_norm(nb::module_& m);        // nn_norm.cpp: normalisation
void init_nn_loss(nb::module_& m);        // nn_loss.cpp: losses
void init_nn_rnn(nb::module_& m);         // nn_rnn.cpp: recurrent cells and sequences
void init_io(nb::module_& m);             // io.cpp: safetensors files (ember.save / ember.load)
void init_optim(nb::module_& m);          // optim.cpp: fused optimizer updates (ember._C._optim)

// The nb::class_ of Tensor, for files that add methods to it.
nb::class_<Tensor>& tensor_class();

// Binds f as ember.<name>(input, ...) and as Tensor.<name>(...).
template <class F, class... Extra>
void def_both(nb::module_& m, const char* name, F f, const Extra&... extra) {
  m.def(name, f, nb::arg("input"), extra...);
  tensor_class().def(name, f, extra...);
}
void release_tensor_class();  // at the end of module initialisation
}  // namespace ember::py
