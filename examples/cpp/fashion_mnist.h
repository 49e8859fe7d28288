// The Fashion-MNIST example's model and training loop, in a header so that the C++ tests can
// train the very same code on a tiny subset (tests/cpp/fashion_mnist_example_test.cpp).
// examples/cpp/fashion_mnist.cpp is the command line around it. The model and defaults are those
// of examples/fashion_mnist.py.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

namespace fashion_mnist {

namespace nn = ember::nn;
using ember::Tensor;

// Fashion-MNIST's pixel mean and standard deviation (of the training set, scaled to [0, 1]).
inline constexpr double kMean = 0.2860, kStd = 0.3530;
// Batch 32 and dropout 0.1, examples/fashion_mnist.py's defaults: the first plan (batch 64,
// dropout 0.25) reached 90.9 / 89.9 / 90.7% in 3 epochs here (seeds 0 / 1 / 2), below the
// issue's 91% (PyTorch too: 90.6%, benchmarks/fashion_mnist.py).
inline constexpr double kDropout = 0.1;

// Two convolution blocks (conv, batch norm, ReLU, 2x2 max pool: 28 -> 14 -> 7), then dropout
// and two linear layers. One flat Sequential, as examples/fashion_mnist.py's build_model(), so
// the state dict keys are the same ("0.weight", "1.running_mean", ...); the initial values are
// not (the C++ and Python initialisations draw differently).
using Net = nn::Sequential;

inline std::shared_ptr<Net> make_model() {
  return std::make_shared<nn::Sequential>(
      std::make_shared<nn::Conv2d>(1, 32, 3, nn::ConvOptions{.padding = 1}),
      std::make_shared<nn::BatchNorm2d>(32), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::MaxPool2d>(2),  // 28 -> 14
      std::make_shared<nn::Conv2d>(32, 64, 3, nn::ConvOptions{.padding = 1}),
      std::make_shared<nn::BatchNorm2d>(64), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::MaxPool2d>(2),  // 14 -> 7
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Dropout>(kDropout),
      std::make_shared<nn::Linear>(64 * 7 * 7, 128), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Dropout>(kDropout), std::make_shared<nn::Linear>(128, 10));
}

struct Config {
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  int64_t epochs = 3;
  int64_t batch_size = 32;
  double lr = 1e-3;
  int threads = 0;  // 0: ember's default (every core)
  uint64_t seed = 0;
  bool resume = false;
  std::string checkpoint = "fashion_mnist_cpp.safetensors";  // empty: no checkpoints
  int64_t limit = 0;    // use the first `limit` images of each split (quick checks); 0: all
  bool verbose = true;  // progress bars and per-epoch lines on stdout
  FILE* out = stdout;
};

struct EpochStats {
  int64_t epoch;  // 1-based
  double train_loss, train_accuracy, test_loss, test_accuracy;
  double seconds, images_per_second;  // of the training pass (the evaluation excluded)
};

struct Result {
  std::vector<EpochStats> history;  // every epoch, those before a resume included
  double seconds = 0;               // this run's wall time, loading included
  double peak_rss_mib = 0;
  int rank = 0;  // in a data-parallel run, only rank 0 reports
};

// Images as the model sees them: float32 [N, 1, 28, 28], scaled to [0, 1] and normalised, once
// for the whole set (cheaper than per batch, and the same numbers).
inline Tensor normalise(const Tensor& images) {
  Tensor x = images.to(ember::kFloat32);
  x.div_(255.0).sub_(kMean).div_(kStd);
  return x.unsqueeze(1);
}

// Peak resident memory of this process so far (getrusage's ru_maxrss is in KiB on Linux).
inline double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;
}

// The order of the training images in epoch `epoch` (1-based): a permutation from a generator
// seeded with seed * 1000 + epoch, examples/fashion_mnist.py's rule. It depends on nothing that
// ran before: a resumed run sees the same order as an uninterrupted one.
inline Tensor epoch_order(int64_t n, uint64_t seed, int64_t epoch) {
  ember::Generator g(seed * 1000 + uint64_t(epoch));
  return ember::randperm(n, ember::kInt64, &g);
}

// Mean loss and accuracy (in %) on (x, y), in eval mode and without autograd. Batches of 250:
// with 1000 the convolutions' buffers took the peak memory from 0.4 to 0.8 GiB (--limit 1000).
inline std::pair<double, double> evaluate(Net& model,
                                          const Tensor& x,
                                          const Tensor& y,
                                          int64_t batch = 250) {
  model.eval();
  ember::NoGradGuard no_grad;
  double loss_sum = 0;
  int64_t correct = 0;
  for (int64_t i = 0; i < x.size(0); i += batch) {
    const int64_t n = std::min(batch, x.size(0) - i);
    const Tensor logits = model.forward(x.narrow(0, i, n)), target = y.narrow(0, i, n);
    loss_sum += ember::cross_entropy(logits, target, {}, "sum").item<double>();
    correct += ember::argmax(logits, 1).eq(target).sum().item<int64_t>();
  }
  model.train();
  return {loss_sum / double(x.size(0)), 100.0 * double(correct) / double(x.size(0))};
}

// The per-epoch progress, in examples/fashion_mnist.py's format: one line rewritten with '\r'
// (about ten times a second) on a terminal, a plain line every `every` batches otherwise (logs
// and CI output stay readable).
class Progress {
 public:
  Progress(const Config& cfg, int64_t epoch, int64_t batches, int64_t every = 200)
      : out_(cfg.out),
        enabled_(cfg.verbose),
        tty_(cfg.verbose && isatty(fileno(cfg.out))),
        epoch_(epoch),
        epochs_(cfg.epochs),
        batches_(batches),
        every_(every),
        width_(int(std::to_string(batches).size())),
        start_(std::chrono::steady_clock::now()),
        last_(start_) {}

  void update(int64_t done, int64_t seen, double loss, double accuracy) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    const bool final = done == batches_;
    if (tty_ && !final && now - last_ < std::chrono::milliseconds(100)) return;
    if (!tty_ && !final && done % every_ != 0) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::fprintf(out_, "%sepoch %lld/%lld [%*lld/%lld] loss %.4f acc %5.2f%% %6.0f img/s %5.1f s%s",
                 tty_ ? "\r" : "", (long long)epoch_, (long long)epochs_, width_, (long long)done,
                 (long long)batches_, loss, accuracy, double(seen) / std::max(elapsed, 1e-9),
                 elapsed, !tty_ || final ? "\n" : "");
    std::fflush(out_);
  }

 private:
  FILE* out_;
  bool enabled_, tty_;
  int64_t epoch_, epochs_, batches_, every_;
  int width_;
  std::chrono::steady_clock::time_point start_, last_;
};

// ---- Checkpoints ---------------------------------------------------------------------------
// One safetensors file (ember::save: atomic): "model.<key>" and "optimizer.<key>" (the state
// dicts), "epoch" (epochs done), "generator" (the default generator's state: the dropout masks
// continue where they stopped), "history" ([epochs, 7] float64: EpochStats), and in the
// metadata the flags a resumed run must share (as the Python example's "config"). The scheduler
// needs no entry: StepLR's learning rate is in the optimizer's state, its count is "epoch".

inline constexpr int kHistoryColumns = 7;

inline std::map<std::string, std::string> resume_config(const Config& cfg) {
  char lr[32];
  std::snprintf(lr, sizeof lr, "%.17g", cfg.lr);
  return {{"batch_size", std::to_string(cfg.batch_size)},
          {"lr", lr},
          {"seed", std::to_string(cfg.seed)},
          {"limit", std::to_string(cfg.limit)}};
}

inline void save_checkpoint(const std::string& path,
                            const Net& model,
                            const ember::optim::Optimizer& optimizer,
                            const Config& cfg,
                            const std::vector<EpochStats>& history) {
  ember::StateDict sd;
  for (const auto& [k, v] : model.state_dict()) sd.insert("model." + k, v);
  for (const auto& [k, v] : optimizer.state_dict()) sd.insert("optimizer." + k, v);
  sd.insert("epoch", ember::scalar_tensor(int64_t(history.size()), ember::kInt64));
  const std::vector<uint8_t> rng = ember::default_generator().get_state();
  sd.insert("generator", ember::tensor(rng, {int64_t(rng.size())}, ember::kUInt8));
  std::vector<double> h;
  for (const EpochStats& e : history)
    h.insert(h.end(), {double(e.epoch), e.train_loss, e.train_accuracy, e.test_loss,
                       e.test_accuracy, e.seconds, e.images_per_second});
  sd.insert("history",
            ember::tensor(h, {int64_t(history.size()), kHistoryColumns}, ember::kFloat64));
  ember::save(sd, path, resume_config(cfg));
}

// Restores model, optimizer, generator and history; returns the number of epochs done.
inline int64_t load_checkpoint(const std::string& path,
                               Net& model,
                               ember::optim::Optimizer& optimizer,
                               const Config& cfg,
                               std::vector<EpochStats>& history) {
  const ember::io::Checkpoint ck = ember::load_with_metadata(path);
  for (const auto& [key, value] : resume_config(cfg)) {
    const auto saved = ck.metadata.find(key);
    EMBER_CHECK(saved != ck.metadata.end() && saved->second == value, "[fashion_mnist] ", path,
                " was made with --", key == "batch_size" ? "batch-size" : key, " ",
                saved == ck.metadata.end() ? std::string("?") : saved->second, ", this run has ",
                value, ": resuming needs the same flags");
  }
  ember::StateDict model_sd, optim_sd;
  for (const auto& [k, v] : ck.tensors) {
    if (k.starts_with("model.")) model_sd.insert(k.substr(6), v);
    if (k.starts_with("optimizer.")) optim_sd.insert(k.substr(10), v);
  }
  model.load_state_dict(model_sd);
  optimizer.load_state_dict(optim_sd);
  const Tensor rng = ck.tensors.at("generator").contiguous();
  ember::default_generator().set_state(rng.data_ptr<uint8_t>(), size_t(rng.numel()));
  const std::vector<double> h = ck.tensors.at("history").to_vector<double>();
  history.clear();
  for (size_t i = 0; i + kHistoryColumns <= h.size(); i += kHistoryColumns)
    history.push_back({int64_t(h[i]), h[i + 1], h[i + 2], h[i + 3], h[i + 4], h[i + 5], h[i + 6]});
  const int64_t epoch = ck.tensors.at("epoch").item<int64_t>();
  EMBER_CHECK(epoch == int64_t(history.size()), "[fashion_mnist] ", path,
              ": inconsistent checkpoint (epoch ", epoch, ", ", history.size(), " history rows)");
  return epoch;
}

// ---- Training ------------------------------------------------------------------------------

inline Result train(const Config& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  EMBER_CHECK_VALUE(cfg.epochs >= 1 && cfg.batch_size >= 1 && cfg.lr > 0,
                    "[fashion_mnist] expected epochs >= 1, batch size >= 1 and lr > 0");
  // Data-parallel when started by the launcher (WORLD_SIZE > 1): each rank trains a
  // DistributedDataParallel copy on its share of every batch (--batch-size is the global batch),
  // rank 0 prints and checkpoints. The cores are split among the ranks unless --threads says.
  std::shared_ptr<ember::distributed::ProcessGroup> group;
  int rank = 0, world = 1;
  if (const char* ws = std::getenv("WORLD_SIZE"); ws && std::atoi(ws) > 1) {
    group = ember::distributed::init_process_group_from_env();
    rank = group->rank();
    world = group->size();
    EMBER_CHECK_VALUE(cfg.batch_size % world == 0, "[fashion_mnist] --batch-size ", cfg.batch_size,
                      " must divide by the ", world, " ranks");
  }
  Config run_cfg = cfg;  // what this rank does: only rank 0 prints and writes checkpoints
  run_cfg.verbose = cfg.verbose && rank == 0;
  const Config& c = run_cfg;
  if (cfg.threads > 0) {
    ember::set_num_threads(cfg.threads);
  } else if (world > 1) {
    ember::set_num_threads(std::max(1, ember::get_num_threads() / world));
  }
  ember::manual_seed(cfg.seed);  // the initialisation and dropout draw from the default generator

  const ember::data::FashionMNIST train_set(c.data_dir, true), test_set(c.data_dir, false);
  auto first = [&](const Tensor& t) {
    return c.limit > 0 && c.limit < t.size(0) ? t.narrow(0, 0, c.limit) : t;
  };
  const Tensor x_train = normalise(first(train_set.images())), y_train = first(train_set.targets());
  const Tensor x_test = normalise(first(test_set.images())), y_test = first(test_set.targets());
  const int64_t n = x_train.size(0);
  const int64_t share = n / world, batch = c.batch_size / world;  // this rank's
  const int64_t batches = (share + batch - 1) / batch;
  if (c.verbose)
    std::fprintf(c.out,
                 "ember %s, %d threads; Fashion-MNIST from %s: %lld training and %lld "
                 "test images\n",
                 EMBER_VERSION, ember::get_num_threads(), train_set.folder().c_str(), (long long)n,
                 (long long)x_test.size(0));

  auto model = make_model();
  std::unique_ptr<ember::distributed::DistributedDataParallel> ddp;
  if (group) ddp = std::make_unique<ember::distributed::DistributedDataParallel>(model, group);
  ember::optim::Adam optimizer(model->parameters(), {.lr = c.lr});
  ember::optim::StepLR scheduler(optimizer, /*step_size=*/1, /*gamma=*/0.7);

  Result result;
  result.rank = rank;
  int64_t done = 0;
  if (c.resume && !c.checkpoint.empty() && std::filesystem::exists(c.checkpoint)) {
    done = load_checkpoint(c.checkpoint, *model, optimizer, cfg, result.history);
    // The scheduler's count catches up; each step also scales the (restored) lr, so the
    // optimizer's state goes back in afterwards (the state dict holds the state tensors
    // themselves and the options as fresh scalars).
    const ember::StateDict optim_sd = optimizer.state_dict();
    for (int64_t e = 0; e < done; ++e) scheduler.step();
    optimizer.load_state_dict(optim_sd);
    if (c.verbose)
      std::fprintf(c.out, "resumed from %s after epoch %lld\n", c.checkpoint.c_str(),
                   (long long)done);
  } else if (c.resume && c.verbose) {
    std::fprintf(c.out, "no checkpoint at %s: starting from scratch\n", c.checkpoint.c_str());
  }

  for (int64_t epoch = done + 1; epoch <= c.epochs; ++epoch) {
    model->train();
    // This rank's share of the epoch's order: every world-th image from the rank-th.
    const Tensor order = epoch_order(n, c.seed, epoch)
                             .narrow(0, 0, share * world)
                             .view({share, world})
                             .select(1, rank);
    Progress progress(c, epoch, batches);
    const auto t_epoch = std::chrono::steady_clock::now();
    double loss_sum = 0;
    int64_t correct = 0, seen = 0;
    for (int64_t b = 0; b < batches; ++b) {
      const int64_t begin = b * batch, size = std::min(batch, share - begin);
      const Tensor idx = order.narrow(0, begin, size);
      const Tensor x = ember::index_select(x_train, 0, idx);
      const Tensor y = ember::index_select(y_train, 0, idx);
      if (ddp) ddp->sync_buffers();  // rank 0's batch norm statistics, as broadcast_buffers
      const Tensor logits = model->forward(x);
      const Tensor loss = ember::cross_entropy(logits, y);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>() * double(size);
      correct += ember::argmax(logits.detach(), 1).eq(y).sum().item<int64_t>();
      seen += size;
      progress.update(b + 1, seen, loss_sum / double(seen), 100.0 * double(correct) / double(seen));
    }
    if (group) {  // the epoch's loss and accuracy over every rank's share
      Tensor totals = ember::tensor({loss_sum, double(correct), double(seen)});
      group->allreduce(totals, ember::distributed::ReduceOp::Sum)->wait();
      const std::vector<double> t = totals.to_vector<double>();
      loss_sum = t[0];
      correct = int64_t(t[1]);
      seen = int64_t(t[2]);
    }
    const double seconds = seconds_since(t_epoch);
    scheduler.step();
    const auto [test_loss, test_accuracy] = evaluate(*model, x_test, y_test);
    result.history.push_back({epoch, loss_sum / double(seen),
                              100.0 * double(correct) / double(seen), test_loss, test_accuracy,
                              seconds, double(seen) / seconds});
    if (!c.checkpoint.empty() && rank == 0)
      save_checkpoint(c.checkpoint, *model, optimizer, cfg, result.history);
    if (c.verbose)
      std::fprintf(c.out,
                   "epoch %lld/%lld: test loss %.4f acc %.2f%% (train %.1f s, %.0f img/s)%s%s\n",
                   (long long)epoch, (long long)c.epochs, test_loss, test_accuracy, seconds,
                   double(seen) / seconds, c.checkpoint.empty() ? "" : "; checkpoint ",
                   c.checkpoint.c_str());
  }
  result.seconds = seconds_since(t0);
  result.peak_rss_mib = peak_rss_mib();
  return result;
}

}  // namespace fashion_mnist
