// Atomic writes (temporary file, fsync, rename, fsync of the folder) and validated reads.
#include "ember/io/serialize.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace ember {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Closes a file descriptor on scope exit, unless released.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

void write_all(int fd, const void* data, size_t n, const std::string& tmp) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // Large tensors go in chunks: one write() call returns at most ~2 GiB on Linux anyway.
    ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t(1) << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      EMBER_FAIL("[ember.save] writing ", tmp, " failed: ", errno_text(errno));
    }
    p += w;
    n -= size_t(w);
  }
}

// A fresh name next to the target, so the rename stays within one file system.
std::string temporary_name(const std::filesystem::path& target) {
  static std::atomic<uint64_t> counter{0};
  // Appended piece by piece: `"." + std::string` trips GCC 12's -Wrestrict false positive at -O3.
  std::string name = ".";
  name += target.filename().string();
  name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  return (target.parent_path() / name).string();
}

void write_file(const StateDict& ready, const io::Metadata& metadata, const std::string& path) {
  std::filesystem::path target(path);
  EMBER_CHECK(!target.filename().empty(), "[ember.save] ", path, ": not a file name");
  std::string header = io::encode_header(ready, metadata, "ember.save");
  std::string tmp = temporary_name(target);
  Fd file;
  // 0666 and the umask, as an ordinary new file gets (mkstemp's 0600 would carry over the rename).
  file.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  EMBER_CHECK(file.fd >= 0, "[ember.save] ", path, ": cannot create the temporary file ", tmp, ": ",
              errno_text(errno));
  try {
    write_all(file.fd, header.data(), header.size(), tmp);
    for (const StateDict::Item* item : io::data_order(ready))
      write_all(file.fd, item->second.data_ptr(), item->second.nbytes(), tmp);
    // The data must be on disk before the rename makes it the file: else a crash could leave a
    // renamed but empty file.
    EMBER_CHECK(::fsync(file.fd) == 0, "[ember.save] ", path,
                ": fsync failed: ", errno_text(errno));
    int fd = file.release();
    EMBER_CHECK(::close(fd) == 0, "[ember.save] ", path, ": close failed: ", errno_text(errno));
    EMBER_CHECK(::rename(tmp.c_str(), path.c_str()) == 0, "[ember.save] ", path,
                ": cannot rename the temporary file over it: ", errno_text(errno));
  } catch (...) {
    if (file.fd >= 0) ::close(file.release());
    ::unlink(tmp.c_str());
    throw;
  }
  // The rename itself is durable once the folder's entry is flushed.
  std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  Fd d;
  d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd >= 0 && ::fsync(d.fd) != 0 && errno != EINVAL && errno != ENOTSUP)
    EMBER_FAIL("[ember.save] ", path, ": fsync of the folder ", dir,
               " failed: ", errno_text(errno));
}

}  // namespace

void save(const StateDict& tensors,
          const std::string& path,
          const std::map<std::string, std::string>& metadata) {
  write_file(io::prepare_for_writing(tensors, "ember.save", path), metadata, path);
}

io::Checkpoint load_with_metadata(const std::string& path) {
  Fd file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(file.fd >= 0, "[ember.load] ", path, ": cannot open: ", errno_text(errno));
  struct stat st;
  EMBER_CHECK(::fstat(file.fd, &st) == 0, "[ember.load] ", path,
              ": stat failed: ", errno_text(errno));
  EMBER_CHECK(!S_ISDIR(st.st_mode), "[ember.load] ", path, ": is a directory, not a file");
  EMBER_CHECK(S_ISREG(st.st_mode), "[ember.load] ", path, ": not a regular file");
  return io::decode_file(file.fd, uint64_t(st.st_size), path);
}

StateDict load(const std::string& path) { return load_with_metadata(path).tensors; }

}  // namespace ember
