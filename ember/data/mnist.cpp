#include "ember/data/mnist.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "ember/core/error.h"
#include "ember/ops/creation.h"

namespace ember::data {

namespace {

namespace fs = std::filesystem;

// The whole file, through zlib's gz reader: it inflates gzip streams and passes other files
// through unchanged (it looks at the first two bytes, not the name), so one path reads both.
std::vector<uint8_t> read_all(const std::string& path) {
  std::error_code ec;
  EMBER_CHECK(fs::is_regular_file(path, ec), "[MNIST] ", path, ": no such file");
  gzFile f = gzopen(path.c_str(), "rb");
  EMBER_CHECK(f != nullptr, "[MNIST] ", path, ": cannot open: ", std::strerror(errno));
  gzbuffer(f, 1 << 18);  // fewer, larger reads than the 8 KiB default
  std::vector<uint8_t> out, chunk(size_t(1) << 20);
  for (;;) {
    const int got = gzread(f, chunk.data(), unsigned(chunk.size()));
    if (got <= 0) {
      int errnum = Z_OK;
      const char* msg = gzerror(f, &errnum);
      // A truncated gzip stream ends with Z_BUF_ERROR ("unexpected end of file"), corrupt data
      // with Z_DATA_ERROR: both are reported with the file's name rather than as a short read.
      if (got < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
        const std::string what = msg ? msg : "read error";
        gzclose(f);
        EMBER_FAIL("[MNIST] ", path, ": cannot read (corrupt or truncated gzip data?): ", what);
      }
      break;
    }
    out.insert(out.end(), chunk.begin(), chunk.begin() + got);
  }
  gzclose(f);
  return out;
}

uint32_t big_endian_u32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// `name` or `name.gz` in `dir`, whichever exists (plain first: torchvision unpacks the archives
// next to them); empty if neither does.
std::string find_file(const fs::path& dir, const std::string& name) {
  for (const std::string& candidate : {name, name + ".gz"}) {
    const fs::path p = dir / candidate;
    std::error_code ec;  // an unreadable folder counts as not holding the file
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

}  // namespace

Tensor read_idx_ubyte(const std::string& path, int expected_dims) {
  const std::vector<uint8_t> bytes = read_all(path);
  // The header: two zero bytes, the type code, the number of dimensions, then one big-endian
  // uint32 per dimension.
  EMBER_CHECK(bytes.size() >= 4, "[MNIST] ", path, ": not an IDX file (", bytes.size(),
              " bytes, shorter than the 4-byte magic number)");
  EMBER_CHECK(bytes[0] == 0 && bytes[1] == 0, "[MNIST] ", path,
              ": not an IDX file (bad magic number: the first two bytes must be zero)");
  if (bytes[2] != 0x08) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02x", unsigned(bytes[2]));
    EMBER_FAIL("[MNIST] ", path, ": unsupported IDX type code ", code,
               " (expected 0x08, unsigned bytes)");
  }
  const int ndim = bytes[3];
  EMBER_CHECK(ndim >= 1, "[MNIST] ", path, ": an IDX file with 0 dimensions");
  EMBER_CHECK(expected_dims < 0 || ndim == expected_dims, "[MNIST] ", path, ": expected ",
              expected_dims, " dimension(s), the header has ", ndim);
  const size_t header = 4 + 4 * size_t(ndim);
  EMBER_CHECK(bytes.size() >= header, "[MNIST] ", path, ": truncated header (", bytes.size(),
              " bytes, the header of ", ndim, " dimensions takes ", header, ")");
  std::vector<int64_t> dims(ndim);
  // The product is checked against the data actually present as it grows, so it cannot overflow
  // (each factor is below 2^32 and the running product stays at most the file size).
  const size_t available = bytes.size() - header;
  size_t numel = 1;
  bool too_big = false;
  for (int d = 0; d < ndim; ++d) {
    dims[d] = big_endian_u32(&bytes[4 + 4 * size_t(d)]);
    if (!too_big && dims[d] != 0) {
      if (numel > available / size_t(dims[d])) too_big = true;
      numel *= size_t(dims[d]);
    }
    if (dims[d] == 0) numel = 0;
  }
  auto shape_text = [&] {
    std::string s;
    for (size_t d = 0; d < dims.size(); ++d) s += (d ? " x " : "") + std::to_string(dims[d]);
    return s;
  };
  EMBER_CHECK(!too_big && numel == available, "[MNIST] ", path, ": the header announces ",
              shape_text(), " bytes of data, the file holds ", available,
              too_big || numel > available ? " (truncated file?)" : " (trailing bytes)");
  Tensor t = empty(dims, kUInt8);
  if (numel > 0) std::memcpy(t.data_ptr<uint8_t>(), bytes.data() + header, numel);
  return t;
}

MNIST::MNIST(const std::string& root, bool train)
    : MNIST(root,
            train,
            "MNIST",
            {"0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six",
             "7 - seven", "8 - eight", "9 - nine"}) {}

MNIST::MNIST(const std::string& root,
             bool train,
             std::string name,
             std::vector<std::string> classes)
    : root_(root), name_(std::move(name)), train_(train), classes_(std::move(classes)) {
  load();
}

void MNIST::load() {
  const std::string prefix = train_ ? "train" : "t10k";
  const std::string images_name = prefix + "-images-idx3-ubyte";
  const std::string labels_name = prefix + "-labels-idx1-ubyte";
  // Debian's folder holds the files directly; torchvision's download goes to root/<Name>/raw.
  std::string images_path, labels_path;
  for (const fs::path& dir : {fs::path(root_), fs::path(root_) / name_ / "raw"}) {
    images_path = find_file(dir, images_name);
    labels_path = find_file(dir, labels_name);
    if (!images_path.empty() && !labels_path.empty()) {
      folder_ = dir.string();
      break;
    }
  }
  if (folder_.empty()) {
    std::string missing;
    for (const std::string* n : {&images_name, &labels_name})
      if (find_file(root_, *n).empty()) missing += (missing.empty() ? "" : ", ") + *n + "[.gz]";
    if (missing.empty()) missing = images_name + "[.gz], " + labels_name + "[.gz] (together)";
    EMBER_FAIL("[", name_, "] dataset not found: missing ", missing, " in '", root_, "' (and in '",
               (fs::path(root_) / name_ / "raw").string(),
               "'). Pass the folder that holds the IDX files; Fashion-MNIST's come with "
               "Debian's package: apt-get install dataset-fashion-mnist "
               "(/usr/share/datasets/fashion-mnist)");
  }

  images_ = read_idx_ubyte(images_path, 3);
  const Tensor labels = read_idx_ubyte(labels_path, 1);
  EMBER_CHECK(images_.size(0) == labels.size(0), "[", name_, "] ", images_path, " holds ",
              images_.size(0), " images but ", labels_path, " holds ", labels.size(0), " labels");
  const uint8_t* l = labels.data_ptr<uint8_t>();
  for (int64_t i = 0; i < labels.numel(); ++i)
    EMBER_CHECK(l[i] < classes_.size(), "[", name_, "] ", labels_path, ": label ", int(l[i]),
                " at index ", i, " is not a class (expected 0..", classes_.size() - 1, ")");
  targets_ = labels.to(kInt64);
}

Example MNIST::get(int64_t index) {
  EMBER_CHECK_INDEX(index >= 0 && index < size(), "[", name_, "] index ", index,
                    " is out of range for a dataset of size ", size());
  return {images_.select(0, index), targets_.select(0, index)};
}

FashionMNIST::FashionMNIST(const std::string& root, bool train)
    : MNIST(root,
            train,
            "FashionMNIST",
            {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
             "Bag", "Ankle boot"}) {}

}  // namespace ember::data
