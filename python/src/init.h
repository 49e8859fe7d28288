// What the binding files (python/src/*.cpp) share: their init functions, the Tensor class, and
// helpers for arguments and results.
#pragma once

#include "convert.h"

namespace ember::py {

// One init function per binding file: python/src/<topic>.cpp binds ops/<topic>.h.
void init_types(nb::module_& m);   // types.cpp: dtype, device, Generator
void init_tensor(nb::module_& m);  // tensor.cpp: the Tensor class
void init_elementwise(
    nb::module_& m);               // elementwise.cpp: elementwise ops, operators, in-place forms
void init_reduce(nb::module_& m);  // reduce.cpp: sum, mean, max, min, all, any, ...
void init_statistics(nb::module_& m);  // statistics.cpp: var, std, logsumexp, norms
void init_softmax(nb::module_& m);     // softmax.cpp: softmax, log_softmax
void init_view(nb::module_& m);        // view.cpp: views, copies, to() and the dtype casts
void init_indexing(nb::module_& m);    // indexing.cpp: gather, scatter, index_*, masks
void init_shape(nb::module_& m);       // shape.cpp: cat, split, flip, pad and the other shape ops
void init_sort(nb::module_& m);        // sort.cpp: sort, topk, median, unique
void init_scan(nb::module_& m);        // scan.cpp: cumsum, cumprod, cummax, cummin, logcumsumexp
void init_complex(nb::module_& m);     // complex.cpp: view_as_real, real, imag, conj, angle, ...
void init_fft(nb::module_& m);         // fft.cpp: ember._C._fft, the Fourier transforms
void init_creation(nb::module_& m);    // creation.cpp: factories and ember.tensor
void init_random(nb::module_& m);      // random.cpp: rand*, samplers, in-place samplers
void init_linalg(nb::module_& m);      // linalg.cpp: matmul, addmm, einsum, ...
void init_linalg_factor(nb::module_& m);  // linalg_factor.cpp: factorisations
// ember._C._LinAlgError (torch.linalg.LinAlgError), a RuntimeError, made by init_linalg_factor.
PyObject* linalg_error();
void init_autograd(nb::module_& m);      // autograd.cpp: grad mode, backward, custom functions
void init_interop(nb::module_& m);       // interop.cpp: NumPy and DLPack
void init_utils(nb::module_& m);         // utils.cpp: threads, memory, printing, registry
void init_nn_conv(nb::module_& m);       // nn_conv.cpp: convolution
void init_nn_pool(nb::module_& m);       // nn_pool.cpp: pooling
void init_nn_resample(nb::module_& m);   // nn_resample.cpp: interpolate, pixel_shuffle, unfold/fold
void init_nn_norm(nb::module_& m);       // nn_norm.cpp: normalisation
void init_nn_dropout(nb::module_& m);    // nn_dropout.cpp: dropout
void init_nn_loss(nb::module_& m);       // nn_loss.cpp: losses
void init_nn_embedding(nb::module_& m);  // nn_embedding.cpp: embedding, embedding_bag
void init_nn_rnn(nb::module_& m);        // nn_rnn.cpp: recurrent cells and sequences
void init_nn_attention(nb::module_& m);  // nn_attention.cpp: scaled_dot_product_attention
void init_io(nb::module_& m);            // io.cpp: safetensors files (ember.save / ember.load)
void init_optim(nb::module_& m);         // optim.cpp: fused optimizer updates (ember._C._optim)
void init_multiprocessing(nb::module_& m);  // multiprocessing.cpp: shared-memory tensors
void init_distributed(nb::module_& m);      // distributed.cpp: stores, process groups, Reducer

// ember._C._nn: the functions PyTorch has only in torch.nn.functional (ember/nn/functional/ wraps
// them); each nn_<topic>.cpp adds its own.
inline nb::module_ nn_submodule(nb::module_& m) {
  return m.def_submodule("_nn", "ember.nn.functional's C++ functions");
}
// An optional tensor argument as the C++ ops take it: None is an undefined Tensor.
inline Tensor or_undefined(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

// The nb::class_ of Tensor, for files that add methods to it.
nb::class_<Tensor>& tensor_class();

// Binds f as ember.<name>(input, ...) and as Tensor.<name>(...).
template <class F, class... Extra>
void def_both(nb::module_& m, const char* name, F f, const Extra&... extra) {
  m.def(name, f, nb::arg("input"), extra...);
  tensor_class().def(name, f, extra...);
}
void release_tensor_class();  // at the end of module initialisation

// The keyword-only options every factory takes, as PyTorch's (creation.cpp, random.cpp).
#define EMBER_OPTION_ARGS \
  nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false
#define EMBER_OPTION_PARAMS std::optional<DType> dt, std::optional<Device> dev, bool rg
inline TensorOptions options(std::optional<DType> dtype,
                             std::optional<Device> device,
                             bool requires_grad) {
  TensorOptions o;
  if (dtype.has_value()) o = o.dtype(dtype.value());
  if (device.has_value()) o = o.device(device.value());
  return o.requires_grad(requires_grad);
}

// A named tuple type with fields (values, indices), as torch.return_types.<name>; the module owns
// it as ember._C._<name>_type.
inline nb::handle named_pair_type(nb::module_& m, const char* name) {
  nb::object t = nb::module_::import_("collections").attr("namedtuple")(name, "values indices");
  m.attr(("_" + std::string(name) + "_type").c_str()) = t;
  return t;
}
// type(values, indices).
inline nb::object named_pair(nb::handle type, const std::pair<Tensor, Tensor>& p) {
  return type(wrap(p.first), wrap(p.second));
}
}  // namespace ember::py
