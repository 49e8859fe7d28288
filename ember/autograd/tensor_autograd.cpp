// Tensor's autograd methods.
#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/view.h"

namespace ember {
namespace {
std::atomic<int64_t> next_hook_id{0};
const std::shared_ptr<Node> kNoNode;
}  // namespace

bool Tensor::requires_grad() const {
  const AutogradMeta* m = autograd_meta(*this);
  return m && (m->requires_grad || m->grad_fn);
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  AutogradMeta* m = autograd_meta(*this);
  if (m && m->grad_fn) {
    EMBER_CHECK(requires_grad,
                "[requires_grad_] you can only change requires_grad flags of leaf "
                "tensors. If you want to use a computed tensor in a subgraph that doesn't require "
                "differentiation use detached = tensor.detach().");
    return *this;
  }
  if (requires_grad) {
    EMBER_CHECK(is_differentiable(dtype()),
                "[requires_grad_] only Tensors of floating point and complex dtype can "
                "require gradients, got ",
                dtype());
    ensure_autograd_meta(*this).requires_grad = true;
  } else if (m) {
    m->requires_grad = false;
  }
  return *this;
}

Tensor Tensor::grad() const {
  const AutogradMeta* m = autograd_meta(*this);
  return m ? m->grad : Tensor();
}

void Tensor::set_grad(const Tensor& grad) const {
  if (grad.defined()) {
    EMBER_CHECK(grad.sizes() == sizes(), "[grad] assigned grad has shape ", grad.sizes(),
                " but the tensor has shape ", sizes());
    EMBER_CHECK(grad.dtype() == dtype(), "[grad] assigned grad has dtype ", grad.dtype(),
                " but the tensor has dtype ", dtype());
  }
  ensure_autograd_meta(*this).grad = grad;
}

const std::shared_ptr<Node>& Tensor::grad_fn() const {
  const AutogradMeta* m = autograd_meta(*this);
  return m ? m->grad_fn : kNoNode;
}

bool Tensor::is_leaf() const { return !grad_fn(); }

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(),
              "[retain_grad] can't retain_grad on a tensor that has "
              "requires_grad=False");
  AutogradMeta& m = ensure_autograd_meta(*this);
  if (!m.grad_fn || m.retains_grad) return;  // leaves keep their grad anyway
  m.retains_grad = true;
  m.grad_fn->retained.emplace_back(m.output_nr, impl());
}

bool Tensor::retains_grad() const {
  const AutogradMeta* m = autograd_meta(*this);
  return m && m->retains_grad;
}

int64_t Tensor::output_nr() const {
  const AutogradMeta* m = autograd_meta(*this);
  return m ? m->output_nr : 0;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  ember::backward({*this}, gradient.defined() ? TensorList{gradient} : TensorList{},
                  retain_graph || create_graph, create_graph);
}

int64_t Tensor::register_hook(TensorHook hook) const {
  EMBER_CHECK(requires_grad(),
              "[register_hook] cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = ensure_autograd_meta(*this);
  const int64_t id = next_hook_id++;
  if (m.grad_fn) {
    m.grad_fn->hooks.push_back({id, m.output_nr, std::move(hook)});
    m.hook_nodes.emplace_back(id, m.grad_fn);
  } else {
    m.leaf_hooks.emplace_back(id, std::move(hook));
  }
  return id;
}

void Tensor::remove_hook(int64_t handle) const {
  AutogradMeta* m = autograd_meta(*this);
  if (!m) return;
  std::erase_if(m->leaf_hooks, [&](auto& h) { return h.first == handle; });
  for (auto& [id, node] : m->hook_nodes) {
    if (id != handle) continue;
    if (auto n = node.lock()) std::erase_if(n->hooks, [&](auto& h) { return h.id == handle; });
  }
  std::erase_if(m->hook_nodes, [&](auto& p) { return p.first == handle; });
}

Tensor Tensor::detach() const { return ember::detach(*this); }

Tensor& Tensor::detach_() {
  if (AutogradMeta* m = autograd_meta(*this)) {
    EMBER_CHECK(!is_view(), "[detach_] can't detach views in-place. Use detach() instead.");
    if (m->retains_grad && m->grad_fn) {
      // The node must not keep a pointer to this tensor once they part.
      auto& r = m->grad_fn->retained;
      std::erase_if(r, [&](auto& p) { return p.second == impl(); });
      m->retains_grad = false;
    }
    release_node(std::move(m->grad_fn));
    m->requires_grad = false;
    m->output_nr = 0;
  }
  return *this;
}

}  // namespace ember
