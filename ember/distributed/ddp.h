// DistributedDataParallel for C++ modules: what ember.nn.parallel.DistributedDataParallel does
// for Python ones, on the same Reducer (Note [Bucketed gradient reduction] in reducer.h).
//
//   auto group = ember::distributed::init_process_group_from_env();
//   auto model = std::make_shared<Net>();
//   ember::distributed::DistributedDataParallel ddp(model, group);
//   ... auto loss = loss_fn(model->forward(x), y); loss.backward(); opt.step();
//
// Construction copies rank 0's parameters and buffers to every rank; afterwards each backward
// averages the gradients across ranks before backward() returns. The model's own forward is
// called directly (C++ modules have no common forward signature); call prepare_for_backward(out)
// after it only with find_unused_parameters, and sync_buffers() before it to follow PyTorch's
// broadcast_buffers=True (batch norm running statistics).
#pragma once

#include <memory>

#include "ember/distributed/reducer.h"
#include "ember/nn/module.h"

namespace ember::distributed {

struct DistributedDataParallelOptions {
  ReducerOptions reducer;
  bool broadcast_buffers = true;
};

class DistributedDataParallel {
 public:
  DistributedDataParallel(std::shared_ptr<nn::Module> module,
                          std::shared_ptr<ProcessGroup> group,
                          DistributedDataParallelOptions options = {});

  nn::Module& module() { return *module_; }
  ProcessGroup& process_group() { return *group_; }

  // With find_unused_parameters: the forward's outputs, so unused parameters are found.
  void prepare_for_backward(const TensorList& outputs) { reducer_->prepare_for_backward(outputs); }
  // Rank 0's buffers to every rank (call before forward when broadcast_buffers).
  void sync_buffers();

  // While alive, backward accumulates gradients locally (gradient accumulation): the backward
  // after it ends averages the sum.
  class NoSync {
   public:
    explicit NoSync(Reducer& r) : reducer_(r), previous_(r.sync()) { r.set_sync(false); }
    ~NoSync() { reducer_.set_sync(previous_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    Reducer& reducer_;
    bool previous_;
  };
  NoSync no_sync() { return NoSync(*reducer_); }

 private:
  std::shared_ptr<nn::Module> module_;
  std::shared_ptr<ProcessGroup> group_;
  DistributedDataParallelOptions options_;
  std::unique_ptr<Reducer> reducer_;
};

}  // namespace ember::distributed
