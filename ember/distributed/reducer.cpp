// The bucketed gradient all-reduce of DistributedDataParallel (Note [Bucketed gradient reduction]
// in reducer.h).
#include "ember/distributed/reducer.h"

#include <map>
#include <unordered_map>

#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/ops/ops.h"

namespace ember::distributed {

struct Reducer::State : std::enable_shared_from_this<Reducer::State> {
  struct Bucket {
    Tensor flat;
    std::vector<size_t> params;
    size_t pending = 0;
    std::shared_ptr<Work> work;
  };

  std::vector<Tensor> params;
  std::shared_ptr<ProcessGroup> group;
  ReducerOptions options;
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of;  // parameter -> bucket
  std::vector<Tensor> views;      // parameter -> its view of the bucket
  std::vector<int64_t> hook_ids;
  std::unordered_map<const void*, size_t> index_of;  // TensorImpl -> parameter
  std::vector<uint8_t> marked;                       // got its gradient this backward
  Tensor locally_used;                               // int32 per parameter (find_unused)
  bool sync = true;
  bool armed = false;            // counts reset for this backward
  bool callback_queued = false;  // finalize() will run at the end of this backward
  size_t next_launch = 0;        // buckets start in index order

  void build_buckets() {
    // Reverse order, one open bucket per dtype; the first bucket of each dtype is small.
    std::map<DType, size_t> open;  // dtype -> index into buckets
    std::map<DType, size_t> bytes;
    std::map<DType, bool> had_first;
    bucket_of.assign(params.size(), 0);
    for (size_t k = params.size(); k-- > 0;) {
      const Tensor& p = params[k];
      const DType dt = p.dtype();
      if (!open.count(dt)) {
        open[dt] = buckets.size();
        buckets.emplace_back();
        bytes[dt] = 0;
      }
      Bucket& b = buckets[open[dt]];
      b.params.push_back(k);
      bucket_of[k] = open[dt];
      bytes[dt] += p.nbytes();
      const size_t cap = had_first[dt] ? options.bucket_cap_bytes : options.first_bucket_bytes;
      if (bytes[dt] >= cap) {
        had_first[dt] = true;
        open.erase(dt);
      }
    }
    views.assign(params.size(), Tensor());
    for (auto& b : buckets) {
      int64_t total = 0;
      for (size_t k : b.params) total += params[k].numel();
      b.flat = zeros({total}, TensorOptions(params[b.params[0]].dtype()));
      int64_t offset = 0;
      for (size_t k : b.params) {
        const Tensor& p = params[k];
        views[k] = b.flat.narrow(0, offset, p.numel()).view(p.sizes());
        offset += p.numel();
      }
    }
  }

  void arm() {
    if (armed) return;
    for (auto& b : buckets) {
      b.pending = b.params.size();
      b.work.reset();
    }
    std::fill(marked.begin(), marked.end(), 0);
    if (locally_used.defined()) locally_used.zero_();
    next_launch = 0;
    armed = true;
  }

  // Waits for the buckets already started (after an error, so that no collective is left
  // half-issued on this rank) and forgets this backward.
  void abandon() {
    for (auto& b : buckets) {
      if (b.work) {
        try {
          b.work->wait();
        } catch (...) {
        }
      }
    }
    armed = false;
    callback_queued = false;
  }

  void mark_ready(size_t k) {
    marked[k] = 1;
    Bucket& b = buckets[bucket_of[k]];
    EMBER_ASSERT(b.pending > 0, "bucket counted below zero");
    if (--b.pending > 0) return;
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) {
      Bucket& ready = buckets[next_launch++];
      ready.work = group->allreduce(ready.flat, ReduceOp::Avg);
    }
  }

  void on_gradient(size_t k) {
    if (!sync) return;
    arm();
    if (!callback_queued) {
      std::weak_ptr<State> weak = weak_from_this();
      queue_callback([weak] {
        if (auto s = weak.lock()) s->finalize();
      });
      callback_queued = true;
    }
    if (marked[k]) {
      abandon();
      EMBER_FAIL("[DistributedDataParallel] parameter ", k,
                 " received its gradient twice in one backward (a reentrant backward such as "
                 "activation checkpointing, or the parameter used by two DDP models); this is not "
                 "supported");
    }
    NoGradGuard no_grad;
    const Tensor& p = params[k];
    Tensor g = p.grad();
    Tensor& view = views[k];
    if (!(g.defined() && g.data_ptr() == view.data_ptr())) {
      view.copy_(g);
      if (options.gradient_as_bucket_view) p.set_grad(view);
    }
    if (locally_used.defined()) locally_used.data_ptr<int32_t>()[k] = 1;
    mark_ready(k);
  }

  void finalize() {
    callback_queued = false;
    if (next_launch < buckets.size()) {
      std::string missing;
      size_t count = 0;
      for (size_t k = 0; k < params.size(); ++k) {
        if (marked[k]) continue;
        if (count++ < 20) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
      }
      abandon();
      EMBER_FAIL(
          "[DistributedDataParallel] Expected to have finished reduction in the prior iteration "
          "before starting a new one. This error indicates that your module has parameters that "
          "were not used in producing loss. You can enable unused parameter detection by passing "
          "the keyword argument `find_unused_parameters=True` to "
          "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function "
          "outputs participate in calculating loss. Parameter indices which did not receive "
          "grad: ",
          missing, count > 20 ? ", ..." : "");
    }
    armed = false;
    Tensor global_used;
    if (locally_used.defined()) {
      global_used = clone(locally_used);
      group->allreduce(global_used, ReduceOp::Max)->wait();
    }
    for (auto& b : buckets) b.work->wait();
    NoGradGuard no_grad;
    for (size_t k = 0; k < params.size(); ++k) {
      // Unused on every rank: .grad stays as it was (None when it was None), as in PyTorch.
      if (global_used.defined() && global_used.data_ptr<int32_t>()[k] == 0) continue;
      const Tensor& p = params[k];
      Tensor g = p.grad();
      if (g.defined() && g.data_ptr() == views[k].data_ptr()) continue;  // the view itself
      if (options.gradient_as_bucket_view) {
        p.set_grad(views[k]);
      } else if (g.defined()) {
        g.copy_(views[k]);
      } else {
        p.set_grad(clone(views[k]));
      }
    }
  }

  // Parameters that `outputs` do not depend on: ready now, with zero gradient.
  void mark_unused(const TensorList& outputs) {
    std::vector<uint8_t> reached(params.size(), 0);
    std::vector<Node*> stack;
    std::unordered_map<Node*, bool> seen;
    for (const Tensor& t : outputs) {
      if (!t.defined()) continue;
      Edge e = gradient_edge(t);
      if (e.valid() && !seen[e.node.get()]) {
        seen[e.node.get()] = true;
        stack.push_back(e.node.get());
      }
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) {
        if (auto it = index_of.find(acc->variable.impl()); it != index_of.end()) {
          reached[it->second] = 1;
        }
      }
      for (const Edge& e : n->next_edges()) {
        if (e.valid() && !seen[e.node.get()]) {
          seen[e.node.get()] = true;
          stack.push_back(e.node.get());
        }
      }
    }
    NoGradGuard no_grad;
    for (size_t k = 0; k < params.size(); ++k) {
      if (reached[k]) continue;
      views[k].zero_();
      mark_ready(k);
    }
  }
};

Reducer::Reducer(std::vector<Tensor> params,
                 std::shared_ptr<ProcessGroup> group,
                 ReducerOptions options)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  EMBER_CHECK_VALUE(group != nullptr, "[DistributedDataParallel] no process group");
  for (size_t k = 0; k < params.size(); ++k) {
    const Tensor& p = params[k];
    EMBER_CHECK_VALUE(p.is_leaf() && p.requires_grad(), "[DistributedDataParallel] parameter ", k,
                      " must be a leaf that requires grad");
    EMBER_CHECK(p.device().is_cpu() || group->backend() != "gloo",
                "[DistributedDataParallel] the gloo backend reduces CPU tensors; parameter ", k,
                " is on ", p.device());
    EMBER_CHECK_VALUE(s.index_of.emplace(p.impl(), k).second,
                      "[DistributedDataParallel] "
                      "parameter ",
                      k, " appears twice in the parameter list");
  }
  s.params = std::move(params);
  s.group = std::move(group);
  s.options = options;
  s.marked.assign(s.params.size(), 0);
  if (options.find_unused_parameters) {
    s.locally_used = zeros({int64_t(s.params.size())}, TensorOptions(kInt32));
  }
  if (!s.params.empty()) s.build_buckets();
  std::weak_ptr<State> weak = state_;
  for (size_t k = 0; k < s.params.size(); ++k) {
    s.hook_ids.push_back(register_post_accumulate_grad_hook(s.params[k], [weak, k](const Tensor&) {
      if (auto st = weak.lock()) st->on_gradient(k);
    }));
  }
}

Reducer::~Reducer() {
  State& s = *state_;
  for (size_t k = 0; k < s.params.size(); ++k) {
    remove_post_accumulate_grad_hook(s.params[k], s.hook_ids[k]);
  }
  s.abandon();
}

void Reducer::prepare_for_backward(const TensorList& outputs) {
  State& s = *state_;
  if (!s.sync) return;
  if (s.armed) s.abandon();  // the last forward had no backward: start afresh
  s.arm();
  if (s.options.find_unused_parameters) s.mark_unused(outputs);
}

void Reducer::shadow_backward() {
  State& s = *state_;
  NoGradGuard no_grad;
  // The order finalize() leaves on the group's queue: buckets by index, then the bitmap.
  for (const auto& b : s.buckets) s.group->allreduce(zeros_like(b.flat), ReduceOp::Avg)->wait();
  if (s.locally_used.defined()) {
    s.group->allreduce(zeros_like(s.locally_used), ReduceOp::Max)->wait();
  }
}

void Reducer::set_sync(bool sync) { state_->sync = sync; }
bool Reducer::sync() const { return state_->sync; }

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : state_->buckets) out.push_back(b.params);
  return out;
}

void broadcast_coalesced(ProcessGroup& group,
                         const TensorList& tensors,
                         int root,
                         size_t chunk_bytes) {
  if (group.size() == 1) return;
  NoGradGuard no_grad;
  // Consecutive tensors of one dtype, up to chunk_bytes, travel as one flat tensor.
  size_t i = 0;
  while (i < tensors.size()) {
    size_t j = i, bytes = 0;
    TensorList flat_parts;
    while (j < tensors.size() && tensors[j].dtype() == tensors[i].dtype() &&
           (j == i || bytes + tensors[j].nbytes() <= chunk_bytes)) {
      bytes += tensors[j].nbytes();
      flat_parts.push_back(tensors[j].reshape({-1}));
      ++j;
    }
    Tensor flat = cat(flat_parts, 0);
    group.broadcast(flat, root)->wait();
    if (group.rank() != root) {
      int64_t offset = 0;
      for (size_t k = i; k < j; ++k) {
        Tensor t = tensors[k];
        t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
        offset += t.numel();
      }
    }
    i = j;
  }
}

}  // namespace ember::distributed
