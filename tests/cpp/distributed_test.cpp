// ember::distributed in C++: the stores, collectives and the C++ DistributedDataParallel, with
// the ranks as threads of this process (each with its own Gloo group over one HashStore).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"

namespace {

using namespace ember;
namespace dist = ember::distributed;
using std::chrono::milliseconds;

dist::Bytes bytes(const std::string& s) { return dist::Bytes(s.begin(), s.end()); }

TEST(DistributedStore, HashStoreFollowsPyTorchsRules) {
  dist::HashStore s(milliseconds(100));
  s.set("k", bytes("v"));
  EXPECT_EQ(s.get("k"), bytes("v"));
  EXPECT_EQ(s.add("n", 2), 2);
  EXPECT_EQ(s.add("n", 3), 5);
  EXPECT_EQ(s.compare_set("c", bytes("x"), bytes("y")), bytes("x"));  // missing: unchanged
  EXPECT_EQ(s.compare_set("c", {}, bytes("y")), bytes("y"));
  EXPECT_EQ(s.compare_set("c", bytes("z"), bytes("w")), bytes("y"));
  EXPECT_TRUE(s.check({"k", "n", "c"}));
  EXPECT_TRUE(s.delete_key("c"));
  EXPECT_EQ(s.num_keys(), 2);
  EXPECT_THROW(s.get("missing"), Error);  // after the 100 ms timeout, not a hang
}

TEST(DistributedStore, TcpStoreServesClients) {
  dist::TCPStore master("127.0.0.1", 0, -1, true, milliseconds(5000));
  dist::TCPStore client("127.0.0.1", master.port(), -1, false, milliseconds(5000));
  std::thread later([&] {
    std::this_thread::sleep_for(milliseconds(100));
    master.set("late", bytes("here"));
  });
  EXPECT_EQ(client.get("late"), bytes("here"));  // waited for it
  later.join();
  EXPECT_EQ(client.add("n", 7), 7);
  EXPECT_EQ(master.add("n", 1), 8);
  try {
    client.wait({"never"}, milliseconds(50));
    FAIL() << "expected a timeout";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("timed out after 50 ms"), std::string::npos);
  }
}

// Runs fn(group) on `world` threads, one rank each; fails the test with any rank's error.
template <class F>
void run_ranks(int world, F fn) {
  auto store = std::make_shared<dist::HashStore>(milliseconds(20000));
  std::vector<std::string> errors(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        dist::ProcessGroupOptions o;
        o.timeout = milliseconds(20000);
        auto group = dist::make_process_group_gloo(store, r, world, o);
        fn(group);
      } catch (const std::exception& e) {
        errors[size_t(r)] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < world; ++r) EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
}

TEST(Distributed, CollectivesGiveHandCheckedValues) {
  run_ranks(3, [](std::shared_ptr<dist::ProcessGroup> g) {
    const double r = g->rank();
    Tensor t = tensor({r, 10 * r});
    g->allreduce(t, dist::ReduceOp::Sum)->wait();
    EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{3, 30}));
    Tensor m = tensor({r + 1});
    g->allreduce(m, dist::ReduceOp::Max)->wait();
    EXPECT_EQ(m.item<double>(), 3);
    Tensor b = tensor({r, r});
    g->broadcast(b, 2)->wait();
    EXPECT_EQ(b.to_vector<double>(), (std::vector<double>{2, 2}));
    Tensor gathered = zeros({3}, TensorOptions(kFloat64));
    g->allgather_into_tensor(gathered, tensor({r}, TensorOptions(kFloat64)))->wait();
    EXPECT_EQ(gathered.to_vector<double>(), (std::vector<double>{0, 1, 2}));
    // A mismatched shape is an error on every rank, and the group still works afterwards.
    EXPECT_THROW(g->allreduce(zeros({int64_t(r) + 1}), dist::ReduceOp::Sum)->wait(), Error);
    Tensor again = ones({2});
    g->allreduce(again, dist::ReduceOp::Avg)->wait();
    EXPECT_EQ(again.to_vector<float>(), (std::vector<float>{1, 1}));
  });
}

TEST(Distributed, DdpAveragesGradientsLikeOneProcess) {
  // Rank r trains on rows [2r, 2r + 2) of a fixed batch; one process trains on all four rows.
  const Tensor x = tensor({{1.0f, 2.0f}, {-1.0f, 0.5f}, {0.0f, 3.0f}, {2.0f, -2.0f}});
  const Tensor y = tensor({{1.0f}, {0.0f}, {-1.0f}, {2.0f}});
  std::vector<std::vector<float>> weights(2);
  run_ranks(2, [&](std::shared_ptr<dist::ProcessGroup> g) {
    const int r = g->rank();
    auto model = std::make_shared<nn::Linear>(2, 1);
    {
      NoGradGuard no_grad;  // different on each rank: DDP must start everyone from rank 0's
      model->parameters()[0].fill_(0.5 + r);
      model->parameters()[1].fill_(-0.25 * r);
    }
    dist::DistributedDataParallel ddp(model, g);
    auto reference = std::make_shared<nn::Linear>(2, 1);
    {
      NoGradGuard no_grad;
      for (size_t i = 0; i < 2; ++i) reference->parameters()[i].copy_(model->parameters()[i]);
    }
    optim::SGD opt(model->parameters(), {.lr = 0.1, .momentum = 0.9});
    optim::SGD ref_opt(reference->parameters(), {.lr = 0.1, .momentum = 0.9});
    for (int step = 0; step < 5; ++step) {
      opt.zero_grad();
      mse_loss(model->forward(x.narrow(0, 2 * r, 2)), y.narrow(0, 2 * r, 2)).backward();
      opt.step();
      ref_opt.zero_grad();
      mse_loss(reference->forward(x), y).backward();
      ref_opt.step();
    }
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_TRUE(allclose(model->parameters()[i], reference->parameters()[i], 1e-6, 1e-6));
    }
    weights[size_t(r)] = model->parameters()[0].to_vector<float>();
  });
  EXPECT_EQ(weights[0], weights[1]);  // bitwise the same on both ranks
}

}  // namespace
