// ember::data: TensorDataset and DataLoader (order, shuffling, drop_last, worker threads,
// exceptions).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <vector>

#include "ember/ember.h"

namespace {

using ember::Tensor;
using ember::data::DataLoader;
using ember::data::Example;
using ember::data::TensorDataset;

// Sample i: data = [i, 10 i] (float), target = i (int64).
std::shared_ptr<TensorDataset> numbered(int64_t n) {
  Tensor idx = ember::arange(n);
  Tensor data = ember::stack({idx, idx * 10}, 1).to(ember::kFloat32);
  return std::make_shared<TensorDataset>(data, idx);
}

std::vector<std::vector<int64_t>> targets(DataLoader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) {
    const Tensor t = batch.target.contiguous();
    const int64_t* p = t.data_ptr<int64_t>();
    out.emplace_back(p, p + t.numel());
    EXPECT_EQ(batch.data.size(0), t.numel());
    EXPECT_EQ(batch.data.size(1), 2);
    // The rows travel with their targets.
    for (int64_t r = 0; r < t.numel(); ++r) {
      EXPECT_EQ(batch.data.select(0, r).select(0, 1).item<float>(), float(p[r] * 10));
    }
  }
  return out;
}

TEST(DataLoader, BatchesInOrder) {
  DataLoader loader(numbered(7), {.batch_size = 3});
  EXPECT_EQ(loader.size(), 3);
  const std::vector<std::vector<int64_t>> want{{0, 1, 2}, {3, 4, 5}, {6}};
  EXPECT_EQ(targets(loader), want);
  EXPECT_EQ(targets(loader), want);  // a second epoch
}

TEST(DataLoader, DropLast) {
  DataLoader loader(numbered(7), {.batch_size = 3, .drop_last = true});
  EXPECT_EQ(loader.size(), 2);
  const std::vector<std::vector<int64_t>> want{{0, 1, 2}, {3, 4, 5}};
  EXPECT_EQ(targets(loader), want);
}

TEST(DataLoader, ShuffleIsARandpermOfTheSeed) {
  DataLoader a(numbered(10), {.batch_size = 4, .shuffle = true, .seed = 5});
  DataLoader b(numbered(10), {.batch_size = 4, .shuffle = true, .seed = 5});
  const auto first = targets(a);
  EXPECT_EQ(first, targets(b));
  ember::Generator g(5);
  const Tensor perm = ember::randperm(10, ember::TensorOptions(ember::kInt64), &g);
  std::vector<int64_t> flat;
  for (const auto& batch : first) flat.insert(flat.end(), batch.begin(), batch.end());
  EXPECT_EQ(flat, std::vector<int64_t>(perm.data_ptr<int64_t>(), perm.data_ptr<int64_t>() + 10));
  EXPECT_NE(targets(a), first);  // the next epoch is another permutation
}

TEST(DataLoader, WorkersGiveTheBatchesOfOneThread) {
  for (int workers : {1, 3}) {
    DataLoader single(numbered(50), {.batch_size = 4, .shuffle = true, .seed = 1});
    DataLoader multi(numbered(50),
                     {.batch_size = 4, .shuffle = true, .num_workers = workers, .seed = 1});
    EXPECT_EQ(targets(multi), targets(single)) << workers << " workers";
  }
}

class Failing : public ember::data::Dataset {
 public:
  Example get(int64_t index) override {
    if (index == 5) throw std::runtime_error("bad sample 5");
    return {ember::full({2}, double(index)), ember::full({}, index, ember::kInt64)};
  }
  int64_t size() const override { return 12; }
};

TEST(DataLoader, WorkerExceptionRethrownAtItsBatch) {
  for (int workers : {0, 2}) {
    DataLoader loader(std::make_shared<Failing>(), {.batch_size = 2, .num_workers = workers});
    int seen = 0;
    try {
      for (auto& batch : loader) {
        EXPECT_EQ(batch.target.size(0), 2);
        ++seen;
      }
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "bad sample 5");
    }
    EXPECT_EQ(seen, 2) << workers << " workers";  // batches [0, 1] and [2, 3] came first
  }
}

class Counting : public ember::data::Dataset {
 public:
  std::atomic<int64_t> calls{0};
  Example get(int64_t index) override {
    ++calls;
    return {ember::full({1}, double(index)), ember::full({}, index, ember::kInt64)};
  }
  int64_t size() const override { return 1000; }
};

TEST(DataLoader, LeavingEarlyStopsTheWorkersWithinThePrefetchWindow) {
  auto ds = std::make_shared<Counting>();
  {
    DataLoader loader(ds, {.batch_size = 10, .num_workers = 2, .prefetch_factor = 2});
    for (auto& batch : loader) {
      EXPECT_EQ(batch.target.size(0), 10);
      break;  // the iterator's destructor joins the workers
    }
  }
  // One batch taken, at most 2 * 2 more in flight (+1 read ahead by the iterator).
  EXPECT_LE(ds->calls.load(), 10 * 6);
}

TEST(DataLoader, BadOptions) {
  EXPECT_THROW(DataLoader(numbered(3), {.batch_size = 0}), ember::Error);
  EXPECT_THROW(DataLoader(numbered(3), {.num_workers = -1}), ember::Error);
  EXPECT_THROW(TensorDataset(ember::zeros({3}), ember::zeros({4})), ember::Error);
  EXPECT_THROW(numbered(3)->get(3), ember::Error);
}

}  // namespace
