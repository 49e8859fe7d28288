#include "ember/autograd/node.h"

#include <algorithm>

#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"

namespace ember {
namespace {
thread_local uint64_t next_sequence_nr = 0;
}

Node::Node() : sequence_nr_(next_sequence_nr++) {}

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

SavedTensor::SavedTensor(const Tensor& t) : data_(t), version_(t.defined() ? t.version() : 0) {}

SavedTensor::SavedTensor(const Tensor& t, uint32_t output_nr)
    : version_(t.version()), output_nr_(output_nr), is_output_(true) {
  const TensorImpl* impl = t.impl();
  data_ = Tensor(make_ref<TensorImpl>(impl->storage(), impl->dtype(), impl->sizes(),
                                      impl->strides(), impl->storage_offset()));
}

Tensor SavedTensor::unpack(const Node& owner) const {
  if (!data_.defined()) return data_;
  if (data_.version() != version_) {
    EMBER_FAIL("[", owner.name(), "] one of the tensors saved for backward was modified by an ",
               "in-place operation: the ", is_output_ ? "output " : "input ", "(", data_.dtype(),
               " of shape ", data_.sizes(), ") is at version ", data_.version(),
               "; expected version ", version_,
               ". An in-place op (add_, mul_, x[...] = ..., etc.) changed it after it was used. "
               "Use an out-of-place op, or .clone() the tensor before changing it.");
  }
  if (is_output_ && GradMode::is_enabled()) {
    // create_graph: the saved output must stay differentiable, with its own grad_fn.
    Tensor attached(make_ref<TensorImpl>(data_.storage(), data_.dtype(), data_.sizes(),
                                         data_.strides(), data_.storage_offset()));
    AutogradMeta& meta = ensure_autograd_meta(attached);
    meta.grad_fn = std::const_pointer_cast<Node>(owner.shared_from_this());
    meta.output_nr = output_nr_;
    return attached;
  }
  return data_;
}

// ---- AutogradMeta --------------------------------------------------------------------------

AutogradMeta::~AutogradMeta() {
  if (retains_grad && grad_fn) {
    auto& r = grad_fn->retained;
    r.erase(std::remove_if(r.begin(), r.end(), [&](auto& p) { return p.second == owner; }),
            r.end());
  }
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
  for (const Tensor* t : ts) {
    if (t->defined() && t->requires_grad()) return true;
  }
  return false;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* meta = t.defined() ? autograd_meta(t) : nullptr;
  if (!meta) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (meta->requires_grad) return {grad_accumulator(t), 0};
  return {};
}

namespace {
template <class Inputs, class Outputs>
void set_history_impl(const std::shared_ptr<Node>& node,
                      const Inputs& inputs,
                      const Outputs& outputs) {
  auto& edges = node->mutable_next_edges();
  edges.reserve(inputs.size());
  for (const Tensor* in : inputs) edges.push_back(gradient_edge(*in));
  for (const Tensor* out : outputs) {
    const uint32_t nr = node->add_input_metadata(*out);
    AutogradMeta& meta = ensure_autograd_meta(*out);
    if (meta.retains_grad && meta.grad_fn && meta.grad_fn != node) {
      // An in-place op moved this tensor to a new node: its retained grad moves along.
      auto& r = meta.grad_fn->retained;
      r.erase(std::remove_if(r.begin(), r.end(), [&](auto& p) { return p.second == out->impl(); }),
              r.end());
      node->retained.emplace_back(nr, out->impl());
    }
    meta.grad_fn = node;
    meta.output_nr = nr;
    meta.requires_grad = false;
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

void check_inplace(const Tensor& self, const char* op) {
  if (!GradMode::is_enabled()) return;
  if (AutogradMeta* meta = autograd_meta(self); meta && !meta->grad_fn && meta->requires_grad) {
    EMBER_FAIL("[", op, "] a leaf tensor that requires grad (", self.dtype(), " of shape ",
               self.sizes(),
               ") is being used in an in-place operation. Wrap the update in "
               "`with ember.no_grad():` (as optimizers do), or work on a clone.");
  }
  if (self.is_view()) {
    const Tensor base = self.base();
    if (base.requires_grad()) {
      AutogradMeta* bmeta = autograd_meta(base);
      EMBER_CHECK(bmeta->grad_fn, "[", op,
                  "] a view of a leaf tensor that requires grad is "
                  "being used in an in-place operation. Wrap it in `with ember.no_grad():`.");
      EMBER_FAIL_KIND(ErrorKind::NotImplemented, "[", op, "] in-place operation on a view of a ",
                      "tensor that requires grad is not supported yet; use an out-of-place op "
                      "(e.g. ember.where or cat) instead");
    }
  }
}

}  // namespace ember
