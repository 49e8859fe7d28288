// What every backend shares: Work, the reduce op names, and the default group from the
// environment (process_group.h).
#include "ember/distributed/process_group.h"

#include <cstdlib>

#include "ember/core/error.h"

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "SUM";
    case ReduceOp::Avg:
      return "AVG";
    case ReduceOp::Product:
      return "PRODUCT";
    case ReduceOp::Min:
      return "MIN";
    case ReduceOp::Max:
      return "MAX";
    case ReduceOp::BAnd:
      return "BAND";
    case ReduceOp::BOr:
      return "BOR";
    case ReduceOp::BXor:
      return "BXOR";
  }
  return "?";
}

void Work::wait(Millis timeout) {
  std::unique_lock lock(mutex_);
  if (timeout.count() < 0) {
    done_cv_.wait(lock, [&] { return done_; });
  } else if (!done_cv_.wait_for(lock, timeout, [&] { return done_; })) {
    EMBER_FAIL("[Work.wait] the collective did not complete within ", timeout.count(), " ms");
  }
  if (error_) std::rethrow_exception(error_);
}

bool Work::is_completed() {
  std::lock_guard lock(mutex_);
  return done_;
}

bool Work::is_success() {
  std::lock_guard lock(mutex_);
  return done_ && !error_;
}

std::exception_ptr Work::exception() {
  std::lock_guard lock(mutex_);
  return error_;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
    error_ = std::move(error);
  }
  done_cv_.notify_all();
}

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  EMBER_CHECK_VALUE(v && *v, "[init_process_group] environment variable ", name,
                    " expected, but not set (launch with ember-run / python -m "
                    "ember.distributed.run, or set it)");
  return v;
}
int env_int(const char* name) {
  const std::string v = env(name);
  char* end = nullptr;
  long x = std::strtol(v.c_str(), &end, 10);
  EMBER_CHECK_VALUE(end && *end == '\0', "[init_process_group] ", name,
                    " must be an integer, got '", v, "'");
  return int(x);
}
}  // namespace

std::shared_ptr<ProcessGroup> init_process_group_from_env(ProcessGroupOptions options) {
  const int rank = env_int("RANK"), size = env_int("WORLD_SIZE");
  EMBER_CHECK_VALUE(size > 0 && rank >= 0 && rank < size, "[init_process_group] RANK ", rank,
                    " is not in [0, WORLD_SIZE = ", size, ")");
  auto store = std::make_shared<TCPStore>(env("MASTER_ADDR"), env_int("MASTER_PORT"), size,
                                          rank == 0, options.timeout);
  return make_process_group_gloo(std::make_shared<PrefixStore>("default_pg", store), rank, size,
                                 options);
}

}  // namespace ember::distributed
