// The C++ DistributedDataParallel (ddp.h).
#include "ember/distributed/ddp.h"

namespace ember::distributed {

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module,
                                                 std::shared_ptr<ProcessGroup> group,
                                                 DistributedDataParallelOptions options)
    : module_(std::move(module)), group_(std::move(group)), options_(options) {
  EMBER_CHECK_VALUE(module_ != nullptr && group_ != nullptr,
                    "[DistributedDataParallel] needs a module and a process group");
  TensorList state = module_->parameters();
  for (const Tensor& b : module_->buffers()) state.push_back(b);
  broadcast_coalesced(*group_, state, 0);
  std::vector<Tensor> trainable;
  for (const Tensor& p : module_->parameters())
    if (p.requires_grad()) trainable.push_back(p);
  reducer_ = std::make_unique<Reducer>(std::move(trainable), group_, options_.reducer);
}

void DistributedDataParallel::sync_buffers() {
  if (options_.broadcast_buffers) broadcast_coalesced(*group_, module_->buffers(), 0);
}

}  // namespace ember::distributed
