// Gradient reduction for data-parallel training: PyTorch's DDP Reducer, shared by
// ember.nn.parallel.DistributedDataParallel and the C++ DistributedDataParallel (ddp.h).
//
// Note [Bucketed gradient reduction]
// Parameters are grouped into buckets in reverse order (the order backward produces their
// gradients), a small first bucket (1 MiB) so that communication starts early, then buckets of
// about bucket_cap bytes, one dtype per bucket. Each bucket is one flat tensor; each parameter
// has a view of it. A post-accumulate-grad hook per parameter copies the new .grad into its view;
// when a bucket's last gradient has arrived, the bucket is averaged across ranks on the process
// group's worker thread (ReduceOp.AVG) while backward goes on. Buckets start in index order on
// every rank, so all ranks issue the same collectives in the same order. The first hook of a
// backward queues an end-of-backward callback that waits for every bucket and writes the
// averaged gradients back into .grad (or leaves them in place with gradient_as_bucket_view,
// where .grad is the view itself).
#pragma once

#include <memory>
#include <vector>

#include "ember/distributed/process_group.h"

namespace ember::distributed {

struct ReducerOptions {
  size_t bucket_cap_bytes = 25u << 20;   // bucket_cap_mb = 25
  size_t first_bucket_bytes = 1u << 20;  // dist._DEFAULT_FIRST_BUCKET_BYTES
  bool find_unused_parameters = false;
  bool gradient_as_bucket_view = false;
};

class Reducer {
 public:
  // `params` are the trainable parameters (requires_grad leaves), in the module's order.
  Reducer(std::vector<Tensor> params, std::shared_ptr<ProcessGroup> group, ReducerOptions options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // Called after each forward that will be followed by backward. With find_unused_parameters it
  // walks the graph from `outputs` and marks the parameters it does not reach as ready.
  void prepare_for_backward(const TensorList& outputs);
  // no_sync(): while false, hooks leave .grad to accumulate locally.
  void set_sync(bool sync);
  bool sync() const;

  // DDP.join(): the collectives one synced backward issues (each bucket's all-reduce, then the
  // unused-parameter bitmap), with zeros, so that a rank whose data ran out keeps matching the
  // ranks that still train. Waits for them.
  void shadow_backward();

  // Each bucket's parameter indices, in bucket order (tests, and DDP's repr).
  std::vector<std::vector<size_t>> bucket_indices() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// Copies rank `root`'s tensors into everyone's, a few flat broadcasts instead of one per tensor
// (DDP's parameter and buffer sync).
void broadcast_coalesced(ProcessGroup& group,
                         const TensorList& tensors,
                         int root = 0,
                         size_t chunk_bytes = 250u << 20);

}  // namespace ember::distributed
