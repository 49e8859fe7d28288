#include "ember/autograd/node.h"

#include <algorithm>

#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"

namespace ember {
namespace {
thread_local uint64_t next_sequence_nr = 0;
}

Node::Node() : sequence_nr_(next_sequence_nr++) {}

// Note [Iterative graph release]
// Freeing a graph frees each node's next nodes (and, through saved tensors, their grad_fns):
// done by plain destructors, a chain of N nodes nests N destructor calls. Every owner of a node
// (edges, AutogradMeta::grad_fn) hands it to release_node instead, which keeps the nodes whose
// last reference goes in a thread-local list and destroys them one by one at the outermost call.
namespace {
thread_local std::vector<std::shared_ptr<Node>> pending_release;
thread_local bool releasing = false;
}  // namespace

void release_node(std::shared_ptr<Node>&& node) {
  if (!node) return;
  if (node.use_count() > 1) {  // someone else keeps it: dropping ours destroys nothing
    node.reset();
    return;
  }
  pending_release.push_back(std::move(node));
  if (releasing) return;  // an outer call drains the list
  releasing = true;
  while (!pending_release.empty()) {
    std::shared_ptr<Node> last = std::move(pending_release.back());
    pending_release.pop_back();
    last.reset();  // its destructor may append more nodes
  }
  releasing = false;
}

Node::~Node() {
  for (Edge& e : next_edges_) release_node(std::move(e.node));
}

uint32_t Node::add_input_metadata(const Tensor& t) {
  input_meta_.push_back(
      TensorMeta{DimVector(t.sizes().data(), t.sizes().size()), t.dtype(), t.device()});
  return uint32_t(input_meta_.size() - 1);
}

void throw_released(const std::string& name) {
  EMBER_FAIL("[backward] trying to backward through the graph a second time (through ", name,
             "), but its saved tensors were already freed. Pass retain_graph=True to the first "
             "backward() or autograd.grad() call if you need to backward through it again.");
}

// ---- SavedTensor ---------------------------------------------------------------------------

namespace {
thread_local std::vector<std::shared_ptr<const SavedTensorHooks>> saved_tensor_hooks;

// A saved output as it leaves unpack: under grad mode (create_graph), an alias whose grad_fn is
// `owner`, so that it stays differentiable.
Tensor reattached(const Tensor& value, const Node& owner, uint32_t output_nr) {
  if (!GradMode::is_enabled()) return value;
  Tensor attached(make_ref<TensorImpl>(value.storage(), value.dtype(), value.sizes(),
                                       value.strides(), value.storage_offset()));
  AutogradMeta& meta = ensure_autograd_meta(attached);
  meta.grad_fn = std::const_pointer_cast<Node>(owner.shared_from_this());
  meta.output_nr = output_nr;
  return attached;
}
}  // namespace

void push_saved_tensor_hooks(SavedTensorHooks hooks) {
  saved_tensor_hooks.push_back(std::make_shared<const SavedTensorHooks>(std::move(hooks)));
}

void pop_saved_tensor_hooks() {
  EMBER_CHECK(!saved_tensor_hooks.empty(), "[saved_tensors_hooks] no hooks to pop");
  saved_tensor_hooks.pop_back();
}

SavedTensor::SavedTensor(const Tensor& t) : data_(t), version_(t.defined() ? t.version() : 0) {
  if (t.defined() && !saved_tensor_hooks.empty()) {
    hooks_ = saved_tensor_hooks.back();
    data_ = Tensor();
    packed_ = hooks_->pack(t);
  }
}

SavedTensor::SavedTensor(const Tensor& t, uint32_t output_nr)
    : version_(t.version()), output_nr_(output_nr), is_output_(true) {
  const TensorImpl* impl = t.impl();
  data_ = Tensor(make_ref<TensorImpl>(impl->storage(), impl->dtype(), impl->sizes(),
                                      impl->strides(), impl->storage_offset()));
  if (!saved_tensor_hooks.empty()) {
    // The hook gets the alias (no autograd metadata): the output itself holds this node.
    hooks_ = saved_tensor_hooks.back();
    packed_ = hooks_->pack(data_);
    data_ = Tensor();
  }
}

Tensor SavedTensor::unpack(const Node& owner) const {
  if (packed_) {
    // The hooks own the value now: no version check, as in PyTorch.
    Tensor value = hooks_->unpack(packed_);
    return is_output_ && value.defined() ? reattached(value, owner, output_nr_) : value;
  }
  if (!data_.defined()) return data_;
  if (data_.version() != version_) {
    EMBER_FAIL("[", owner.name(), "] one of the tensors saved for backward was modified by an ",
               "in-place operation: the ", is_output_ ? "output " : "input ", "(", data_.dtype(),
               " of shape ", data_.sizes(), ") is at version ", data_.version(),
               "; expected version ", version_,
               ". An in-place op (add_, mul_, x[...] = ..., etc.) changed it after it was used. "
               "Use an out-of-place op, or .clone() the tensor before changing it.");
  }
  return is_output_ ? reattached(data_, owner, output_nr_) : data_;
}

// ---- AutogradMeta --------------------------------------------------------------------------

AutogradMeta::~AutogradMeta() {
  if (retains_grad && grad_fn) {
    auto& r = grad_fn->retained;
    r.erase(std::remove_if(r.begin(), r.end(), [&](auto& p) { return p.second == owner; }),
            r.end());
  }
  release_node(std::move(grad_fn));
}

AutogradMeta* autograd_meta(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.impl()->autograd_meta());
}

AutogradMeta& ensure_autograd_meta(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (!impl->autograd_meta()) {
    auto meta = std::make_unique<AutogradMeta>();
    meta->owner = impl;
    impl->set_autograd_meta(std::move(meta));
  }
  return *static_cast<AutogradMeta*>(impl->autograd_meta());
}

bool any_requires_grad(std::initializer_list<const Tensor*> ts) {
  if (!GradMode::is_enabled()) return false;
  bool any = false;
  for (const Tensor* t : ts) {
    if (!t->defined()) continue;
    if (t->is_view()) check_fresh_view(*t);
    any |= t->requires_grad();
  }
  return any;
}

Edge gradient_edge(const Tensor& t) {
  if (t.defined() && t.is_view()) check_fresh_view(t);
  AutogradMeta* meta = t.defined() ? autograd_meta(t) : nullptr;
  if (!meta) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (meta->requires_grad) return {grad_accumulator(t), 0};
  return {};
}

// Note [Views and in-place history]
// A recorded in-place op gives the tensor it changed a new history (a new grad_fn, or one at all
// for a tensor that did not require grad). A view made before the op looks at the new values but
// carries the old history: its gradient would be wrong. PyTorch regenerates such a view's
// grad_fn; ember refuses to use it in an op under grad mode (check_fresh_view, called by
// any_requires_grad and gradient_edge), which is exact but stricter. Each tensor counts its
// recorded in-place ops (AutogradMeta::history) and each view remembers its base's count.
void mark_inplace(const Tensor& t) { ++ensure_autograd_meta(t).history; }

uint32_t inplace_history(const Tensor& t) {
  const AutogradMeta* meta = autograd_meta(t);
  return meta ? meta->history : 0;
}

void check_fresh_view(const Tensor& view) {
  const Ref<TensorImpl>& base = view.impl()->view_base();
  if (!base) return;
  EMBER_CHECK_KIND(ErrorKind::NotImplemented,
                   inplace_history(Tensor(base)) == view.impl()->view_base_history(),
                   "[autograd] this view (", view.dtype(), " of shape ", view.sizes(),
                   ") was taken from a tensor that a recorded in-place op changed afterwards, so "
                   "its history is stale and its gradient would be wrong. Take the view again "
                   "after the in-place op (Note [Views and in-place history]).");
}

void attach_output(const std::shared_ptr<Node>& node, const Tensor& t, uint32_t output_nr) {
  AutogradMeta& meta = ensure_autograd_meta(t);
  if (meta.retains_grad && meta.grad_fn && meta.grad_fn != node) {
    // An in-place op: the tensor's retained grad moves to the new node with it.
    auto& r = meta.grad_fn->retained;
    r.erase(std::remove_if(r.begin(), r.end(), [&](auto& p) { return p.second == t.impl(); }),
            r.end());
    node->retained.emplace_back(output_nr, t.impl());
  }
  meta.grad_fn = node;
  meta.output_nr = output_nr;
  meta.requires_grad = false;
}

namespace {
template <class Inputs, class Outputs>
void set_history_impl(const std::shared_ptr<Node>& node,
                      const Inputs& inputs,
                      const Outputs& outputs) {
  if (AnomalyMode::is_enabled()) {
    node->forward_trace = std::make_unique<std::string>(AnomalyMode::current_trace());
  }
  auto& edges = node->mutable_next_edges();
  edges.reserve(inputs.size());
  for (const Tensor* in : inputs) edges.push_back(gradient_edge(*in));
  for (const Tensor* out : outputs) {
    const uint32_t nr = node->add_input_metadata(*out);
    // Non-differentiable outputs (indices, masks) take no part in the graph.
    if (is_differentiable(out->dtype())) attach_output(node, *out, nr);
  }
}
}  // namespace

void set_history(const std::shared_ptr<Node>& node,
                 std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs) {
  set_history_impl(node, inputs, outputs);
}

void set_history(const std::shared_ptr<Node>& node,
                 const std::vector<const Tensor*>& inputs,
                 const std::vector<const Tensor*>& outputs) {
  set_history_impl(node, inputs, outputs);
}

void check_inplace(const Tensor& self, const char* op, bool recording) {
  if (!GradMode::is_enabled()) return;
  if (AutogradMeta* meta = autograd_meta(self); meta && !meta->grad_fn && meta->requires_grad) {
    EMBER_FAIL("[", op, "] a leaf tensor that requires grad (", self.dtype(), " of shape ",
               self.sizes(),
               ") is being used in an in-place operation. Wrap the update in "
               "`with ember.no_grad():` (as optimizers do), or work on a clone.");
  }
  if (!self.is_view()) return;
  const Tensor base = self.base();
  if (AutogradMeta* bmeta = autograd_meta(base); bmeta && !bmeta->grad_fn && bmeta->requires_grad) {
    EMBER_FAIL("[", op,
               "] a view of a leaf tensor that requires grad is being used in an "
               "in-place operation. Wrap it in `with ember.no_grad():`.");
  }
  // A recorded op rebases the base's history (Note [In-place ops on views] in ops/view.cpp),
  // which needs the view's own history: a view taken under no_grad from a base that requires
  // grad has none, and PyTorch forbids this case.
  EMBER_CHECK(!base.requires_grad() || self.requires_grad(), "[", op,
              "] a view was created in no_grad mode and is being modified inplace with "
              "grad mode enabled. Given that this use case is ambiguous and error-prone, it is "
              "forbidden. You can clarify your code by moving both the view and the inplace "
              "either both inside the no_grad block (if you don't want the inplace to be "
              "tracked) or both outside (if you want the inplace to be tracked).");
  (void)recording;
}

}  // namespace ember
