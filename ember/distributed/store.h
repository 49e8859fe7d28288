// Key-value stores for rendezvous (docs/design/distributed.md): the processes of a job find each
// other through one store, exchange their Gloo addresses, and count themselves in.
//
// Store is PyTorch's c10d::Store: set/get/add/compare_set/check/delete_key/num_keys/wait, where
// get and wait block until the keys exist or the store's timeout passes (a RuntimeError naming
// the keys, never a hang). Four kinds, as PyTorch's:
//   TCPStore    one process (rank 0) serves, every process is a client: ember's own small
//               server, one thread polling its sockets (tcp_store.cpp);
//   FileStore   a file on a shared filesystem, locked per operation;
//   HashStore   in this process only (tests, threads);
//   PrefixStore another store's keys under "prefix/" (one per process group).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ember::distributed {

using Bytes = std::vector<uint8_t>;
using Millis = std::chrono::milliseconds;

// PyTorch's default store timeout: five minutes.
inline constexpr Millis kDefaultStoreTimeout{300'000};

class Store {
 public:
  explicit Store(Millis timeout = kDefaultStoreTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // Waits up to timeout() for the key to exist.
  virtual Bytes get(const std::string& key) = 0;
  // Adds `delta` to the integer stored at key (0 when missing, kept as decimal text as PyTorch
  // does) and returns the sum.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Sets key to `desired` when its value is `expected` (or when it is missing and `expected` is
  // empty); returns the value it holds afterwards.
  virtual Bytes compare_set(const std::string& key,
                            const Bytes& expected,
                            const Bytes& desired) = 0;
  virtual bool check(const std::vector<std::string>& keys) = 0;  // all exist, without waiting
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  virtual void wait(const std::vector<std::string>& keys, Millis timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

  void set(const std::string& key, const std::string& value) {
    set(key, Bytes(value.begin(), value.end()));
  }
  std::string get_string(const std::string& key) {
    Bytes b = get(key);
    return std::string(b.begin(), b.end());
  }

  Millis timeout() const { return timeout_; }
  void set_timeout(Millis timeout) { timeout_ = timeout; }

 protected:
  Millis timeout_;
};

// The table every store keeps (in memory, in a file, in the TCP server): one implementation of
// the operations' semantics, so that the stores cannot disagree on them.
struct KeyValueTable {
  std::map<std::string, Bytes> data;

  void set(const std::string& key, const Bytes& value) { data[key] = value; }
  int64_t add(const std::string& key, int64_t delta);
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired);
  bool has(const std::string& key) const { return data.count(key) != 0; }
  bool has_all(const std::vector<std::string>& keys) const;
  bool erase(const std::string& key) { return data.erase(key) != 0; }
  // Serialised form (FileStore): [u32 key length, key, u32 value length, value]...
  Bytes encode() const;
  static KeyValueTable decode(const Bytes& bytes, const std::string& where);
};

// The error for keys that did not appear within the timeout.
[[noreturn]] void fail_wait_timeout(const char* store,
                                    const std::vector<std::string>& keys,
                                    Millis timeout);

class HashStore final : public Store {
 public:
  explicit HashStore(Millis timeout = kDefaultStoreTimeout) : Store(timeout) {}
  void set(const std::string& key, const Bytes& value) override;
  using Store::set;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  using Store::wait;

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  KeyValueTable table_;
};

// Every operation locks the file (flock), reads the table, and writes it back when it changed.
// Processes that share the path share the store; the last of `world_size` users to close it
// removes the file (PyTorch's rule), so a path can be reused by the next run.
class FileStore final : public Store {
 public:
  FileStore(std::string path, int world_size = -1, Millis timeout = kDefaultStoreTimeout);
  ~FileStore() override;
  void set(const std::string& key, const Bytes& value) override;
  using Store::set;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  using Store::wait;
  const std::string& path() const { return path_; }

 private:
  // Runs f(table) with the file locked; writes the table back when f returns true.
  template <class F>
  KeyValueTable locked(F&& f);
  std::string path_;
  int fd_ = -1;
  int world_size_;
};

class PrefixStore final : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const Bytes& value) override;
  using Store::set;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  using Store::wait;
  const std::shared_ptr<Store>& underlying() const { return store_; }

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::vector<std::string> keys(const std::vector<std::string>& ks) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

// A store served over TCP by one process (is_master) to all of them. The server is a thread in
// the master process; each TCPStore object is also a client with one connection. With
// `world_size` > 0 and wait_for_workers, the master's constructor returns once that many
// clients have connected (PyTorch's behaviour); a client gives up connecting after the timeout.
class TCPStore final : public Store {
 public:
  TCPStore(std::string host,
           int port,
           int world_size = -1,
           bool is_master = false,
           Millis timeout = kDefaultStoreTimeout,
           bool wait_for_workers = true);
  ~TCPStore() override;
  void set(const std::string& key, const Bytes& value) override;
  using Store::set;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  using Store::wait;

  const std::string& host() const { return host_; }
  int port() const { return port_; }  // the bound port when constructed with port 0

  class Server;

 private:
  // Sends one request and reads its reply; `wait_ms` is how long the server may park it.
  Bytes request(const Bytes& message, Millis wait_ms);
  std::string host_;
  int port_;
  std::unique_ptr<Server> server_;
  std::mutex mutex_;  // one request at a time on the connection
  int fd_ = -1;
};

}  // namespace ember::distributed
