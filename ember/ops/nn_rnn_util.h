// Helpers shared by ops/nn_rnn.cpp and ops/nn_attention.cpp (not part of the public API).
#pragma once

#include <memory>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_rnn.h"
#include "ember/ops/creation.h"
#include "ember/ops/view.h"

namespace ember {

// The dtypes the recurrent and attention kernels compute in.
inline constexpr DTypeSet kRnnTypes = DTypeSet(kFloat32) | kFloat64;

namespace rnn_detail {

inline const RnnKernels& rnn_kernels(const Tensor& t, const char* name) {
  return kernels_of(kernels(t.device()).nn_rnn, t.device(), name);
}

inline void check_floating(const Tensor& t, const char* name) {
  EMBER_CHECK_TYPE(kRnnTypes.contains(t.dtype()), "[", name, "] not implemented for dtype ",
                   t.dtype(), " (supported: float32, float64)");
}

// Every tensor argument has the input's dtype and device (PyTorch raises RuntimeError too).
inline void check_like(const Tensor& t, const Tensor& input, const char* name) {
  EMBER_CHECK(t.dtype() == input.dtype(), "[", name,
              "] expected all tensors to have the input's dtype ", input.dtype(), ", got ",
              t.dtype());
  EMBER_CHECK(t.device() == input.device(), "[", name,
              "] expected all tensors on the input's device ", input.device(), ", got ",
              t.device());
}

// t itself when its last dim has unit stride (what the row kernels need), else a contiguous copy.
inline Tensor unit_rows(const Tensor& t) {
  if (!t.defined() || t.dim() == 0 || t.size(-1) <= 1 || t.stride(-1) == 1) return t;
  return t.contiguous();
}

// A 2-d matrix a library product accepts: unit stride in one of its dims.
inline Tensor gemm_operand(const Tensor& t) {
  if (t.stride(0) == 1 || t.stride(1) == 1 || t.size(0) <= 1 || t.size(1) <= 1) return t;
  return t.contiguous();
}

// Grad mode is on and a defined tensor among ts requires grad.
bool any_requires_grad(const std::vector<const Tensor*>& ts);

// record(...) for lists of inputs and outputs known only at run time.
template <class F>
std::shared_ptr<Node> record_node(const char* name,
                                  const std::vector<const Tensor*>& inputs,
                                  const std::vector<const Tensor*>& outputs,
                                  F fn) {
  auto node = std::make_shared<FunctionNode<F>>(name, std::move(fn));
  set_history(node, inputs, outputs);
  return node;
}

// For gradients computed by kernels under create_graph: they get a node whose backward raises,
// so a second derivative fails loudly instead of being silently zero. `sources` are what the
// gradients depend on (incoming gradients, saved inputs).
void forbid_double_backward(const char* name,
                            std::vector<Tensor>& results,
                            const std::vector<Tensor>& sources);

}  // namespace rnn_detail
}  // namespace ember
