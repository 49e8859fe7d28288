// ProcessGroupGloo: ember's collectives on Gloo's algorithms and TCP transport
// (process_group.h, docs/design/distributed.md). Gloo moves bytes; ember gives it the reduction
// for each dtype and op, runs every collective on the group's worker thread, and turns Gloo's
// errors into errors that say which operation failed and what happened to which peer.
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>
#include <netdb.h>
#include <unistd.h>

#include <array>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/distributed/process_group.h"
#include "ember/ops/ops.h"

namespace ember::distributed {

namespace {

using Func = gloo::AllreduceOptions::Func;

// Gloo's rendezvous reads and writes through this view of an ember store.
class GlooStore final : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> s) : store_(std::move(s)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, Bytes(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    Bytes b = store_->get(key);
    return std::vector<char>(b.begin(), b.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const Millis& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// ---- reductions ----------------------------------------------------------------------------

// out[i] = f(a[i], b[i]) in T's arithmetic type (float for the 16-bit floats).
// Gloo calls it with out == a (accumulating) or with three distinct buffers; each case gets a
// loop whose pointers are declared unaliased, so that it vectorises.
template <class T, class F>
Func elementwise(F f) {
  return [f](void* out, const void* a, const void* b, size_t n) {
    using M = typename OpMath<T>::type;
    auto* __restrict o = static_cast<T*>(out);
    auto* __restrict y = static_cast<const T*>(b);
    if (out == a) {
      for (size_t i = 0; i < n; ++i) o[i] = T(f(M(o[i]), M(y[i])));
    } else if (out == b) {
      auto* __restrict x = static_cast<const T*>(a);
      auto* __restrict o2 = static_cast<T*>(out);
      for (size_t i = 0; i < n; ++i) o2[i] = T(f(M(x[i]), M(o2[i])));
    } else {
      auto* __restrict x = static_cast<const T*>(a);
      for (size_t i = 0; i < n; ++i) o[i] = T(f(M(x[i]), M(y[i])));
    }
  };
}

Func reduction(DType dtype, ReduceOp op, const char* name) {
  return dispatch_dtype<kAllTypesAndComplex>(dtype, name, [&]<class T>() -> Func {
    constexpr bool integral = std::is_integral_v<T>;  // bool included
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:  // Avg divides the sum afterwards
        if constexpr (std::is_same_v<T, bool>)
          return elementwise<T>([](bool a, bool b) { return a || b; });
        else
          return elementwise<T>([](auto a, auto b) { return a + b; });
      case ReduceOp::Product:
        if constexpr (std::is_same_v<T, bool>)
          return elementwise<T>([](bool a, bool b) { return a && b; });
        else
          return elementwise<T>([](auto a, auto b) { return a * b; });
      case ReduceOp::Min:
      case ReduceOp::Max:
        if constexpr (!is_std_complex<T>) {
          if (op == ReduceOp::Min)
            return elementwise<T>([](auto a, auto b) { return b < a ? b : a; });
          return elementwise<T>([](auto a, auto b) { return a < b ? b : a; });
        }
        break;
      case ReduceOp::BAnd:
      case ReduceOp::BOr:
      case ReduceOp::BXor:
        if constexpr (integral) {
          if (op == ReduceOp::BAnd) return elementwise<T>([](auto a, auto b) { return a & b; });
          if (op == ReduceOp::BOr) return elementwise<T>([](auto a, auto b) { return a | b; });
          return elementwise<T>([](auto a, auto b) { return a ^ b; });
        }
        break;
    }
    EMBER_FAIL_KIND(ErrorKind::Value, "[", name, "] ReduceOp.", reduce_op_name(op),
                    " is not defined for dtype ", dtype);
  });
}

// Divides in place by `n` (ReduceOp.AVG after the sum; the dtype was checked when it was issued).
void divide(Tensor& t, int n) {
  NoGradGuard no_grad;
  t.div_(Scalar(double(n)));
}

// Gloo's typed option setters only need the element size: a byte array of that size stands in
// for T, so one call site serves every dtype.
template <size_t N>
struct Element {
  uint8_t bytes[N];
};
template <class F>
void with_element(size_t size, F&& f) {
  switch (size) {
    case 1:
      return f.template operator()<Element<1>>();
    case 2:
      return f.template operator()<Element<2>>();
    case 4:
      return f.template operator()<Element<4>>();
    case 8:
      return f.template operator()<Element<8>>();
    case 16:
      return f.template operator()<Element<16>>();
  }
  EMBER_ASSERT(false, "element size ", size);
}

// The host name Gloo listens on: GLOO_SOCKET_IFNAME's interface when set, else this machine's
// name if it resolves, else the loopback address (a single machine).
gloo::transport::tcp::attr device_attr() {
  gloo::transport::tcp::attr attr;
  if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface) {
    attr.iface = iface;
    return attr;
  }
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (::getaddrinfo(name, nullptr, &hints, &res) == 0) {
      ::freeaddrinfo(res);
      attr.hostname = name;
      return attr;
    }
  }
  attr.hostname = "127.0.0.1";
  return attr;
}

// One Gloo device (its listening socket and event loop thread) serves every group of a process.
std::shared_ptr<gloo::transport::Device> device() {
  static std::mutex mutex;
  static std::shared_ptr<gloo::transport::Device> dev;
  std::lock_guard lock(mutex);
  if (!dev) {
    try {
      dev = gloo::transport::tcp::CreateDevice(device_attr());
    } catch (const std::exception& e) {
      EMBER_FAIL("[init_process_group] Gloo could not open a TCP device: ", e.what(),
                 " (set GLOO_SOCKET_IFNAME to the network interface to use)");
    }
  }
  return dev;
}

std::string this_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

// ---- the group -----------------------------------------------------------------------------

class P2PWork final : public RecvWork {
 public:
  P2PWork(std::unique_ptr<gloo::transport::UnboundBuffer> buf,
          bool is_recv,
          Tensor tensor,
          Tensor staging,
          std::function<std::string(const std::exception&)> describe,
          Millis timeout)
      : buf_(std::move(buf)),
        is_recv_(is_recv),
        tensor_(std::move(tensor)),
        staging_(std::move(staging)),
        describe_(std::move(describe)),
        timeout_(timeout) {
    set_outputs({tensor_});
  }

  void wait(Millis timeout) override {
    {
      std::lock_guard lock(mutex_);
      if (done_) {
        if (error_) std::rethrow_exception(error_);
        return;
      }
    }
    const Millis t = timeout.count() < 0 ? timeout_ : timeout;
    std::exception_ptr error;
    try {
      int rank = -1;
      const bool ok = is_recv_ ? buf_->waitRecv(&rank, t) : buf_->waitSend(&rank, t);
      if (!ok) throw std::runtime_error("aborted");
      source_ = rank;
      if (staging_.defined()) {
        NoGradGuard no_grad;
        tensor_.copy_(staging_);
      }
    } catch (const std::exception& e) {
      try {
        EMBER_FAIL(describe_(e));
      } catch (...) {
        error = std::current_exception();
      }
    }
    finish(error);
    if (error) std::rethrow_exception(error);
  }

 private:
  std::unique_ptr<gloo::transport::UnboundBuffer> buf_;
  bool is_recv_;
  Tensor tensor_, staging_;
  std::function<std::string(const std::exception&)> describe_;
  Millis timeout_;
};

class ProcessGroupGloo final : public ProcessGroup {
 public:
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, ProcessGroupOptions options)
      : ProcessGroup(rank, size), store_(std::move(store)), options_(options) {
    EMBER_CHECK_VALUE(size > 0 && rank >= 0 && rank < size, "[ProcessGroupGloo] rank ", rank,
                      " is not in [0, world_size = ", size, ")");
    if (const char* v = std::getenv("EMBER_DISTRIBUTED_CHECKS"); v && std::string(v) == "0") {
      options_.check_signatures = false;
    }
    // Who is who, for error messages: each rank's host and pid.
    store_->set("proc/" + std::to_string(rank), this_host() + "\n" + std::to_string(::getpid()));
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options_.timeout);
    GlooStore gloo_store(store_);
    try {
      auto dev = device();
      context->connectFullMesh(gloo_store, dev);
    } catch (const ember::Error&) {
      throw;
    } catch (const std::exception& e) {
      EMBER_FAIL("[init_process_group] rank ", rank, " could not connect to its ", size - 1,
                 " peers: ", e.what());
    }
    context_ = context;
    peers_.resize(size_t(size));
    for (int r = 0; r < size; ++r) {
      const std::string s = store_->get_string("proc/" + std::to_string(r));
      const auto nl = s.find('\n');
      peers_[size_t(r)] = {s.substr(0, nl), std::atoi(s.c_str() + nl + 1)};
    }
    worker_ = std::thread([this] { loop(); });
  }

  ~ProcessGroupGloo() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  std::string backend() const override { return "gloo"; }
  Millis timeout() const override { return options_.timeout; }

  std::shared_ptr<Work> allreduce(Tensor t, ReduceOp op) override {
    check_tensor(t, "all_reduce");
    Func fn = reduction(t.dtype(), op, "all_reduce");
    if (op == ReduceOp::Avg) divide_check(t, "all_reduce");
    const bool small = size_ > 1 && options_.check_signatures && t.nbytes() <= kSmallAllreduceBytes;
    const Signature sig{t.dtype(), t.numel(), int(op), small};
    return enqueue("all_reduce", sig, {t}, [this, t, op, fn, sig, small](uint32_t tag) mutable {
      Tensor c = t.contiguous();
      if (small) {
        small_allreduce(c, sig, fn, tag);
      } else {
        reduce_all(c, fn, tag);
      }
      if (op == ReduceOp::Avg) divide(c, size_);
      write_back(t, c);
    });
  }

  std::shared_ptr<Work> broadcast(Tensor t, int root) override {
    check_tensor(t, "broadcast");
    check_rank(root, "broadcast", "src");
    return enqueue("broadcast", {t.dtype(), t.numel(), root}, {t},
                   [this, t, root](uint32_t tag) mutable {
                     Tensor c = t.contiguous();
                     if (size_ > 1 && c.numel() > 0) {
                       gloo::BroadcastOptions opts(context_);
                       with_element(c.element_size(), [&]<class E>() {
                         opts.setOutput<E>(static_cast<E*>(c.data_ptr()), size_t(c.numel()));
                       });
                       opts.setRoot(root);
                       opts.setTag(tag);
                       gloo::broadcast(opts);
                     }
                     write_back(t, c);
                   });
  }

  std::shared_ptr<Work> reduce(Tensor t, int root, ReduceOp op) override {
    check_tensor(t, "reduce");
    check_rank(root, "reduce", "dst");
    Func fn = reduction(t.dtype(), op, "reduce");
    if (op == ReduceOp::Avg) divide_check(t, "reduce");
    return enqueue("reduce", {t.dtype(), t.numel(), root * 16 + int(op)}, {t},
                   [this, t, root, op, fn](uint32_t tag) mutable {
                     Tensor c = t.contiguous();
                     if (size_ > 1 && c.numel() > 0) {
                       gloo::ReduceOptions opts(context_);
                       with_element(c.element_size(), [&]<class E>() {
                         opts.setOutput<E>(static_cast<E*>(c.data_ptr()), size_t(c.numel()));
                       });
                       opts.setRoot(root);
                       opts.setReduceFunction(fn);
                       opts.setTag(tag);
                       gloo::reduce(opts);
                     }
                     if (op == ReduceOp::Avg && rank_ == root) divide(c, size_);
                     write_back(t, c);
                   });
  }

  std::shared_ptr<Work> allgather(TensorList outputs, Tensor input) override {
    check_tensor(input, "all_gather");
    EMBER_CHECK_VALUE(int(outputs.size()) == size_, "[all_gather] expected ", size_,
                      " output tensors (the world size), got ", outputs.size());
    for (auto& o : outputs) check_like(o, input, "all_gather");
    return enqueue("all_gather", {input.dtype(), input.numel(), 0}, outputs,
                   [this, outputs, input](uint32_t tag) mutable {
                     Tensor flat =
                         empty({int64_t(size_) * input.numel()}, TensorOptions(input.dtype()));
                     gather_all(flat, input.contiguous(), tag);
                     split_into(outputs, flat, input);
                   });
  }

  std::shared_ptr<Work> allgather_into_tensor(Tensor output, Tensor input) override {
    check_tensor(input, "all_gather_into_tensor");
    check_tensor(output, "all_gather_into_tensor");
    EMBER_CHECK_VALUE(output.numel() == input.numel() * size_ && output.dtype() == input.dtype(),
                      "[all_gather_into_tensor] output must hold world_size (", size_,
                      ") times the input's ", input.numel(), " elements of ", input.dtype(),
                      ", got ", output.numel(), " elements of ", output.dtype());
    return enqueue("all_gather_into_tensor", {input.dtype(), input.numel(), 0}, {output},
                   [this, output, input](uint32_t tag) mutable {
                     Tensor c = output.contiguous();
                     gather_all(c, input.contiguous(), tag);
                     write_back(output, c);
                   });
  }

  std::shared_ptr<Work> gather(TensorList outputs, Tensor input, int root) override {
    check_tensor(input, "gather");
    check_rank(root, "gather", "dst");
    check_root_list(outputs, input, root, "gather", "gather_list", "destination");
    return enqueue("gather", {input.dtype(), input.numel(), root}, outputs,
                   [this, outputs, input, root](uint32_t tag) mutable {
                     Tensor in = input.contiguous();
                     Tensor flat;
                     gloo::GatherOptions opts(context_);
                     with_element(in.element_size(), [&]<class E>() {
                       opts.setInput<E>(static_cast<E*>(in.data_ptr()), size_t(in.numel()));
                       if (rank_ == root) {
                         flat = empty({int64_t(size_) * in.numel()}, TensorOptions(in.dtype()));
                         opts.setOutput<E>(static_cast<E*>(flat.data_ptr()), size_t(flat.numel()));
                       }
                     });
                     opts.setRoot(root);
                     opts.setTag(tag);
                     if (in.numel() > 0) gloo::gather(opts);
                     if (rank_ != root) return;
                     split_into(outputs, flat, in);
                   });
  }

  std::shared_ptr<Work> scatter(Tensor output, TensorList inputs, int root) override {
    check_tensor(output, "scatter");
    check_rank(root, "scatter", "src");
    check_root_list(inputs, output, root, "scatter", "scatter_list", "source");
    return enqueue("scatter", {output.dtype(), output.numel(), root}, {output},
                   [this, output, inputs, root](uint32_t tag) mutable {
                     Tensor out = output.contiguous();
                     TensorList ins;
                     for (auto& i : inputs) ins.push_back(i.contiguous());
                     gloo::ScatterOptions opts(context_);
                     with_element(out.element_size(), [&]<class E>() {
                       opts.setOutput<E>(static_cast<E*>(out.data_ptr()), size_t(out.numel()));
                       if (rank_ == root) {
                         std::vector<E*> ptrs;
                         for (auto& i : ins) ptrs.push_back(static_cast<E*>(i.data_ptr()));
                         opts.setInputs<E>(ptrs, size_t(out.numel()));
                       }
                     });
                     opts.setRoot(root);
                     opts.setTag(tag);
                     if (out.numel() > 0) gloo::scatter(opts);
                     write_back(output, out);
                   });
  }

  std::shared_ptr<Work> reduce_scatter_tensor(Tensor output, Tensor input, ReduceOp op) override {
    check_tensor(input, "reduce_scatter_tensor");
    check_tensor(output, "reduce_scatter_tensor");
    EMBER_CHECK_VALUE(input.numel() == output.numel() * size_ && output.dtype() == input.dtype(),
                      "[reduce_scatter_tensor] input must hold world_size (", size_,
                      ") times the output's ", output.numel(), " elements of ", output.dtype(),
                      ", got ", input.numel(), " elements of ", input.dtype());
    Func fn = reduction(input.dtype(), op, "reduce_scatter_tensor");
    if (op == ReduceOp::Avg) divide_check(input, "reduce_scatter_tensor");
    // An all-reduce of a copy, keeping this rank's chunk: twice the traffic of a ring
    // reduce-scatter, but one algorithm less to get right (Gloo 0.5 has no reduce-scatter of
    // unbound buffers).
    return enqueue("reduce_scatter_tensor", {output.dtype(), output.numel(), int(op)}, {output},
                   [this, output, input, op, fn](uint32_t tag) mutable {
                     Tensor c = clone(input.contiguous());
                     reduce_all(c, fn, tag);
                     Tensor mine =
                         c.reshape({-1}).narrow(0, rank_ * output.numel(), output.numel());
                     if (op == ReduceOp::Avg) divide(mine, size_);
                     NoGradGuard no_grad;
                     output.copy_(mine.view(output.sizes()));
                   });
  }

  std::shared_ptr<Work> alltoall_base(Tensor output,
                                      Tensor input,
                                      std::vector<int64_t> output_splits,
                                      std::vector<int64_t> input_splits) override {
    check_tensor(input, "all_to_all_single");
    check_tensor(output, "all_to_all_single");
    EMBER_CHECK_VALUE(input.dtype() == output.dtype(), "[all_to_all_single] input is ",
                      input.dtype(), " but output is ", output.dtype());
    const auto row = [](const Tensor& t) {
      return t.dim() == 0 ? int64_t(1) : (t.size(0) == 0 ? 0 : t.numel() / t.size(0));
    };
    const auto elements = [&](std::vector<int64_t> splits, const Tensor& t, const char* what) {
      if (splits.empty()) {
        EMBER_CHECK_VALUE(t.dim() > 0 && t.size(0) % size_ == 0, "[all_to_all_single] ", what,
                          "'s first dimension (", t.dim() ? t.size(0) : 0,
                          ") must divide by the world size ", size_, " without splits");
        splits.assign(size_t(size_), t.size(0) / size_);
      }
      EMBER_CHECK_VALUE(int(splits.size()) == size_, "[all_to_all_single] ", what,
                        "_split_sizes has ", splits.size(), " entries, expected ", size_);
      int64_t total = 0;
      for (auto& s : splits) total += s;
      EMBER_CHECK_VALUE(total == (t.dim() ? t.size(0) : 1), "[all_to_all_single] ", what,
                        "_split_sizes sum to ", total, " but the ", what, " has ",
                        (t.dim() ? t.size(0) : 1), " rows");
      for (auto& s : splits) s *= row(t);
      return splits;
    };
    auto in_elems = elements(std::move(input_splits), input, "input");
    auto out_elems = elements(std::move(output_splits), output, "output");
    return enqueue("all_to_all_single", {input.dtype(), 0, 0}, {output},
                   [this, output, input, in_elems, out_elems](uint32_t tag) mutable {
                     Tensor in = input.contiguous(), out = output.contiguous();
                     if (size_ > 1) check_splits(in_elems, out_elems, tag);
                     gloo::AlltoallvOptions opts(context_);
                     with_element(in.element_size(), [&]<class E>() {
                       opts.setInput<E>(static_cast<E*>(in.data_ptr()), in_elems);
                       opts.setOutput<E>(static_cast<E*>(out.data_ptr()), out_elems);
                     });
                     opts.setTag(tag);
                     gloo::alltoallv(opts);
                     write_back(output, out);
                   });
  }

  std::shared_ptr<Work> barrier() override {
    return enqueue("barrier", {kBool, 0, 0}, {}, [this](uint32_t tag) {
      if (size_ == 1) return;
      gloo::BarrierOptions opts(context_);
      opts.setTag(tag);
      gloo::barrier(opts);
    });
  }

  std::shared_ptr<Work> send(Tensor t, int dst, int tag) override {
    check_tensor(t, "send");
    check_rank(dst, "send", "dst");
    EMBER_CHECK_VALUE(dst != rank_, "[send] a rank cannot send to itself (dst = rank = ", dst, ")");
    Tensor c = t.contiguous();
    auto buf = context_->createUnboundBuffer(c.data_ptr(), c.nbytes());
    try {
      buf->send(dst, p2p_slot(tag));
    } catch (const std::exception& e) {
      EMBER_FAIL(describe("send", e));
    }
    return std::make_shared<P2PWork>(
        std::move(buf), false, c, Tensor(),
        [this](const std::exception& e) { return describe("send", e); }, options_.timeout);
  }

  std::shared_ptr<Work> recv(Tensor t, int src, int tag) override {
    check_tensor(t, "recv");
    if (src >= 0) {
      check_rank(src, "recv", "src");
      EMBER_CHECK_VALUE(src != rank_,
                        "[recv] a rank cannot receive from itself (src = rank = ", src, ")");
    }
    Tensor c = t.contiguous();
    Tensor staging = c.is_same(t) ? Tensor() : c;
    auto buf = context_->createUnboundBuffer(c.data_ptr(), c.nbytes());
    try {
      if (src >= 0) {
        buf->recv(src, p2p_slot(tag));
      } else {
        std::vector<int> others;
        for (int r = 0; r < size_; ++r)
          if (r != rank_) others.push_back(r);
        buf->recv(others, p2p_slot(tag));
      }
    } catch (const std::exception& e) {
      EMBER_FAIL(describe("recv", e));
    }
    return std::make_shared<P2PWork>(
        std::move(buf), true, t, staging,
        [this](const std::exception& e) { return describe("recv", e); }, options_.timeout);
  }

 private:
  // What every rank must agree on before a collective moves data: which collective, the dtype,
  // the element count and the root or reduce op. Gloo would otherwise abort the whole process
  // (an enforce in its I/O thread) when a message is longer than the buffer posted for it.
  struct Signature {
    DType dtype;
    int64_t numel;
    int64_t extra;               // root, reduce op
    bool checks_itself = false;  // the collective compares signatures itself (small_allreduce)
  };
  // All-reduces up to this size take small_allreduce's single exchange.
  static constexpr size_t kSmallAllreduceBytes = 4096;

  struct Task {
    const char* name;
    Signature sig;
    std::function<void(uint32_t)> fn;
    std::shared_ptr<Work> work;
  };

  std::shared_ptr<Work> enqueue(const char* name,
                                Signature sig,
                                TensorList outputs,
                                std::function<void(uint32_t)> fn) {
    auto work = std::make_shared<Work>();
    work->set_outputs(std::move(outputs));
    {
      std::lock_guard lock(mutex_);
      queue_.push_back({name, sig, std::move(fn), work});
    }
    cv_.notify_one();
    return work;
  }

  void loop() {
    NoGradGuard no_grad;  // grad mode is per thread; collectives write tensors in place
    for (;;) {
      Task task;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      std::exception_ptr error;
      if (!broken_.empty()) {
        // After a failure the connections are in an unknown state: later collectives fail too,
        // with the first error, instead of exchanging bytes with the wrong operation.
        try {
          EMBER_FAIL("[", task.name,
                     "] the process group failed earlier and cannot be used: ", broken_);
        } catch (...) {
          error = std::current_exception();
        }
      } else {
        try {
          // Two tags per collective on every rank, whichever path it takes: the signature
          // exchange's and the collective's. A collective that checks itself (small_allreduce)
          // exchanges under the first, where the other ranks' check_signature does.
          const uint32_t check_tag = next_tag_++, op_tag = next_tag_++;
          check_signature(task, check_tag);
          task.fn(task.sig.checks_itself ? check_tag : op_tag);
        } catch (const ember::Error&) {
          error = std::current_exception();
        } catch (const std::exception& e) {
          const std::string msg = describe(task.name, e);
          broken_ = msg;
          try {
            EMBER_FAIL(msg);
          } catch (...) {
            error = std::current_exception();
          }
        }
      }
      task.work->finish(error);
    }
  }

  // Compares the task's signature across ranks (exchange_slots) and fails, on every rank alike,
  // when they differ; the group stays usable.
  void check_signature(const Task& task, uint32_t tag) {
    if (size_ == 1 || !options_.check_signatures || task.sig.checks_itself) return;
    exchange_slots(task.name, task.sig, nullptr, 0, tag);
  }

  // Every rank all-gathers a slot of the same fixed size: its header, then up to
  // kSmallAllreduceBytes of data (small_allreduce's). One size for every collective, so that
  // ranks that disagree on what they are doing still exchange the same number of bytes and learn
  // it here, instead of Gloo aborting on a longer message than it expected. Fails on a mismatch;
  // returns the slots (slot_words() words each).
  std::vector<uint64_t> exchange_slots(
      const char* name, const Signature& sig, const void* data, size_t nbytes, uint32_t tag) {
    std::vector<uint64_t> mine(slot_words()), all(slot_words() * size_t(size_));
    const auto h = header(name, sig);
    std::copy(h.begin(), h.end(), mine.begin());
    if (nbytes) std::memcpy(mine.data() + h.size(), data, nbytes);
    gloo::AllgatherOptions opts(context_);
    opts.setInput<uint64_t>(mine.data(), mine.size());
    opts.setOutput<uint64_t>(all.data(), all.size());
    opts.setTag(tag);
    gloo::allgather(opts);
    compare_headers(name, sig, all.data(), slot_words());
    return all;
  }
  static constexpr size_t slot_words() { return 4 + kSmallAllreduceBytes / 8; }

  // A collective's signature as the ranks compare it: a hash of its name, the dtype, the element
  // count, the root or reduce op.
  static std::array<uint64_t, 4> header(const char* name, const Signature& sig) {
    uint64_t name_hash = 1469598103934665603ull;  // FNV-1a: the same on every build
    for (const char* c = name; *c; ++c) name_hash = (name_hash ^ uint8_t(*c)) * 1099511628211ull;
    return {name_hash, uint64_t(sig.dtype), uint64_t(sig.numel), uint64_t(sig.extra)};
  }

  // Fails, naming the first rank that differs, unless every rank's header (found every `stride`
  // words of `all`) is this rank's.
  void compare_headers(const char* name,
                       const Signature& sig,
                       const uint64_t* all,
                       size_t stride) const {
    const std::array<uint64_t, 4> mine = header(name, sig);
    for (int r = 0; r < size_; ++r) {
      const uint64_t* theirs = all + stride * size_t(r);
      if (std::equal(mine.begin(), mine.end(), theirs)) continue;
      if (theirs[0] != mine[0]) {
        EMBER_FAIL("[", name, "] rank ", rank_, " called ", name, " while rank ", r,
                   " called a different collective: every rank must call the same collectives "
                   "in the same order");
      }
      if (theirs[1] != mine[1] || theirs[2] != mine[2]) {
        EMBER_FAIL("[", name, "] mismatched tensors across ranks: rank ", rank_, " has ", sig.numel,
                   " elements of ", sig.dtype, ", rank ", r, " has ", int64_t(theirs[2]),
                   " elements of ", DType(theirs[1]));
      }
      EMBER_FAIL("[", name, "] ranks disagree on the root rank or reduce op: rank ", rank_,
                 " passed ", sig.extra, ", rank ", r, " passed ", int64_t(theirs[3]));
    }
  }

  // A small all-reduce in one exchange: the data rides in the signature slots, and every rank
  // reduces the slots in rank order (the same operations everywhere, so the same bits). The check
  // then costs no extra round trip.
  void small_allreduce(Tensor& c, const Signature& sig, const Func& fn, uint32_t tag) {
    const std::vector<uint64_t> all =
        exchange_slots("all_reduce", sig, c.data_ptr(), c.nbytes(), tag);
    auto payload = [&](int r) { return all.data() + slot_words() * size_t(r) + 4; };
    std::memcpy(c.data_ptr(), payload(0), c.nbytes());
    for (int r = 1; r < size_; ++r) fn(c.data_ptr(), c.data_ptr(), payload(r), size_t(c.numel()));
  }

  // all_to_all_single: what rank j sends to rank i must be what rank i expects from rank j (the
  // send counts of every rank are exchanged first; a mismatch would abort the process in Gloo).
  void check_splits(std::vector<int64_t> sends,
                    const std::vector<int64_t>& receives,
                    uint32_t tag) {
    std::vector<int64_t> all(size_t(size_) * size_t(size_));
    gloo::AllgatherOptions opts(context_);
    opts.setInput<int64_t>(sends.data(), sends.size());
    opts.setOutput<int64_t>(all.data(), all.size());
    opts.setTag(tag);
    gloo::allgather(opts);
    for (int j = 0; j < size_; ++j) {
      const int64_t sent = all[size_t(j) * size_t(size_) + size_t(rank_)];
      EMBER_CHECK(sent == receives[size_t(j)], "[all_to_all_single] rank ", j, " sends ", sent,
                  " elements to rank ", rank_, ", which expects ", receives[size_t(j)],
                  " (output_split_sizes must match the peers' input_split_sizes)");
    }
  }

  // What a Gloo failure means, in words: the operation, this rank, and any peer on this machine
  // that has exited or is stopped.
  std::string describe(const char* op, const std::exception& e) {
    std::ostringstream os;
    os << "[" << op << "] rank " << rank_ << " of " << size_ << " (gloo) failed: ";
    const std::string host = this_host();
    const std::string what = e.what();
    const bool timed_out =
        what.find("imed out") != std::string::npos || what.find("imeout") != std::string::npos;
    std::vector<std::string> found;
    // A peer's sockets close while it exits, a moment before it shows as exited: a lost
    // connection looks again for up to half a second.
    for (int attempt = 0; attempt < (timed_out ? 1 : 50) && found.empty(); ++attempt) {
      if (attempt) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      for (int r = 0; r < size_; ++r) {
        if (r == rank_ || peers_[size_t(r)].host != host) continue;
        const std::string state = process_state(peers_[size_t(r)].pid);
        if (!state.empty()) found.push_back("peer rank " + std::to_string(r) + " " + state);
      }
    }
    if (!found.empty()) {
      for (size_t i = 0; i < found.size(); ++i) os << (i ? ", " : "") << found[i];
    } else {
      if (timed_out) {
        os << "timed out after " << options_.timeout.count() << " ms waiting for a peer";
      } else {
        os << "lost the connection to a peer";
      }
      if (size_ == 2) os << " (rank " << 1 - rank_ << ")";  // the only peer there is
    }
    os << ". Every rank must call the same collectives in the same order with tensors of the "
          "same shape and dtype. Gloo: "
       << what;
    return os.str();
  }

  // "has exited" or "is stopped" for a process of this machine, "" when it runs normally.
  static std::string process_state(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    if (!stat) return "has exited";
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size()) return "";
    const char state = line[close + 2];
    if (state == 'Z' || state == 'X') return "has exited";
    if (state == 'T' || state == 't') return "is stopped";
    return "";
  }

  void check_tensor(const Tensor& t, const char* op) const {
    EMBER_CHECK_VALUE(t.defined(), "[", op, "] expected a tensor, got None");
    EMBER_CHECK(t.device().is_cpu(), "[", op, "] the gloo backend takes CPU tensors, got one on ",
                t.device(), " (NCCL for CUDA tensors is not built in this ember)");
  }
  void check_like(const Tensor& t, const Tensor& like, const char* op) const {
    check_tensor(t, op);
    EMBER_CHECK_VALUE(t.sizes() == like.sizes() && t.dtype() == like.dtype(), "[", op,
                      "] every tensor must match the input's shape ", like.sizes(), " and dtype ",
                      like.dtype(), ", got ", t.sizes(), " and ", t.dtype());
  }
  // gather's and scatter's list: world-size tensors like `like` on the root, none elsewhere.
  void check_root_list(const TensorList& list,
                       const Tensor& like,
                       int root,
                       const char* op,
                       const char* name,
                       const char* role) const {
    if (rank_ == root) {
      EMBER_CHECK_VALUE(int(list.size()) == size_, "[", op, "] expected ", size_, " tensors in ",
                        name, " on the ", role, " rank, got ", list.size());
      for (auto& t : list) check_like(t, like, op);
    } else {
      EMBER_CHECK_VALUE(list.empty(), "[", op, "] ", name, " must be given on the ", role,
                        " rank only");
    }
  }
  void check_rank(int r, const char* op, const char* what) const {
    EMBER_CHECK_VALUE(r >= 0 && r < size_, "[", op, "] ", what, " rank ", r,
                      " is not in the group (size ", size_, ")");
  }
  static void divide_check(const Tensor& t, const char* op) {
    EMBER_CHECK_VALUE(is_differentiable(t.dtype()), "[", op,
                      "] ReduceOp.AVG needs a floating point or complex tensor, got ", t.dtype());
  }
  // A collective ran on a contiguous copy of a strided tensor: the result goes back.
  static void write_back(Tensor& t, const Tensor& c) {
    if (c.is_same(t)) return;
    NoGradGuard no_grad;
    t.copy_(c);
  }
  // Gloo's ring all-reduce of a contiguous tensor, in place.
  void reduce_all(Tensor& c, const Func& fn, uint32_t tag) {
    if (size_ == 1 || c.numel() == 0) return;
    gloo::AllreduceOptions opts(context_);
    with_element(c.element_size(), [&]<class E>() {
      opts.setOutput<E>(static_cast<E*>(c.data_ptr()), size_t(c.numel()));
    });
    opts.setReduceFunction(fn);
    opts.setTag(tag);
    gloo::allreduce(opts);
  }
  // The world-size chunks of `flat` into `outputs`, each shaped like `like`.
  void split_into(TensorList& outputs, const Tensor& flat, const Tensor& like) {
    NoGradGuard no_grad;
    for (int r = 0; r < size_; ++r) {
      outputs[size_t(r)].copy_(flat.narrow(0, r * like.numel(), like.numel()).view(like.sizes()));
    }
  }
  void gather_all(Tensor& flat, const Tensor& in, uint32_t tag) {
    if (size_ == 1 || in.numel() == 0) {
      NoGradGuard no_grad;
      if (in.numel() > 0) flat.reshape({-1}).copy_(in.reshape({-1}));
      return;
    }
    gloo::AllgatherOptions opts(context_);
    with_element(in.element_size(), [&]<class E>() {
      opts.setInput<E>(static_cast<E*>(in.data_ptr()), size_t(in.numel()));
      opts.setOutput<E>(static_cast<E*>(flat.data_ptr()), size_t(flat.numel()));
    });
    opts.setTag(tag);
    gloo::allgather(opts);
  }
  static uint64_t p2p_slot(int tag) {
    // Gloo's collectives use slot prefixes 0x01..0x08; point-to-point messages get their own.
    return gloo::Slot::build(0x10, uint32_t(tag));
  }

  struct Peer {
    std::string host;
    int pid;
  };

  std::shared_ptr<Store> store_;
  ProcessGroupOptions options_;
  std::shared_ptr<gloo::Context> context_;
  std::vector<Peer> peers_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  bool stop_ = false;
  std::string broken_;  // the first failure's message (worker thread only)
  uint32_t next_tag_ = 1;
  std::thread worker_;
};

}  // namespace

std::shared_ptr<ProcessGroup> make_process_group_gloo(std::shared_ptr<Store> store,
                                                      int rank,
                                                      int size,
                                                      ProcessGroupOptions options) {
  return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, options);
}

}  // namespace ember::distributed
