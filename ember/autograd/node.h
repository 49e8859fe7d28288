// The backward graph: Node, Edge, saved tensors and per-tensor autograd metadata
// (docs/design/autograd.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

using TensorList = std::vector<Tensor>;

// Points at input `input_nr` of `node`: where a gradient goes next.
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
  bool valid() const { return bool(node); }
};

// Shape, dtype and device of one forward output: what its gradient must have.
struct TensorMeta {
  DimVector shape;
  DType dtype = kFloat32;
  Device device;
};

// A backward function. Its "inputs" are the gradients of the forward op's outputs; its
// "outputs" are the gradients of the forward op's inputs, sent along next_edges().
struct Node : std::enable_shared_from_this<Node> {
  Node();
  // Releases the next nodes through release_node (Note [Iterative graph release]).
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // "MulBackward0": the name PyTorch gives the same function, so reprs read alike.
  virtual std::string name() const = 0;
  // grads[i] is the gradient of forward output i (zeros are filled in for differentiable
  // outputs that got none). Returns one gradient per next edge, undefined where there is none.
  virtual TensorList apply(TensorList&& grads) = 0;
  // Drops saved tensors once backward ran without retain_graph.
  virtual void release_variables() {}
  // Where the forward op was called, kept only while anomaly detection is on (AnomalyMode).
  std::unique_ptr<std::string> forward_trace;
  // Hooks of the leaf tensor this node accumulates into (AccumulateGrad), run by the engine
  // before the node, also when autograd.grad() captures the gradient instead of running it.
  // Returns whether any hook ran.
  virtual bool run_leaf_hooks(Tensor& grad) { return false; }

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  std::vector<Edge>& mutable_next_edges() { return next_edges_; }
  size_t num_inputs() const { return input_meta_.size(); }
  const TensorMeta& input_meta(size_t i) const { return input_meta_[i]; }
  // Records the metadata of a new forward output and returns its index.
  uint32_t add_input_metadata(const Tensor& t);
  // Later nodes run first in backward, as in PyTorch.
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks on the gradient of forward output `output_nr` (tensor.register_hook on non-leaves).
  struct Hook {
    int64_t id;
    uint32_t output_nr;
    TensorHook fn;
  };
  std::vector<Hook> hooks;
  // Non-leaf tensors that called retain_grad(), by output index. Raw pointers: the tensor's
  // AutogradMeta removes its entry when it dies (it holds this node alive until then).
  std::vector<std::pair<uint32_t, TensorImpl*>> retained;

  // Scratch space of the engine for the backward pass running now (Note [Engine state]).
  struct EngineState {
    uint64_t task = 0;  // which backward call these fields belong to
    int32_t dependencies = 0;
    bool needed = false;  // lies on a path to a requested input
    bool queued = false;
    TensorList buffer;  // gradients summed per input
  } engine;

 protected:
  std::vector<Edge> next_edges_;
  std::vector<TensorMeta> input_meta_;
  uint64_t sequence_nr_;
};

// A tensor kept for backward, checked against in-place changes (Note [Version counter]).
// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks): while a pair is pushed on this
// thread, a tensor an op saves for backward is handed to `pack` and what pack returns is kept
// instead; backward gets a tensor back from `unpack`. Used to offload or recompute activations.
struct SavedTensorHooks {
  std::function<std::shared_ptr<void>(const Tensor&)> pack;
  std::function<Tensor(const std::shared_ptr<void>&)> unpack;
};
void push_saved_tensor_hooks(SavedTensorHooks hooks);
void pop_saved_tensor_hooks();

class SavedTensor {
 public:
  SavedTensor() = default;
  // An input of the op: kept as it is.
  explicit SavedTensor(const Tensor& t);
  // Output `output_nr` of the op that saves it: kept as an alias without autograd metadata,
  // because the output holds this node, and holding the output here would make a cycle.
  SavedTensor(const Tensor& t, uint32_t output_nr);

  // The saved tensor. `owner` is the node that saved it; for a saved output in create_graph
  // mode, the result is re-attached to the graph with `owner` as its grad_fn.
  Tensor unpack(const Node& owner) const;
  bool defined() const { return data_.defined() || packed_ != nullptr; }

 private:
  Tensor data_;
  // With saved-tensor hooks: what pack returned, and the hooks to unpack it (data_ is empty).
  std::shared_ptr<void> packed_;
  std::shared_ptr<const SavedTensorHooks> hooks_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
};

// Drops a reference to a node without recursion: a graph of a million nodes (a long loop of ops)
// is freed in a loop, not by a million nested destructors that would overflow the stack.
void release_node(std::shared_ptr<Node>&& node);

// Autograd state of one tensor (null in TensorImpl for tensors that never needed any).
struct AutogradMeta final : AutogradMetaBase {
  ~AutogradMeta() override;

  Tensor grad;
  std::shared_ptr<Node> grad_fn;         // null for leaves
  std::weak_ptr<Node> grad_accumulator;  // leaves: the AccumulateGrad node, while a graph holds it
  uint32_t output_nr = 0;                // which output of grad_fn this tensor is
  bool requires_grad = false;            // leaves only; non-leaves require grad via grad_fn
  bool retains_grad = false;
  // Note [Views and in-place history]: the number of recorded in-place ops on this tensor.
  uint32_t history = 0;
  TensorImpl* owner = nullptr;                             // the tensor this metadata belongs to
  std::vector<std::pair<int64_t, TensorHook>> leaf_hooks;  // leaves: run by the engine
  // Leaves: run with the leaf after its .grad was accumulated (register_post_accumulate_grad_hook).
  std::vector<std::pair<int64_t, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  // Hooks registered while the tensor was a non-leaf, by id, and the node that holds each (an
  // in-place op may have given the tensor another node since).
  std::vector<std::pair<int64_t, std::weak_ptr<Node>>> hook_nodes;
};

AutogradMeta* autograd_meta(const Tensor& t);  // null if the tensor has none
AutogradMeta& ensure_autograd_meta(const Tensor& t);

// True when grad mode is on and any defined tensor among `ts` requires grad.
bool any_requires_grad(std::initializer_list<const Tensor*> ts);
inline bool any_requires_grad(const Tensor& a) { return any_requires_grad({&a}); }
inline bool any_requires_grad(const Tensor& a, const Tensor& b) {
  return any_requires_grad({&a, &b});
}

// Where the gradient of `t` goes: its grad_fn, its AccumulateGrad, or nowhere.
Edge gradient_edge(const Tensor& t);

// Makes `node` the grad_fn of `t` as its output `output_nr` (added with add_input_metadata):
// what set_history does per output, and what an in-place op does to the tensor it changed.
void attach_output(const std::shared_ptr<Node>& node, const Tensor& t, uint32_t output_nr);

// Note [Views and in-place history]: a recorded in-place op on `t` calls mark_inplace(t); views
// remember inplace_history of their base when made, and check_fresh_view refuses a view whose
// base has changed history since.
void mark_inplace(const Tensor& t);
uint32_t inplace_history(const Tensor& t);
void check_fresh_view(const Tensor& view);

// Makes `node` the grad_fn of `outputs` (in order) and sets its next edges from `inputs`.
void set_history(const std::shared_ptr<Node>& node,
                 std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs);
void set_history(const std::shared_ptr<Node>& node,
                 const std::vector<const Tensor*>& inputs,
                 const std::vector<const Tensor*>& outputs);

// Checks before an in-place op on `self` under grad mode: a leaf that requires grad (or a view of
// one) may not change, nor may a view made under no_grad from a base that requires grad (as in
// PyTorch). A recorded op on any other view rebases its base's history (Note [In-place ops on
// views] in ops/view.cpp). `recording` (self or another input requires grad) is not needed by
// these checks; `op` names the op.
void check_inplace(const Tensor& self, const char* op, bool recording);

// A node whose backward is a lambda `TensorList(TensorList& grads, Node& self)`, written next to
// the forward it belongs to (ops/*.cpp). The lambda and what it captured (saved tensors) are
// dropped after a backward without retain_graph.
template <class F>
class FunctionNode final : public Node {
 public:
  FunctionNode(const char* name, F fn) : name_(name), fn_(std::move(fn)) {}
  std::string name() const override { return name_; }
  TensorList apply(TensorList&& grads) override;
  void release_variables() override { fn_.reset(); }

 private:
  const char* name_;
  std::optional<F> fn_;
};

[[noreturn]] void throw_released(const std::string& name);

template <class F>
TensorList FunctionNode<F>::apply(TensorList&& grads) {
  if (!fn_) throw_released(name_);
  return (*fn_)(grads, *this);
}

// Records the backward of an op: `record("MulBackward0", {&a, &b}, {&out}, lambda)`.
template <class F>
std::shared_ptr<Node> record(const char* name,
                             std::initializer_list<const Tensor*> inputs,
                             std::initializer_list<const Tensor*> outputs,
                             F fn) {
  auto node = std::make_shared<FunctionNode<F>>(name, std::move(fn));
  set_history(node, inputs, outputs);
  return node;
}

}  // namespace ember
