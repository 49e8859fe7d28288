// TCPStore: ember's own key-value server and client (store.h). Small on purpose: a request is
// one message, a reply is [u8 status][u32 length][payload], and a request that must wait (get,
// wait) is parked on the server until its keys exist or its deadline passes, so a client never
// polls and the server alone decides timeouts.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "ember/core/error.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

namespace {

using Clock = std::chrono::steady_clock;

enum Op : uint8_t { kSet = 1, kGet, kAdd, kCompareSet, kCheck, kDelete, kNumKeys, kWait };
enum Status : uint8_t { kOk = 0, kTimeout = 1 };

// The key every client adds 1 to when it connects; the master waits for world_size of them.
const char* kWorkersKey = "__ember_tcpstore_workers__";
const char* kWorkersDoneKey = "__ember_tcpstore_workers_done__";

void put_u32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
void put_bytes(Bytes& b, const uint8_t* p, size_t n) {
  put_u32(b, uint32_t(n));
  b.insert(b.end(), p, p + n);
}
void put_str(Bytes& b, const std::string& s) {
  put_bytes(b, reinterpret_cast<const uint8_t*>(s.data()), s.size());
}
void put_i64(Bytes& b, int64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(uint8_t(uint64_t(v) >> (8 * i)));
}

// Reads fields from a received buffer; every read fails softly (ok() false) when the message is
// not complete yet.
struct Reader {
  const Bytes& b;
  size_t pos = 0;
  bool ok = true;
  uint32_t u32() {
    if (pos + 4 > b.size()) return ok = false, 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(b[pos + i]) << (8 * i);
    pos += 4;
    return v;
  }
  int64_t i64() {
    if (pos + 8 > b.size()) return ok = false, 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(b[pos + i]) << (8 * i);
    pos += 8;
    return int64_t(v);
  }
  Bytes bytes() {
    uint32_t n = u32();
    if (!ok || pos + n > b.size()) return ok = false, Bytes{};
    Bytes v(b.begin() + long(pos), b.begin() + long(pos + n));
    pos += n;
    return v;
  }
  std::string str() {
    Bytes v = bytes();
    return std::string(v.begin(), v.end());
  }
};

bool send_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

Bytes reply(Status status, const Bytes& payload = {}) {
  Bytes b{status};
  put_bytes(b, payload.data(), payload.size());
  return b;
}

Bytes i64_bytes(int64_t v) {
  Bytes b;
  put_i64(b, v);
  return b;
}

}  // namespace

// ---- the server ------------------------------------------------------------------------------

class TCPStore::Server {
 public:
  // Binds host:port (port 0: any free port) and starts serving.
  Server(const std::string& host, int port) {
    listen_fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool v6 = listen_fd_ >= 0;
    if (!v6) listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EMBER_CHECK(listen_fd_ >= 0, "[TCPStore] cannot create a socket: ", std::strerror(errno));
    int one = 1, zero = 0;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_storage addr{};
    socklen_t len;
    if (v6) {
      ::setsockopt(listen_fd_, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);  // v4 too
      auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_any;
      a->sin6_port = htons(uint16_t(port));
      len = sizeof *a;
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&addr);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_ANY);
      a->sin_port = htons(uint16_t(port));
      len = sizeof *a;
    }
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listen_fd_, 1024) != 0) {
      const int err = errno;
      ::close(listen_fd_);
      EMBER_FAIL(
          "[TCPStore] cannot serve on ", host, ":", port, ": ", std::strerror(err),
          err == EADDRINUSE ? " (another job uses this port; pick another MASTER_PORT)" : "");
    }
    len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                     : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    EMBER_CHECK(::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) == 0, "[TCPStore] cannot create a pipe");
    thread_ = std::thread([this] { loop(); });
  }

  ~Server() {
    const uint8_t x = 1;
    (void)!::write(wake_[1], &x, 1);
    thread_.join();
    for (auto& c : clients_) ::close(c.fd);
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

  int port() const { return port_; }

 private:
  struct Client {
    int fd;
    Bytes in;
  };
  // A get or wait whose keys do not all exist yet.
  struct Parked {
    int fd;
    std::vector<std::string> keys;
    bool is_get;
    Clock::time_point deadline;
  };

  void loop() {
    std::vector<pollfd> fds;
    for (;;) {
      fds.clear();
      fds.push_back({wake_[0], POLLIN, 0});
      fds.push_back({listen_fd_, POLLIN, 0});
      for (auto& c : clients_) fds.push_back({c.fd, POLLIN, 0});
      int timeout_ms = -1;
      const auto now = Clock::now();
      for (auto& p : parked_) {
        auto ms = std::chrono::duration_cast<Millis>(p.deadline - now).count() + 1;
        ms = std::max<int64_t>(ms, 0);
        if (timeout_ms < 0 || ms < timeout_ms) timeout_ms = int(std::min<int64_t>(ms, 1 << 30));
      }
      int n = ::poll(fds.data(), fds.size(), timeout_ms);
      if (n < 0 && errno != EINTR) return;
      if (fds[0].revents) return;  // the destructor asks to stop
      if (fds[1].revents & POLLIN) accept_client();
      std::vector<int> closed;
      for (size_t i = 2; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        if (!read_client(fds[i].fd)) closed.push_back(fds[i].fd);
      }
      for (int fd : closed) drop(fd);
      expire();
    }
  }

  void accept_client() {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    clients_.push_back({fd, {}});
  }

  void drop(int fd) {
    ::close(fd);
    std::erase_if(clients_, [&](const Client& c) { return c.fd == fd; });
    std::erase_if(parked_, [&](const Parked& p) { return p.fd == fd; });
  }

  // Reads what arrived and answers every complete request; false when the client has gone.
  bool read_client(int fd) {
    auto it = std::find_if(clients_.begin(), clients_.end(), [&](auto& c) { return c.fd == fd; });
    uint8_t buf[65536];
    ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) return false;
    if (r < 0) return true;
    it->in.insert(it->in.end(), buf, buf + r);
    for (;;) {
      Reader rd{it->in};
      bool changed = false;
      Bytes out;
      if (!handle(fd, rd, &out, &changed)) break;  // incomplete: wait for more bytes
      it->in.erase(it->in.begin(), it->in.begin() + long(rd.pos));
      if (!out.empty() && !send_all(fd, out.data(), out.size())) return false;
      if (changed) wake_parked();
    }
    return true;
  }

  // One request from rd; false when it is incomplete. Sets *out to the reply (empty when parked).
  bool handle(int fd, Reader& rd, Bytes* out, bool* changed) {
    if (rd.b.empty()) return false;
    const uint8_t op = rd.b[0];
    rd.pos = 1;
    switch (op) {
      case kSet: {
        std::string key = rd.str();
        Bytes value = rd.bytes();
        if (!rd.ok) return false;
        table_.set(key, value);
        *out = reply(kOk);
        *changed = true;
        return true;
      }
      case kGet:
      case kWait: {
        uint32_t wait_ms = rd.u32();
        uint32_t n = op == kGet ? 1 : rd.u32();
        std::vector<std::string> keys;
        for (uint32_t i = 0; i < n && rd.ok; ++i) keys.push_back(rd.str());
        if (!rd.ok) return false;
        Parked p{fd, std::move(keys), op == kGet, Clock::now() + Millis(wait_ms)};
        if (!answer(p, out)) parked_.push_back(std::move(p));
        return true;
      }
      case kAdd: {
        std::string key = rd.str();
        int64_t delta = rd.i64();
        if (!rd.ok) return false;
        int64_t v;
        try {
          v = table_.add(key, delta);
        } catch (const std::exception&) {
          v = INT64_MIN;  // not an integer: the client raises
        }
        *out = reply(kOk, i64_bytes(v));
        *changed = true;
        return true;
      }
      case kCompareSet: {
        std::string key = rd.str();
        Bytes expected = rd.bytes(), desired = rd.bytes();
        if (!rd.ok) return false;
        *out = reply(kOk, table_.compare_set(key, expected, desired));
        *changed = true;
        return true;
      }
      case kCheck: {
        uint32_t n = rd.u32();
        std::vector<std::string> keys;
        for (uint32_t i = 0; i < n && rd.ok; ++i) keys.push_back(rd.str());
        if (!rd.ok) return false;
        *out = reply(kOk, Bytes{uint8_t(table_.has_all(keys))});
        return true;
      }
      case kDelete: {
        std::string key = rd.str();
        if (!rd.ok) return false;
        *out = reply(kOk, Bytes{uint8_t(table_.erase(key))});
        return true;
      }
      case kNumKeys:
        *out = reply(kOk, i64_bytes(int64_t(table_.data.size())));
        return true;
      default:
        // Not an ember client (or a corrupt stream): drop everything it sent.
        rd.pos = rd.b.size();
        return true;
    }
  }

  // The reply to a parked request whose keys all exist; false while they do not.
  bool answer(const Parked& p, Bytes* out) {
    if (!table_.has_all(p.keys)) return false;
    *out = p.is_get ? reply(kOk, table_.data.at(p.keys[0])) : reply(kOk);
    return true;
  }

  void wake_parked() {
    std::vector<Parked> still;
    for (auto& p : parked_) {
      Bytes out;
      if (answer(p, &out))
        send_all(p.fd, out.data(), out.size());
      else
        still.push_back(std::move(p));
    }
    parked_ = std::move(still);
  }

  void expire() {
    const auto now = Clock::now();
    std::erase_if(parked_, [&](const Parked& p) {
      if (p.deadline > now) return false;
      const Bytes out = reply(kTimeout);
      send_all(p.fd, out.data(), out.size());
      return true;
    });
  }

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::vector<Client> clients_;
  std::vector<Parked> parked_;
  KeyValueTable table_;
  std::thread thread_;
};

// ---- the client ----------------------------------------------------------------------------

namespace {

// Connects to host:port, retrying (the server may not be up yet) until `timeout` passes.
int connect_with_retry(const std::string& host, int port, Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string last = "no attempt";
  Millis backoff(10);
  for (;;) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const std::string service = std::to_string(port);
    int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
    if (rc != 0) {
      last = std::string("cannot resolve the host: ") + ::gai_strerror(rc);
    } else {
      for (addrinfo* a = res; a; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          ::freeaddrinfo(res);
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          return fd;
        }
        last = std::strerror(errno);
        ::close(fd);
      }
      ::freeaddrinfo(res);
    }
    if (Clock::now() + backoff > deadline) break;
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, Millis(1000));
  }
  EMBER_FAIL("[TCPStore] could not connect to the store at ", host, ":", port, " within ",
             timeout.count(), " ms (", last,
             "); is rank 0 running, and are MASTER_ADDR/MASTER_PORT right?");
}

}  // namespace

TCPStore::TCPStore(std::string host,
                   int port,
                   int world_size,
                   bool is_master,
                   Millis timeout,
                   bool wait_for_workers)
    : Store(timeout), host_(std::move(host)), port_(port) {
  EMBER_CHECK_VALUE(port >= 0 && port < 65536, "[TCPStore] port must be in [0, 65535], got ", port);
  if (is_master) {
    server_ = std::make_unique<Server>(host_, port);
    port_ = server_->port();
  } else {
    EMBER_CHECK_VALUE(port > 0, "[TCPStore] a client needs the server's port, got 0");
  }
  fd_ = connect_with_retry(is_master ? "127.0.0.1" : host_, port_, timeout);
  if (world_size > 0 && wait_for_workers) {
    if (add(kWorkersKey, 1) == world_size) set(kWorkersDoneKey, Bytes{1});
    if (is_master) wait({kWorkersDoneKey});
  }
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
  server_.reset();
}

Bytes TCPStore::request(const Bytes& message, Millis wait_ms) {
  std::lock_guard lock(mutex_);
  const std::string where = host_ + ":" + std::to_string(port_);
  EMBER_CHECK(send_all(fd_, message.data(), message.size()),
              "[TCPStore] lost the connection to the store at ", where,
              " (the process serving it, usually rank 0, may have exited)");
  // The server answers at once or at the request's deadline; a server that does neither within
  // the store's timeout more is stopped or unreachable.
  const auto deadline = Clock::now() + wait_ms + timeout_;
  Bytes in;
  size_t need = 5;
  while (in.size() < need) {
    const auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
    pollfd p{fd_, POLLIN, 0};
    int rc = left > 0 ? ::poll(&p, 1, int(std::min<int64_t>(left, 1 << 30))) : 0;
    if (rc < 0 && errno == EINTR) continue;
    EMBER_CHECK(rc > 0, "[TCPStore] the store at ", where, " did not answer within ",
                (wait_ms + timeout_).count(), " ms");
    uint8_t buf[65536];
    ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
    if (r < 0 && errno == EINTR) continue;
    EMBER_CHECK(r > 0, "[TCPStore] lost the connection to the store at ", where,
                " (the process serving it, usually rank 0, may have exited)");
    in.insert(in.end(), buf, buf + r);
    if (need == 5 && in.size() >= 5) {
      Reader rd{in};
      rd.pos = 1;
      need = 5 + rd.u32();
    }
  }
  return in;  // [status][u32 length][payload]
}

namespace {
Bytes payload(const Bytes& r) { return Bytes(r.begin() + 5, r.end()); }
}  // namespace

void TCPStore::set(const std::string& key, const Bytes& value) {
  Bytes m{kSet};
  put_str(m, key);
  put_bytes(m, value.data(), value.size());
  request(m, Millis(0));
}

Bytes TCPStore::get(const std::string& key) {
  Bytes m{kGet};
  put_u32(m, uint32_t(timeout_.count()));
  put_str(m, key);
  Bytes r = request(m, timeout_);
  if (r[0] == kTimeout) fail_wait_timeout("TCPStore", {key}, timeout_);
  return payload(r);
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  Bytes m{kAdd};
  put_str(m, key);
  put_i64(m, delta);
  Bytes p = payload(request(m, Millis(0)));
  Reader rd{p};
  const int64_t v = rd.i64();
  EMBER_CHECK(v != INT64_MIN, "[TCPStore.add] key '", key, "' does not hold an integer");
  return v;
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Bytes m{kCompareSet};
  put_str(m, key);
  put_bytes(m, expected.data(), expected.size());
  put_bytes(m, desired.data(), desired.size());
  return payload(request(m, Millis(0)));
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  Bytes m{kCheck};
  put_u32(m, uint32_t(keys.size()));
  for (const auto& k : keys) put_str(m, k);
  return payload(request(m, Millis(0))).at(0) != 0;
}

bool TCPStore::delete_key(const std::string& key) {
  Bytes m{kDelete};
  put_str(m, key);
  return payload(request(m, Millis(0))).at(0) != 0;
}

int64_t TCPStore::num_keys() {
  Bytes p = payload(request(Bytes{kNumKeys}, Millis(0)));
  Reader rd{p};
  return rd.i64();
}

void TCPStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  Bytes m{kWait};
  put_u32(m, uint32_t(timeout.count()));
  put_u32(m, uint32_t(keys.size()));
  for (const auto& k : keys) put_str(m, k);
  if (request(m, timeout)[0] == kTimeout) fail_wait_timeout("TCPStore", keys, timeout);
}

}  // namespace ember::distributed
