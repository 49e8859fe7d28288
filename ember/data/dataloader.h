// ember::data::DataLoader: batches of a Dataset, in order, optionally made by worker threads.
//
//   auto ds = std::make_shared<ember::data::TensorDataset>(x, y);
//   ember::data::DataLoader loader(ds, {.batch_size = 32, .shuffle = true, .num_workers = 2});
//   for (auto& batch : loader) { ... batch.data, batch.target ... }
//
// Each range-for (each begin()) is one epoch. The batch order is fixed before any worker starts
// (a randperm from the loader's generator when shuffling), so the batches are the same for any
// number of workers. Workers prefetch at most prefetch_factor batches each; an exception thrown
// by Dataset::get or by stacking is rethrown in the caller when its batch is reached.
// Destroying the iterator (leaving the loop early included) stops and joins the workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>

#include "ember/core/generator.h"
#include "ember/data/dataset.h"

namespace ember::data {

struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;
  bool drop_last = false;  // drop a last batch shorter than batch_size
  int num_workers = 0;     // worker threads; 0: batches are made by the iterating thread
  uint64_t seed = Generator::kDefaultSeed;  // of the shuffling generator
  int prefetch_factor = 2;                  // batches in flight per worker
};

namespace detail {
class Epoch;
}

class DataLoader {
 public:
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    using pointer = Example*;
    using reference = Example&;

    Iterator() = default;  // the end
    Example& operator*() { return current_; }
    Example* operator->() { return &current_; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return done() == other.done(); }

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<detail::Epoch> epoch);
    bool done() const { return epoch_ == nullptr; }
    std::shared_ptr<detail::Epoch> epoch_;
    Example current_;
  };

  explicit DataLoader(std::shared_ptr<Dataset> dataset, DataLoaderOptions options = {});

  // Starts an epoch: shuffles (advancing the generator), starts the workers.
  Iterator begin();
  Iterator end() { return {}; }
  // Batches per epoch.
  int64_t size() const;
  const DataLoaderOptions& options() const { return options_; }

 private:
  std::shared_ptr<Dataset> dataset_;
  DataLoaderOptions options_;
  Generator generator_;
};

}  // namespace ember::data
