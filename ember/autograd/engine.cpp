// The backward engine: single-threaded, dependency counting, later nodes first (sequence_nr),
// as PyTorch's engine behaves on one device (docs/design/autograd.md).
#include "ember/autograd/engine.h"

#include <atomic>
#include <queue>
#include <unordered_map>

#include "ember/autograd/grad_mode.h"
#include "ember/core/shape.h"
#include "ember/ops/ops.h"

namespace ember {

// Note [Engine state]
// Per-backward bookkeeping (dependency counts, gradient buffers) lives in each Node's `engine`
// field, stamped with the id of the backward call that wrote it, instead of in hash maps: it
// keeps a tiny backward to a few hundred nanoseconds. A consequence: two threads may not run
// backward through the same nodes at the same time (disjoint graphs are fine).

namespace {

std::atomic<uint64_t> next_task{1};

class GraphTask;
// The backward call running on this thread (queue_callback adds to it); null outside backward.
thread_local GraphTask* current_task = nullptr;

struct Capture {
  Node* node;
  uint32_t input_nr;
  size_t slot;  // index into the result
};

class GraphTask {
 public:
  GraphTask(bool keep_graph, bool create_graph)
      : id_(next_task.fetch_add(1)), keep_graph_(keep_graph), create_graph_(create_graph) {}

  // Finds every node reachable from the roots, counts each node's incoming edges, and marks the
  // nodes that lead to a target (all of them when there is no target).
  void discover(const std::vector<Edge>& roots, const std::vector<Node*>& targets) {
    struct Frame {
      Node* node;
      size_t next;
    };
    std::vector<Frame> stack;
    auto visit = [&](Node* n) {
      if (n->engine.task == id_) return false;
      n->engine = Node::EngineState{};
      n->engine.task = id_;
      n->engine.buffer.resize(n->num_inputs());
      nodes_.push_back(n);
      return true;
    };
    for (const Edge& e : roots) {
      if (visit(e.node.get())) stack.push_back({e.node.get(), 0});
      // Iterative post-order DFS: a node is finished after all its children.
      while (!stack.empty()) {
        Frame& f = stack.back();
        const auto& edges = f.node->next_edges();
        if (f.next < edges.size()) {
          const Edge& child = edges[f.next++];
          if (!child.valid()) continue;
          Node* c = child.node.get();
          const bool fresh = visit(c);
          c->engine.dependencies++;
          if (fresh) stack.push_back({c, 0});
          continue;
        }
        Node* n = f.node;
        stack.pop_back();
        bool needed = targets.empty();
        for (Node* t : targets) needed |= (t == n);
        for (const Edge& child : n->next_edges()) {
          if (child.valid() && child.node->engine.needed) needed = true;
        }
        n->engine.needed = needed;
      }
    }
  }

  // Adds `grad` into input `input_nr` of `node`; the buffer owns the sum.
  static void accumulate(Node* node, uint32_t input_nr, Tensor grad) {
    Tensor& slot = node->engine.buffer[input_nr];
    slot = slot.defined() ? add(slot, grad) : std::move(grad);
  }

  void run(const std::vector<Edge>& roots,
           const TensorList& root_grads,
           const std::vector<Capture>& captures,
           TensorList* captured,
           const std::unordered_map<Node*, bool>* run_targets) {
    for (size_t i = 0; i < roots.size(); ++i) {
      accumulate(roots[i].node.get(), roots[i].input_nr, root_grads[i]);
    }
    auto cmp = [](Node* a, Node* b) { return a->sequence_nr() < b->sequence_nr(); };
    std::priority_queue<Node*, std::vector<Node*>, decltype(cmp)> ready(cmp);
    for (const Edge& e : roots) {
      Node* n = e.node.get();
      if (n->engine.dependencies == 0 && !n->engine.queued) {
        n->engine.queued = true;
        ready.push(n);
      }
    }
    AutoGradMode grad_mode(create_graph_);
    struct Current {
      GraphTask* saved;
      explicit Current(GraphTask* t) : saved(current_task) { current_task = t; }
      ~Current() { current_task = saved; }
    } current(this);
    while (!ready.empty()) {
      Node* node = ready.top();
      ready.pop();
      TensorList grads = std::move(node->engine.buffer);
      run_pre_hooks(node, grads);
      for (const Capture& c : captures) {
        if (c.node == node) (*captured)[c.slot] = grads[c.input_nr];
      }
      // Only run what leads to a target; grad() never runs the AccumulateGrad of its inputs.
      bool execute = node->engine.needed;
      bool overridden = false;
      if (run_targets) {
        if (auto it = run_targets->find(node); it != run_targets->end()) {
          execute = it->second;
          overridden = true;
        }
      }
      if (!overridden && is_capture(node, captures)) {
        // Captured for an input of grad(): run it only if it leads to another input.
        execute = false;
        for (const Edge& e : node->next_edges()) execute |= e.valid() && e.node->engine.needed;
      }
      bool any = false;
      for (const Tensor& g : grads) any |= g.defined();
      TensorList outputs;
      if (execute && any) {
        materialize_missing(node, grads);
        outputs = node->apply(std::move(grads));
        EMBER_CHECK(outputs.size() == node->next_edges().size(), "[backward] function ",
                    node->name(), " returned an incorrect number of gradients (expected ",
                    node->next_edges().size(), ", got ", outputs.size(), ")");
        if (AnomalyMode::check_nan()) check_nan(*node, outputs);
      }
      if (!keep_graph_) node->release_variables();
      const auto& edges = node->next_edges();
      for (size_t i = 0; i < edges.size(); ++i) {
        if (!edges[i].valid()) continue;
        Node* next = edges[i].node.get();
        if (i < outputs.size() && outputs[i].defined()) {
          accumulate(
              next, edges[i].input_nr,
              fit_gradient(node, i, std::move(outputs[i]), next->input_meta(edges[i].input_nr)));
        }
        if (--next->engine.dependencies == 0 && next->engine.needed && !next->engine.queued) {
          next->engine.queued = true;
          ready.push(next);
        }
      }
    }
    clear_buffers();
    // Final callbacks, in the order they were queued; one may queue another.
    for (size_t i = 0; i < callbacks_.size(); ++i) {
      auto fn = std::move(callbacks_[i]);
      fn();
    }
    callbacks_.clear();
  }

  void queue_callback(std::function<void()> fn) { callbacks_.push_back(std::move(fn)); }

 private:
  // Drops the gradients still buffered (all of them when a node's backward threw).
  void clear_buffers() {
    for (Node* n : nodes_) n->engine.buffer.clear();
  }

 public:
  ~GraphTask() { clear_buffers(); }

 private:
  static bool is_capture(Node* node, const std::vector<Capture>& captures) {
    for (const Capture& c : captures)
      if (c.node == node) return true;
    return false;
  }

  // Anomaly detection: a NaN in a gradient the node returned fails here, with PyTorch's message
  // and, when the node was recorded under anomaly mode, where its forward op was called.
  static void check_nan(const Node& node, const TensorList& outputs) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor& g = outputs[i];
      if (!g.defined() || !is_differentiable(g.dtype())) continue;
      NoGradGuard no_grad;
      if (!any(isnan(g)).item<bool>()) continue;
      std::string where;
      if (node.forward_trace && !node.forward_trace->empty()) {
        where = "\nTraceback of forward call that caused the error:\n" + *node.forward_trace;
      }
      EMBER_FAIL("Function '", node.name(), "' returned nan values in its ", i, "th output.",
                 where);
    }
  }

  // Tensor hooks and retain_grad on the node's outputs, before it runs.
  static void run_pre_hooks(Node* node, TensorList& grads) {
    for (auto& hook : node->hooks) {
      Tensor& g = grads[hook.output_nr];
      if (!g.defined()) continue;
      Tensor replaced = hook.fn(g);
      if (replaced.defined()) g = check_hook_result(node, hook.output_nr, std::move(replaced));
    }
    if (!grads.empty() && grads[0].defined() && node->run_leaf_hooks(grads[0])) {
      check_hook_result(node, 0, grads[0]);
    }
    for (auto& [nr, impl] : node->retained) {
      if (!grads[nr].defined()) continue;
      AutogradMeta* meta = static_cast<AutogradMeta*>(impl->autograd_meta());
      // A copy: the engine's buffer (or the user's gradient) must not become .grad itself.
      meta->grad = meta->grad.defined() ? add(meta->grad, grads[nr]) : clone(grads[nr]);
    }
  }

  // A hook may replace a gradient, but not change what it is the gradient of.
  static Tensor check_hook_result(Node* node, size_t nr, Tensor g) {
    const TensorMeta& m = node->input_meta(nr);
    EMBER_CHECK(g.sizes() == IntArrayRef(m.shape),
                "[backward] a hook changed the size of the "
                "gradient of ",
                node->name(), " output ", nr, " from ", m.shape, " to ", g.sizes());
    EMBER_CHECK(g.dtype() == m.dtype, "[backward] a hook changed the dtype of the gradient of ",
                node->name(), " output ", nr, " from ", m.dtype, " to ", g.dtype());
    return g;
  }

  // Zeros for the floating outputs that received no gradient, so formulas see only tensors.
  static void materialize_missing(Node* node, TensorList& grads) {
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined()) continue;
      const TensorMeta& m = node->input_meta(i);
      if (is_differentiable(m.dtype))
        grads[i] = zeros(m.shape, TensorOptions(m.dtype).device(m.device));
    }
  }

  // Brings a gradient to the shape and dtype of the tensor it belongs to: sums away broadcast
  // dims and casts (mixed-dtype ops compute in the promoted dtype).
  static Tensor fit_gradient(Node* node, size_t index, Tensor g, const TensorMeta& meta) {
    if (g.sizes() != IntArrayRef(meta.shape)) {
      EMBER_CHECK(is_expandable_to(meta.shape, g.sizes()), "[backward] function ", node->name(),
                  " returned an invalid gradient at index ", index, ": got shape ", g.sizes(),
                  " but expected shape compatible with ", meta.shape);
      g = sum_to_size(g, meta.shape);
    }
    if (g.dtype() != meta.dtype) g = to_dtype(g, meta.dtype);
    return g;
  }

  uint64_t id_;
  bool keep_graph_, create_graph_;
  std::vector<Node*> nodes_;
  std::vector<std::function<void()>> callbacks_;
};

// The gradient edge of `t`, or an error saying why it has none.
Edge root_edge(const Tensor& t, size_t i, const char* op) {
  EMBER_CHECK(t.defined(), "[", op, "] element ", i, " of tensors is undefined");
  Edge e = gradient_edge(t);
  EMBER_CHECK(e.valid(), "[", op, "] element ", i,
              " of tensors does not require grad and does "
              "not have a grad_fn");
  return e;
}

TensorList root_grads(const TensorList& tensors, const TensorList& grads, const char* op) {
  EMBER_CHECK(grads.empty() || grads.size() == tensors.size(), "[", op, "] got ", tensors.size(),
              " tensors and ", grads.size(), " gradients");
  TensorList out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (grads.empty() || !grads[i].defined()) {
      EMBER_CHECK(t.numel() == 1, "[", op,
                  "] grad can be implicitly created only for scalar "
                  "outputs, but output ",
                  i, " has shape ", t.sizes(), "; pass a gradient");
      EMBER_CHECK(!is_complex(t.dtype()), "[", op,
                  "] grad can be implicitly created only for real scalar outputs, but output ", i,
                  " has dtype ", t.dtype(), "; pass a gradient");
      out.push_back(ones_like(t));
    } else {
      EMBER_CHECK(grads[i].sizes() == t.sizes(), "[", op, "] mismatch in shape: grad_output[", i,
                  "] has a shape of ", grads[i].sizes(), " and output[", i, "] has a shape of ",
                  t.sizes());
      out.push_back(grads[i]);
    }
  }
  return out;
}

}  // namespace

// ---- AccumulateGrad ------------------------------------------------------------------------

AccumulateGrad::AccumulateGrad(Tensor v) : variable(std::move(v)) { add_input_metadata(variable); }

bool AccumulateGrad::run_leaf_hooks(Tensor& grad) {
  AutogradMeta* meta = autograd_meta(variable);
  if (!meta || meta->leaf_hooks.empty()) return false;
  for (auto& [id, hook] : meta->leaf_hooks) {
    Tensor replaced = hook(grad);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return true;
}

namespace {
// PyTorch's gradient layout contract: a leaf's .grad has the leaf's strides when the leaf is
// dense (contiguous or a permutation such as channels-last), and is contiguous otherwise.
bool obeys_layout(const Tensor& g, const Tensor& leaf) {
  if (g.is_contiguous() && leaf.is_contiguous()) return true;
  if (leaf.is_non_overlapping_and_dense()) return g.strides() == leaf.strides();
  return g.is_contiguous();
}
}  // namespace

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor g = std::move(grads[0]);  // the engine ran the leaf's hooks already
  AutogradMeta& meta = ensure_autograd_meta(variable);
  if (!meta.grad.defined()) {
    if (GradMode::is_enabled()) {
      meta.grad = g;  // create_graph: keep the graph of the gradient
    } else if (g.impl()->use_count() == 1 && g.storage()->use_count() == 1 &&
               obeys_layout(g, variable)) {
      meta.grad = std::move(g);  // nobody else sees this buffer: take it
    } else {
      // The user or another tensor holds it, or it is laid out unlike the leaf: copy, in the
      // leaf's layout (its strides when it is dense, so a channels-last weight gets a
      // channels-last .grad and a transposed one a transposed .grad, as in PyTorch).
      Tensor copy = empty_like(variable, TensorOptions(g.dtype()).device(g.device()));
      meta.grad = copy_(copy, g);
    }
  } else if (GradMode::is_enabled()) {
    meta.grad = add(meta.grad, g);
  } else {
    add_(meta.grad, g);
  }
  // A copy of the list: a hook may register or remove hooks.
  const auto hooks = meta.post_accumulate_hooks;
  for (const auto& [id, hook] : hooks) hook(variable);
  return {};
}

int64_t register_post_accumulate_grad_hook(const Tensor& t,
                                           std::function<void(const Tensor&)> hook) {
  EMBER_CHECK(t.is_leaf(), "post accumulate grad hooks cannot be registered on non-leaf tensors");
  EMBER_CHECK(t.requires_grad(),
              "cannot register a hook on a tensor that doesn't require gradient");
  static std::atomic<int64_t> next_id{1};
  const int64_t id = next_id++;
  ensure_autograd_meta(t).post_accumulate_hooks.emplace_back(id, std::move(hook));
  return id;
}

void remove_post_accumulate_grad_hook(const Tensor& t, int64_t id) {
  if (AutogradMeta* meta = autograd_meta(t)) {
    std::erase_if(meta->post_accumulate_hooks, [&](const auto& h) { return h.first == id; });
  }
}

void queue_callback(std::function<void()> fn) {
  EMBER_CHECK(current_task != nullptr,
              "Final callbacks can only be installed during backward pass.");
  current_task->queue_callback(std::move(fn));
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& meta = ensure_autograd_meta(t);
  if (auto existing = meta.grad_accumulator.lock()) return existing;
  auto acc = std::make_shared<AccumulateGrad>(t);
  meta.grad_accumulator = acc;
  return acc;
}

// ---- entry points --------------------------------------------------------------------------

void backward(const TensorList& tensors,
              const TensorList& grad_tensors,
              std::optional<bool> retain_graph,
              bool create_graph,
              const TensorList& inputs) {
  std::vector<Edge> roots;
  for (size_t i = 0; i < tensors.size(); ++i) roots.push_back(root_edge(tensors[i], i, "backward"));
  TensorList grads = root_grads(tensors, grad_tensors, "backward");
  GraphTask task(retain_graph.value_or(create_graph), create_graph);
  if (inputs.empty()) {
    task.discover(roots, {});
    task.run(roots, grads, {}, nullptr, nullptr);
    return;
  }
  // backward(inputs=...): accumulate only into these tensors' .grad.
  std::vector<Node*> targets;
  std::vector<Capture> captures;
  TensorList captured(inputs.size());
  std::unordered_map<Node*, bool> run_targets;
  std::vector<Edge> input_edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.valid(), "[backward] input ", i, " of inputs= does not require grad");
    targets.push_back(e.node.get());
    if (inputs[i].is_leaf()) {
      run_targets[e.node.get()] = true;
    } else {
      captures.push_back({e.node.get(), e.input_nr, i});
    }
    input_edges.push_back(std::move(e));
  }
  task.discover(roots, targets);
  task.run(roots, grads, captures, &captured, &run_targets);
  for (const Capture& c : captures) {
    const Tensor& g = captured[c.slot];
    if (!g.defined()) continue;
    AutogradMeta& m = ensure_autograd_meta(inputs[c.slot]);
    m.grad = m.grad.defined() ? add(m.grad, g) : clone(g);
  }
}

TensorList grad(const TensorList& outputs,
                const TensorList& inputs,
                const TensorList& grad_outputs,
                std::optional<bool> retain_graph,
                bool create_graph,
                bool allow_unused) {
  std::vector<Edge> roots;
  for (size_t i = 0; i < outputs.size(); ++i) roots.push_back(root_edge(outputs[i], i, "grad"));
  TensorList grads = root_grads(outputs, grad_outputs, "grad");
  std::vector<Node*> targets;
  std::vector<Capture> captures;
  std::unordered_map<Node*, bool> run_targets;
  std::vector<Edge> input_edges;  // keeps accumulators alive during the call
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined(), "[grad] input ", i, " is undefined");
    Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.valid(), "[grad] one of the differentiated tensors (input ", i,
                ") does not require grad");
    targets.push_back(e.node.get());
    captures.push_back({e.node.get(), e.input_nr, i});
    // The input's own AccumulateGrad must not write .grad.
    if (inputs[i].is_leaf()) run_targets[e.node.get()] = false;
    input_edges.push_back(std::move(e));
  }
  TensorList result(inputs.size());
  GraphTask task(retain_graph.value_or(create_graph), create_graph);
  task.discover(roots, targets);
  task.run(roots, grads, captures, &result, &run_targets);
  for (size_t i = 0; i < result.size(); ++i) {
    EMBER_CHECK(result[i].defined() || allow_unused,
                "[grad] one of the differentiated tensors "
                "(input ",
                i,
                ") appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior.");
  }
  return result;
}

}  // namespace ember
