// Writing small IDX files (MNIST's format) for the dataset and example tests: the header, the
// bytes, optionally gzip'd as the real files are.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ember_test {

// The file's bytes: 0, 0, type code, ndim, big-endian dims, data.
inline std::vector<uint8_t> idx_bytes(const std::vector<uint32_t>& dims,
                                      const std::vector<uint8_t>& data,
                                      uint8_t type_code = 0x08) {
  std::vector<uint8_t> out{0, 0, type_code, uint8_t(dims.size())};
  for (uint32_t d : dims)
    out.insert(out.end(), {uint8_t(d >> 24), uint8_t(d >> 16), uint8_t(d >> 8), uint8_t(d)});
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes, bool gzip) {
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << path;
    if (!bytes.empty()) {
      ASSERT_EQ(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
    }
    ASSERT_EQ(gzclose(f), Z_OK);
  } else {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    ASSERT_TRUE(f.good()) << path;
  }
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The four files of a split-by-split dataset in `dir`: `prefix` is "train" or "t10k"; images are
// [n, rows, cols] bytes, labels one byte each.
inline void write_split(const std::filesystem::path& dir,
                        const std::string& prefix,
                        const std::vector<uint8_t>& images,
                        const std::vector<uint8_t>& labels,
                        uint32_t rows,
                        uint32_t cols,
                        bool gzip) {
  const std::string ext = gzip ? ".gz" : "";
  write_bytes((dir / (prefix + "-images-idx3-ubyte" + ext)).string(),
              idx_bytes({uint32_t(labels.size()), rows, cols}, images), gzip);
  write_bytes((dir / (prefix + "-labels-idx1-ubyte" + ext)).string(),
              idx_bytes({uint32_t(labels.size())}, labels), gzip);
}

// A fresh folder per test, removed afterwards (/tmp is shared: the pid and test name make it
// unique).
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("ember_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()) +
            "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

}  // namespace ember_test
