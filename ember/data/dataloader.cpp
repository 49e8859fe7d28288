#include "ember/data/dataloader.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "ember/ops/creation.h"
#include "ember/ops/random.h"
#include "ember/ops/shape.h"

namespace ember::data {
namespace detail {

// One pass over the dataset: the batches' indices, the workers and the finished batches.
class Epoch {
 public:
  Epoch(std::shared_ptr<Dataset> dataset,
        std::vector<std::vector<int64_t>> batches,
        int workers,
        int prefetch_factor)
      : dataset_(std::move(dataset)),
        batches_(std::move(batches)),
        capacity_(size_t(workers) * size_t(prefetch_factor)) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }

  ~Epoch() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // The next batch into `out`; false after the last. Rethrows the batch's exception.
  bool next(Example& out) {
    if (next_yield_ >= batches_.size()) return false;
    if (threads_.empty()) {
      out = fetch(next_yield_++);
      return true;
    }
    std::unique_lock lock(mu_);
    ready_cv_.wait(lock, [&] { return ready_.count(next_yield_) > 0; });
    auto node = ready_.extract(next_yield_++);
    lock.unlock();
    work_cv_.notify_all();  // a slot in the prefetch window is free
    if (auto* error = std::get_if<std::exception_ptr>(&node.mapped()))
      std::rethrow_exception(*error);
    out = std::move(std::get<Example>(node.mapped()));
    return true;
  }

 private:
  Example fetch(size_t k) {
    std::vector<Tensor> data, target;
    data.reserve(batches_[k].size());
    target.reserve(batches_[k].size());
    for (int64_t i : batches_[k]) {
      Example e = dataset_->get(i);
      data.push_back(std::move(e.data));
      target.push_back(std::move(e.target));
    }
    return {stack(data, 0), stack(target, 0)};
  }

  void work() {
    for (;;) {
      size_t k;
      {
        std::unique_lock lock(mu_);
        // Batch k may start only while fewer than `capacity_` batches are ahead of the reader.
        work_cv_.wait(lock, [&] {
          return stop_ || next_fetch_ >= batches_.size() || next_fetch_ < next_yield_ + capacity_;
        });
        if (stop_ || next_fetch_ >= batches_.size()) return;
        k = next_fetch_++;
      }
      std::variant<Example, std::exception_ptr> result;
      try {
        result = fetch(k);
      } catch (...) {
        result = std::current_exception();
      }
      {
        std::lock_guard lock(mu_);
        ready_.emplace(k, std::move(result));
      }
      ready_cv_.notify_all();
    }
  }

  std::shared_ptr<Dataset> dataset_;
  const std::vector<std::vector<int64_t>> batches_;
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable work_cv_, ready_cv_;
  size_t next_fetch_ = 0;  // guarded by mu_
  size_t next_yield_ = 0;  // written by the reader under mu_ (when there are workers)
  bool stop_ = false;
  std::map<size_t, std::variant<Example, std::exception_ptr>> ready_;
  std::vector<std::thread> threads_;  // last: started after everything above exists
};

}  // namespace detail

DataLoader::Iterator::Iterator(std::shared_ptr<detail::Epoch> epoch) : epoch_(std::move(epoch)) {
  ++*this;
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  if (epoch_ && !epoch_->next(current_)) {
    epoch_.reset();  // joins the workers
    current_ = {};
  }
  return *this;
}

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options), generator_(options.seed) {
  EMBER_CHECK_VALUE(dataset_ != nullptr, "[DataLoader] expected a dataset, got nullptr");
  EMBER_CHECK_VALUE(options_.batch_size > 0,
                    "[DataLoader] batch_size should be a positive integer value, but got "
                    "batch_size=",
                    options_.batch_size);
  EMBER_CHECK_VALUE(options_.num_workers >= 0,
                    "[DataLoader] num_workers option should be non-negative, got ",
                    options_.num_workers);
  EMBER_CHECK_VALUE(options_.prefetch_factor > 0,
                    "[DataLoader] prefetch_factor should be positive, got ",
                    options_.prefetch_factor);
}

int64_t DataLoader::size() const {
  const int64_t n = dataset_->size(), b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

DataLoader::Iterator DataLoader::begin() {
  const int64_t n = dataset_->size();
  std::vector<int64_t> order(static_cast<size_t>(n));
  if (options_.shuffle) {
    const Tensor perm = randperm(n, TensorOptions(kInt64), &generator_);
    const int64_t* p = perm.data_ptr<int64_t>();
    order.assign(p, p + n);
  } else {
    for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
  }
  std::vector<std::vector<int64_t>> batches;
  for (int64_t start = 0; start < n; start += options_.batch_size) {
    const int64_t stop = std::min(n, start + options_.batch_size);
    if (options_.drop_last && stop - start < options_.batch_size) break;
    batches.emplace_back(order.begin() + start, order.begin() + stop);
  }
  return Iterator(std::make_shared<detail::Epoch>(dataset_, std::move(batches),
                                                  options_.num_workers, options_.prefetch_factor));
}

}  // namespace ember::data
