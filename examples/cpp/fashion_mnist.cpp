// Trains a small CNN on Fashion-MNIST with ember's C++ API: the same model, data order rule and
// defaults as examples/fashion_mnist.py (which also draws the plot; this one prints).
//
//   build/dev/examples/cpp/fashion_mnist                 # 3 epochs, reaches ~91% test accuracy
//   build/dev/examples/cpp/fashion_mnist --epochs 1      # then:
//   build/dev/examples/cpp/fashion_mnist --resume        # continues with epochs 2 and 3
//
// Data-parallel on two processes (the launcher sets RANK, WORLD_SIZE, MASTER_ADDR/PORT):
//   python -m ember.distributed.run --standalone --nproc-per-node 2 --no-python
//       build/dev/examples/cpp/fashion_mnist   (one line)
//
// The data: Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist) or any folder
// with the four IDX files (--data-dir).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <type_traits>

#include <unistd.h>

#include "fashion_mnist.h"

namespace {

constexpr const char* kUsage =
    "usage: fashion_mnist [options]\n"
    "  --data-dir DIR     folder with the Fashion-MNIST IDX files, gzip'd or plain\n"
    "                     (default /usr/share/datasets/fashion-mnist)\n"
    "  --epochs N         epochs to train, in all (default 3)\n"
    "  --batch-size N     training batch size (default 32)\n"
    "  --lr X             Adam's learning rate (default 1e-3; x0.7 after each epoch)\n"
    "  --threads N        compute threads (default: every core)\n"
    "  --seed N           seed of the initialisation, dropout and data order (default 0)\n"
    "  --checkpoint PATH  written after each epoch (default fashion_mnist_cpp.safetensors;\n"
    "                     '' for none)\n"
    "  --resume           continue from --checkpoint if it exists (model, optimizer,\n"
    "                     lr schedule, epoch, random state)\n"
    "  --limit N          use the first N images of each split, for quick checks\n"
    "  --quiet            no progress output, only the summary table\n"
    "  Started by ember's launcher with WORLD_SIZE > 1 it trains data-parallel: --batch-size\n"
    "  is the global batch, split among the ranks; rank 0 prints and checkpoints.\n"
    "  --help             this text\n";

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "fashion_mnist: %s\n%s", msg.c_str(), kUsage);
  std::exit(2);
}

// The number in `text`, which must be all of it.
template <class T>
T parse_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  T value{};
  if constexpr (std::is_floating_point_v<T>) {
    value = T(std::strtod(text.c_str(), &end));
  } else {
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (v < 0) usage_error(flag + " expects a non-negative integer, got '" + text + "'");
    value = T(v);
  }
  if (text.empty() || *end != '\0' || errno != 0)
    usage_error(flag + " expects a number, got '" + text + "'");
  return value;
}

fashion_mnist::Config parse_args(int argc, char** argv) {
  fashion_mnist::Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " expects a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg == "--data-dir") {
      cfg.data_dir = value();
    } else if (arg == "--epochs") {
      cfg.epochs = parse_number<int64_t>(arg, value());
    } else if (arg == "--batch-size") {
      cfg.batch_size = parse_number<int64_t>(arg, value());
    } else if (arg == "--lr") {
      cfg.lr = parse_number<double>(arg, value());
    } else if (arg == "--threads") {
      cfg.threads = int(parse_number<int64_t>(arg, value()));
    } else if (arg == "--seed") {
      cfg.seed = parse_number<uint64_t>(arg, value());
    } else if (arg == "--checkpoint") {
      cfg.checkpoint = value();
    } else if (arg == "--resume") {
      cfg.resume = true;
    } else if (arg == "--limit") {
      cfg.limit = parse_number<int64_t>(arg, value());
    } else if (arg == "--quiet") {
      cfg.verbose = false;
    } else {
      usage_error("unknown argument '" + arg + "'");
    }
  }
  if (cfg.epochs < 1 || cfg.batch_size < 1 || !(cfg.lr > 0))
    usage_error("--epochs and --batch-size must be at least 1, --lr positive");
  if (!cfg.data_dir.empty() && !std::filesystem::is_directory(cfg.data_dir))
    usage_error("--data-dir '" + cfg.data_dir + "' is not a folder");
  // The checkpoint's folder is made now (as `mkdir -p`) and must be writable: a bad path must not
  // cost a training epoch before it fails.
  if (!cfg.checkpoint.empty()) {
    const std::filesystem::path folder = std::filesystem::absolute(cfg.checkpoint).parent_path();
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec)
      usage_error("--checkpoint '" + cfg.checkpoint + "': cannot create its folder '" +
                  folder.string() + "': " + ec.message());
    if (std::filesystem::is_directory(cfg.checkpoint))
      usage_error("--checkpoint '" + cfg.checkpoint + "' is a folder; give a file name");
    if (access(folder.c_str(), W_OK) != 0)
      usage_error("--checkpoint '" + cfg.checkpoint + "': its folder '" + folder.string() +
                  "' is not writable");
  }
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  const fashion_mnist::Config cfg = parse_args(argc, argv);
  try {
    const fashion_mnist::Result r = fashion_mnist::train(cfg);
    if (r.rank != 0) return 0;
    std::printf("\n  epoch  train loss  train acc  test loss  test acc  train s  img/s\n");
    for (const auto& e : r.history)
      std::printf("  %5lld  %10.4f  %8.2f%%  %9.4f  %7.2f%%  %7.1f  %5.0f\n", (long long)e.epoch,
                  e.train_loss, e.train_accuracy, e.test_loss, e.test_accuracy, e.seconds,
                  e.images_per_second);
    if (!r.history.empty())
      std::printf(
          "final test accuracy %.2f%% after %lld epochs; %.1f s in this run; peak memory "
          "%.0f MiB\n",
          r.history.back().test_accuracy, (long long)r.history.back().epoch, r.seconds,
          r.peak_rss_mib);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fashion_mnist: %s\n", e.what());
    return 1;
  }
  return 0;
}
