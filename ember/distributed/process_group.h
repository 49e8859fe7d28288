// Process groups: collectives across the processes of a job (docs/design/distributed.md).
//
// A ProcessGroup is PyTorch's c10d backend object: rank and size, and one method per collective
// returning a Work to wait on. ProcessGroupGloo runs Gloo's algorithms over TCP; each group has
// one worker thread that runs its collectives in the order they were issued (every rank issues
// them in the same order, which is how ranks agree on what they are doing), so a collective
// never holds the Python GIL and backward can go on while gradients are being reduced.
//
// Failure is an error, never a hang: a peer that exited breaks its connection (Gloo raises at
// once), a stopped peer lets the group's timeout pass; either way the Work fails with a
// RuntimeError that names the operation, this rank, and what is known of the peer (an exited or
// stopped process on this machine is found by its pid, published at rendezvous).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/distributed/store.h"

namespace ember {
using TensorList = std::vector<Tensor>;  // as ember/autograd/node.h has it
}

namespace ember::distributed {

enum class ReduceOp { Sum, Avg, Product, Min, Max, BAnd, BOr, BXor };
const char* reduce_op_name(ReduceOp op);

// The result of a collective: completes once, successfully or with an exception.
class Work {
 public:
  virtual ~Work() = default;
  // Waits for completion (timeout < 0: without a limit of its own; the collective fails by
  // itself after the group's timeout) and rethrows its error.
  virtual void wait(Millis timeout = Millis(-1));
  bool is_completed();
  bool is_success();
  std::exception_ptr exception();
  // The tensors the collective wrote (PyTorch's Work.result()).
  TensorList result() const { return outputs_; }

  // Called once by whoever ran the collective.
  void finish(std::exception_ptr error = nullptr);
  void set_outputs(TensorList outputs) { outputs_ = std::move(outputs); }

 protected:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::exception_ptr error_;
  TensorList outputs_;
};

struct ProcessGroupOptions {
  Millis timeout{1'800'000};  // PyTorch's default for Gloo: 30 minutes
  // Compare each collective's name, dtype, element count and root/op across ranks before it
  // moves data (an all-gather of fixed-size slots): a mismatch is then an error on every rank
  // instead of Gloo aborting the process. EMBER_DISTRIBUTED_CHECKS=0 turns it off
  // (docs/design/distributed.md has its cost).
  bool check_signatures = true;
};

class ProcessGroup {
 public:
  ProcessGroup(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual std::string backend() const = 0;
  virtual Millis timeout() const = 0;

  // In place on `tensor` (every rank ends with the reduction).
  virtual std::shared_ptr<Work> allreduce(Tensor tensor, ReduceOp op) = 0;
  // root's tensor overwrites everyone's.
  virtual std::shared_ptr<Work> broadcast(Tensor tensor, int root) = 0;
  // The reduction lands in root's tensor (other ranks' tensors are scratch).
  virtual std::shared_ptr<Work> reduce(Tensor tensor, int root, ReduceOp op) = 0;
  // outputs[i] receives rank i's input (size() outputs, each shaped as input).
  virtual std::shared_ptr<Work> allgather(TensorList outputs, Tensor input) = 0;
  // output is size() inputs concatenated along dim 0 (or stacked).
  virtual std::shared_ptr<Work> allgather_into_tensor(Tensor output, Tensor input) = 0;
  // On root, outputs[i] receives rank i's input; elsewhere outputs is empty.
  virtual std::shared_ptr<Work> gather(TensorList outputs, Tensor input, int root) = 0;
  // On root, inputs[i] goes to rank i's output; elsewhere inputs is empty.
  virtual std::shared_ptr<Work> scatter(Tensor output, TensorList inputs, int root) = 0;
  // input holds size() chunks along dim 0; rank i receives the reduction of chunk i.
  virtual std::shared_ptr<Work> reduce_scatter_tensor(Tensor output, Tensor input, ReduceOp op) = 0;
  // Rows of input go to ranks by input_splits (equal when empty); output is filled likewise.
  virtual std::shared_ptr<Work> alltoall_base(Tensor output,
                                              Tensor input,
                                              std::vector<int64_t> output_splits,
                                              std::vector<int64_t> input_splits) = 0;
  virtual std::shared_ptr<Work> barrier() = 0;
  virtual std::shared_ptr<Work> send(Tensor tensor, int dst, int tag) = 0;
  // src < 0: from any rank; the returned Work is a RecvWork whose source_rank() says which.
  virtual std::shared_ptr<Work> recv(Tensor tensor, int src, int tag) = 0;

 protected:
  int rank_, size_;
};

// The Work of a recv: which rank the message came from (for recv from any source).
class RecvWork : public Work {
 public:
  int source_rank() const { return source_; }

 protected:
  int source_ = -1;
};

// Gloo over TCP. The constructor rendezvouses through `store` with the other size()-1 ranks
// (each publishes its addresses, then connects to every other: a full mesh).
std::shared_ptr<ProcessGroup> make_process_group_gloo(std::shared_ptr<Store> store,
                                                      int rank,
                                                      int size,
                                                      ProcessGroupOptions options = {});

// The default group of a C++ program: rank and world size from RANK and WORLD_SIZE, the store
// from MASTER_ADDR and MASTER_PORT (rank 0 serves it), as `init_process_group("gloo")` reads
// them in Python; what `ember-run` / `python -m ember.distributed.run` sets for each worker.
std::shared_ptr<ProcessGroup> init_process_group_from_env(ProcessGroupOptions options = {});

}  // namespace ember::distributed
