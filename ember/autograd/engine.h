// Running backward: ember::backward (loss.backward()) and ember::grad (torch.autograd.grad).
#pragma once

#include <optional>

#include "ember/autograd/node.h"

namespace ember {

// Accumulates the gradients of `tensors` (seeded with `grad_tensors`, which may be omitted for
// one-element tensors) into the .grad of the leaves they depend on. With `inputs`, only those
// tensors' .grad is updated. `retain_graph` defaults to `create_graph`.
void backward(const TensorList& tensors,
              const TensorList& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt,
              bool create_graph = false,
              const TensorList& inputs = {});

// Returns d(outputs)/d(inputs) weighted by `grad_outputs`, without touching any .grad.
// An input that no output depends on gives an error, or an undefined tensor with allow_unused.
TensorList grad(const TensorList& outputs,
                const TensorList& inputs,
                const TensorList& grad_outputs = {},
                std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false,
                bool allow_unused = false);

// A hook run with leaf `t` each time backward has accumulated into its .grad (PyTorch's
// register_post_accumulate_grad_hook, e.g. for an optimizer step per parameter inside
// backward). Returns an id for remove_post_accumulate_grad_hook.
int64_t register_post_accumulate_grad_hook(const Tensor& t,
                                           std::function<void(const Tensor&)> hook);
void remove_post_accumulate_grad_hook(const Tensor& t, int64_t id);

// Runs `fn` once the backward (or grad) call running on this thread has finished all its nodes,
// in the order callbacks were queued (PyTorch's Variable._execution_engine.queue_callback;
// DistributedDataParallel waits for its gradient reductions this way). An exception from `fn`
// surfaces from backward(). Outside backward it is an error.
void queue_callback(std::function<void()> fn);

// The node that accumulates into leaf `t`'s .grad (created on first use; the graph owns it).
std::shared_ptr<Node> grad_accumulator(const Tensor& t);

// Adds the gradient `grad` into leaf `variable`'s .grad, after its hooks (AccumulateGrad).
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  TensorList apply(TensorList&& grads) override;
  bool run_leaf_hooks(Tensor& grad) override;
  Tensor variable;
};

}  // namespace ember
