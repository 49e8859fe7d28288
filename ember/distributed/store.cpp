// The in-process, file and prefix stores, and the table they share (store.h).
#include "ember/distributed/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "ember/core/error.h"

namespace ember::distributed {

// ---- KeyValueTable -------------------------------------------------------------------------

int64_t KeyValueTable::add(const std::string& key, int64_t delta) {
  int64_t value = 0;
  if (auto it = data.find(key); it != data.end()) {
    const std::string text(it->second.begin(), it->second.end());
    char* end = nullptr;
    value = std::strtoll(text.c_str(), &end, 10);
    EMBER_CHECK(!text.empty() && end == text.c_str() + text.size(), "[Store.add] key '", key,
                "' holds '", text, "', not an integer");
  }
  value += delta;
  const std::string text = std::to_string(value);
  data[key] = Bytes(text.begin(), text.end());
  return value;
}

Bytes KeyValueTable::compare_set(const std::string& key,
                                 const Bytes& expected,
                                 const Bytes& desired) {
  auto it = data.find(key);
  if (it == data.end()) {
    if (!expected.empty()) return expected;  // PyTorch: a missing key is "expected" only if empty
    data[key] = desired;
    return desired;
  }
  if (it->second == expected) it->second = desired;
  return it->second;
}

bool KeyValueTable::has_all(const std::vector<std::string>& keys) const {
  for (const auto& k : keys)
    if (!has(k)) return false;
  return true;
}

namespace {
void put_u32(Bytes& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
}  // namespace

Bytes KeyValueTable::encode() const {
  Bytes out;
  for (const auto& [k, v] : data) {
    put_u32(out, uint32_t(k.size()));
    out.insert(out.end(), k.begin(), k.end());
    put_u32(out, uint32_t(v.size()));
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

KeyValueTable KeyValueTable::decode(const Bytes& bytes, const std::string& where) {
  KeyValueTable t;
  size_t pos = 0;
  auto take = [&](std::string* s, Bytes* b) {
    EMBER_CHECK(pos + 4 <= bytes.size(), "[FileStore] ", where, " is corrupt (truncated record)");
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= uint32_t(bytes[pos + i]) << (8 * i);
    pos += 4;
    EMBER_CHECK(pos + n <= bytes.size(), "[FileStore] ", where, " is corrupt (truncated record)");
    if (s) s->assign(bytes.begin() + pos, bytes.begin() + pos + n);
    if (b) b->assign(bytes.begin() + pos, bytes.begin() + pos + n);
    pos += n;
  };
  while (pos < bytes.size()) {
    std::string key;
    Bytes value;
    take(&key, nullptr);
    take(nullptr, &value);
    t.data[key] = std::move(value);
  }
  return t;
}

void fail_wait_timeout(const char* store, const std::vector<std::string>& keys, Millis timeout) {
  std::string names;
  for (const auto& k : keys) names += (names.empty() ? "'" : ", '") + k + "'";
  EMBER_FAIL("[", store, ".wait] timed out after ", timeout.count(), " ms waiting for key(s) ",
             names, " (a peer has not reached this point, or the store is unreachable)");
}

// ---- HashStore -----------------------------------------------------------------------------

void HashStore::set(const std::string& key, const Bytes& value) {
  {
    std::lock_guard lock(mutex_);
    table_.set(key, value);
  }
  changed_.notify_all();
}

Bytes HashStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard lock(mutex_);
  return table_.data.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t delta) {
  int64_t v;
  {
    std::lock_guard lock(mutex_);
    v = table_.add(key, delta);
  }
  changed_.notify_all();
  return v;
}

Bytes HashStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Bytes v;
  {
    std::lock_guard lock(mutex_);
    v = table_.compare_set(key, expected, desired);
  }
  changed_.notify_all();
  return v;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard lock(mutex_);
  return table_.has_all(keys);
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard lock(mutex_);
  return table_.erase(key);
}

int64_t HashStore::num_keys() {
  std::lock_guard lock(mutex_);
  return int64_t(table_.data.size());
}

void HashStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, timeout, [&] { return table_.has_all(keys); })) {
    fail_wait_timeout("HashStore", keys, timeout);
  }
}

// ---- FileStore -----------------------------------------------------------------------------

namespace {
// The key FileStore counts its users under (removed with the file by the last one).
const char* kFileStoreUsers = "__ember_filestore_users__";

void write_all(int fd, const uint8_t* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    EMBER_CHECK(w > 0, "[FileStore] writing ", path, " failed: ", std::strerror(errno));
    p += w;
    n -= size_t(w);
  }
}
}  // namespace

template <class F>
KeyValueTable FileStore::locked(F&& f) {
  while (::flock(fd_, LOCK_EX) != 0) {
    EMBER_CHECK(errno == EINTR, "[FileStore] cannot lock '", path_, "': ", std::strerror(errno));
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::flock(fd, LOCK_UN); }
  } unlock{fd_};
  struct stat st {};
  EMBER_CHECK(::fstat(fd_, &st) == 0, "[FileStore] cannot stat '", path_, "'");
  Bytes bytes(size_t(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t r = ::pread(fd_, bytes.data() + got, bytes.size() - got, off_t(got));
    if (r < 0 && errno == EINTR) continue;
    EMBER_CHECK(r > 0, "[FileStore] reading '", path_, "' failed");
    got += size_t(r);
  }
  KeyValueTable table = KeyValueTable::decode(bytes, "'" + path_ + "'");
  if (f(table)) {
    const Bytes out = table.encode();
    EMBER_CHECK(::ftruncate(fd_, 0) == 0 && ::lseek(fd_, 0, SEEK_SET) == 0,
                "[FileStore] cannot rewrite '", path_, "'");
    write_all(fd_, out.data(), out.size(), path_);
  }
  return table;
}

FileStore::FileStore(std::string path, int world_size, Millis timeout)
    : Store(timeout), path_(std::move(path)), world_size_(world_size) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  EMBER_CHECK(fd_ >= 0, "[FileStore] cannot open '", path_, "': ", std::strerror(errno));
  add(kFileStoreUsers, 1);
}

FileStore::~FileStore() {
  try {
    // The last user removes the file while holding the lock, so no newcomer reads a dead table.
    locked([&](KeyValueTable& t) {
      if (t.add(kFileStoreUsers, -1) <= 0 && world_size_ > 0) ::unlink(path_.c_str());
      return true;
    });
  } catch (...) {  // a destructor must not throw; the file stays behind
  }
  ::close(fd_);
}

void FileStore::set(const std::string& key, const Bytes& value) {
  locked([&](KeyValueTable& t) {
    t.set(key, value);
    return true;
  });
}

Bytes FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  KeyValueTable t = locked([](KeyValueTable&) { return false; });
  return t.data.at(key);
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  int64_t v = 0;
  locked([&](KeyValueTable& t) {
    v = t.add(key, delta);
    return true;
  });
  return v;
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Bytes v;
  locked([&](KeyValueTable& t) {
    v = t.compare_set(key, expected, desired);
    return true;
  });
  return v;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  return locked([](KeyValueTable&) { return false; }).has_all(keys);
}

bool FileStore::delete_key(const std::string& key) {
  bool erased = false;
  locked([&](KeyValueTable& t) {
    erased = t.erase(key);
    return erased;
  });
  return erased;
}

int64_t FileStore::num_keys() {
  // The user count is bookkeeping, not a key the program set.
  KeyValueTable t = locked([](KeyValueTable&) { return false; });
  return int64_t(t.data.size()) - (t.has(kFileStoreUsers) ? 1 : 0);
}

void FileStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Polling: a file has no change notification that works across machines (NFS).
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) fail_wait_timeout("FileStore", keys, timeout);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// ---- PrefixStore ---------------------------------------------------------------------------

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store->timeout()), prefix_(std::move(prefix)), store_(std::move(store)) {}

std::vector<std::string> PrefixStore::keys(const std::vector<std::string>& ks) const {
  std::vector<std::string> out;
  out.reserve(ks.size());
  for (const auto& k : ks) out.push_back(key(k));
  return out;
}

void PrefixStore::set(const std::string& k, const Bytes& value) { store_->set(key(k), value); }
Bytes PrefixStore::get(const std::string& k) { return store_->get(key(k)); }
int64_t PrefixStore::add(const std::string& k, int64_t delta) { return store_->add(key(k), delta); }
Bytes PrefixStore::compare_set(const std::string& k, const Bytes& expected, const Bytes& desired) {
  return store_->compare_set(key(k), expected, desired);
}
bool PrefixStore::check(const std::vector<std::string>& ks) { return store_->check(keys(ks)); }
bool PrefixStore::delete_key(const std::string& k) { return store_->delete_key(key(k)); }
int64_t PrefixStore::num_keys() { return store_->num_keys(); }
void PrefixStore::wait(const std::vector<std::string>& ks, Millis timeout) {
  store_->wait(keys(ks), timeout);
}

}  // namespace ember::distributed
