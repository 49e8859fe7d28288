// ember::data::MNIST / FashionMNIST: IDX files written here (plain and gzip'd), the errors for
// missing, corrupt and truncated files, and Debian's real Fashion-MNIST when it is installed.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "idx_util.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using ember::Tensor;
using ember::data::FashionMNIST;
using ember::data::MNIST;
using ember_test::idx_bytes;
using ember_test::write_bytes;
using ember_test::write_split;

constexpr uint32_t kRows = 28, kCols = 28;

// n images whose pixel (r, c) of image i is (i * 31 + r * 7 + c) % 256, labels (i * 3) % 10.
std::vector<uint8_t> pattern_images(uint32_t n) {
  std::vector<uint8_t> v;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t r = 0; r < kRows; ++r)
      for (uint32_t c = 0; c < kCols; ++c) v.push_back(uint8_t((i * 31 + r * 7 + c) % 256));
  return v;
}
std::vector<uint8_t> pattern_labels(uint32_t n) {
  std::vector<uint8_t> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back(uint8_t((i * 3) % 10));
  return v;
}

class MnistTest : public ember_test::TempDirTest {
 protected:
  // Train split of 5 images and test split of 3, in dir_ (or `dir`).
  void write_both(bool gzip, const fs::path& dir = {}) {
    const fs::path d = dir.empty() ? dir_ : dir;
    fs::create_directories(d);
    write_split(d, "train", pattern_images(5), pattern_labels(5), kRows, kCols, gzip);
    write_split(d, "t10k", pattern_images(3), pattern_labels(3), kRows, kCols, gzip);
  }
  void check_pattern(const MNIST& ds, int64_t n) {
    ASSERT_EQ(ds.size(), n);
    EXPECT_EQ(ds.images().dtype(), ember::kUInt8);
    EXPECT_EQ(ember_test::vec(ds.images().sizes()), (std::vector<int64_t>{n, 28, 28}));
    EXPECT_EQ(ds.targets().dtype(), ember::kInt64);
    EXPECT_EQ(ember_test::vec(ds.targets().sizes()), (std::vector<int64_t>{n}));
    const std::vector<uint8_t> want = pattern_images(uint32_t(n));
    EXPECT_EQ(ds.images().to_vector<uint8_t>(), want);
    std::vector<int64_t> labels;
    for (uint8_t l : pattern_labels(uint32_t(n))) labels.push_back(l);
    EXPECT_EQ(ds.targets().to_vector<int64_t>(), labels);
  }
};

TEST_F(MnistTest, ReadsPlainFiles) {
  write_both(false);
  const MNIST train(dir_.string(), true), test(dir_.string(), false);
  check_pattern(train, 5);
  check_pattern(test, 3);
  EXPECT_TRUE(train.train());
  EXPECT_FALSE(test.train());
  EXPECT_EQ(train.folder(), dir_.string());
}

TEST_F(MnistTest, ReadsGzipFiles) {
  write_both(true);
  const FashionMNIST train(dir_.string(), true), test(dir_.string(), false);
  check_pattern(train, 5);
  check_pattern(test, 3);
}

TEST_F(MnistTest, GetReturnsOneSample) {
  write_both(true);
  MNIST ds(dir_.string(), true);
  const ember::data::Example e = ds.get(4);
  EXPECT_EQ(ember_test::vec(e.data.sizes()), (std::vector<int64_t>{28, 28}));
  EXPECT_EQ(e.data.dtype(), ember::kUInt8);
  EXPECT_EQ(e.data.select(0, 2).select(0, 3).item<int64_t>(), (4 * 31 + 2 * 7 + 3) % 256);
  EXPECT_EQ(e.target.dim(), 0);
  EXPECT_EQ(e.target.item<int64_t>(), 2);  // (4 * 3) % 10
  EXPECT_EMBER_ERROR(ds.get(5), ember::ErrorKind::Index, "[MNIST] index 5 is out of range");
  EXPECT_EMBER_ERROR(ds.get(-1), ember::ErrorKind::Index, "out of range");
}

TEST_F(MnistTest, WorksWithTheDataLoader) {
  write_both(false);
  auto ds = std::make_shared<FashionMNIST>(dir_.string(), true);
  ember::data::DataLoader loader(ds, {.batch_size = 2});
  std::vector<int64_t> sizes, targets;
  for (auto& batch : loader) {
    sizes.push_back(batch.data.size(0));
    EXPECT_EQ(ember_test::vec(batch.data.sizes()).back(), 28);
    for (int64_t t : batch.target.to_vector<int64_t>()) targets.push_back(t);
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(targets, (std::vector<int64_t>{0, 3, 6, 9, 2}));
}

TEST_F(MnistTest, ClassNamesAreTorchvisions) {
  write_both(false);
  const FashionMNIST f(dir_.string());
  ASSERT_EQ(f.classes().size(), 10u);
  EXPECT_EQ(f.classes()[0], "T-shirt/top");
  EXPECT_EQ(f.classes()[9], "Ankle boot");
  const MNIST m(dir_.string());
  EXPECT_EQ(m.classes()[3], "3 - three");
}

TEST_F(MnistTest, FindsTorchvisionsRawFolder) {
  write_both(true, dir_ / "FashionMNIST" / "raw");
  const FashionMNIST ds(dir_.string(), false);
  check_pattern(ds, 3);
  EXPECT_EQ(ds.folder(), (dir_ / "FashionMNIST" / "raw").string());
}

TEST_F(MnistTest, PlainFileIsPreferredOverGzip) {
  // torchvision leaves the unpacked files next to the archives: both name the same data.
  write_both(true);
  write_split(dir_, "train", pattern_images(2), pattern_labels(2), kRows, kCols, false);
  check_pattern(MNIST(dir_.string(), true), 2);
}

TEST_F(MnistTest, MissingFilesNameTheFilesTheFolderAndThePackage) {
  EXPECT_EMBER_ERROR(FashionMNIST(dir_.string(), true), ember::ErrorKind::Runtime,
                     "[FashionMNIST] dataset not found: missing train-images-idx3-ubyte[.gz], "
                     "train-labels-idx1-ubyte[.gz] in '" +
                         dir_.string() + "'");
  EXPECT_EMBER_ERROR(FashionMNIST(dir_.string(), true), ember::ErrorKind::Runtime,
                     "apt-get install dataset-fashion-mnist");
  // Only the labels are missing: only they are named.
  write_bytes(path("t10k-images-idx3-ubyte"), idx_bytes({1, kRows, kCols}, pattern_images(1)),
              false);
  EXPECT_EMBER_ERROR(MNIST(dir_.string(), false), ember::ErrorKind::Runtime,
                     "[MNIST] dataset not found: missing t10k-labels-idx1-ubyte[.gz] in");
  EXPECT_EMBER_ERROR(MNIST(path("nowhere"), false), ember::ErrorKind::Runtime, "nowhere");
}

TEST_F(MnistTest, ReadIdxChecksTheHeader) {
  using ember::data::read_idx_ubyte;
  const std::vector<uint8_t> data(6, 7);
  const std::string p = path("f");
  auto expect_error = [&](const std::vector<uint8_t>& bytes, bool gzip, const std::string& msg) {
    write_bytes(p, bytes, gzip);
    EXPECT_EMBER_ERROR(read_idx_ubyte(p), ember::ErrorKind::Runtime, "[MNIST] " + p + ": " + msg);
  };
  for (bool gzip : {false, true}) {
    SCOPED_TRACE(gzip ? "gzip" : "plain");
    write_bytes(p, idx_bytes({2, 3}, data), gzip);
    const Tensor t = read_idx_ubyte(p);
    EXPECT_EQ(ember_test::vec(t.sizes()), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(t.to_vector<uint8_t>(), data);

    expect_error({}, gzip, "not an IDX file (0 bytes");
    expect_error({0, 0, 8}, gzip, "not an IDX file (3 bytes");
    expect_error({1, 0, 8, 1, 0, 0, 0, 0}, gzip, "not an IDX file (bad magic number");
    // A PNG's first bytes, say.
    expect_error({0x89, 'P', 'N', 'G', 0, 0, 0, 0}, gzip, "not an IDX file (bad magic number");
    expect_error(idx_bytes({2, 3}, std::vector<uint8_t>(24), 0x0D), gzip,
                 "unsupported IDX type code 0x0d (expected 0x08, unsigned bytes)");
    expect_error({0, 0, 8, 0}, gzip, "an IDX file with 0 dimensions");
    expect_error({0, 0, 8, 3, 0, 0, 0, 2, 0, 0}, gzip,
                 "truncated header (10 bytes, the header of 3 dimensions takes 16)");
    expect_error(idx_bytes({2, 3}, std::vector<uint8_t>(5)), gzip,
                 "the header announces 2 x 3 bytes of data, the file holds 5 (truncated file?)");
    expect_error(idx_bytes({2, 3}, std::vector<uint8_t>(7)), gzip,
                 "the header announces 2 x 3 bytes of data, the file holds 7 (trailing bytes)");
    // Dimensions whose product overflows 64 bits: caught before any multiplication overflows.
    expect_error(idx_bytes({0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, data), gzip,
                 "the header announces 4294967295 x 4294967295 x 4294967295 bytes");
  }
  write_bytes(p, idx_bytes({2, 3}, data), false);
  EXPECT_EMBER_ERROR(read_idx_ubyte(p, 3), ember::ErrorKind::Runtime,
                     "expected 3 dimension(s), the header has 2");
  EXPECT_EMBER_ERROR(read_idx_ubyte(path("absent")), ember::ErrorKind::Runtime,
                     "[MNIST] " + path("absent") + ": no such file");
  EXPECT_EMBER_ERROR(read_idx_ubyte(dir_.string()), ember::ErrorKind::Runtime, "no such file");
  // Zero images is a valid (empty) file.
  write_bytes(p, idx_bytes({0, 28, 28}, {}), true);
  EXPECT_EQ(ember_test::vec(read_idx_ubyte(p).sizes()), (std::vector<int64_t>{0, 28, 28}));
}

TEST_F(MnistTest, CorruptGzipDataIsAnErrorNamingTheFile) {
  const std::string p = path("train-images-idx3-ubyte.gz");
  write_bytes(p, idx_bytes({50, kRows, kCols}, pattern_images(50)), true);
  std::vector<uint8_t> gz = ember_test::read_bytes(p);
  ASSERT_GT(gz.size(), 100u);
  // Cut in the middle of the deflate stream.
  write_bytes(p, std::vector<uint8_t>(gz.begin(), gz.begin() + ptrdiff_t(gz.size() / 2)), false);
  EXPECT_EMBER_ERROR(ember::data::read_idx_ubyte(p), ember::ErrorKind::Runtime,
                     "[MNIST] " + p + ": cannot read (corrupt or truncated gzip data?)");
  // Garbage inside the stream (the gzip header stays valid).
  std::vector<uint8_t> bad = gz;
  for (size_t i = 20; i < 60; ++i) bad[i] ^= 0x5A;
  write_bytes(p, bad, false);
  EXPECT_EMBER_ERROR(ember::data::read_idx_ubyte(p), ember::ErrorKind::Runtime,
                     "[MNIST] " + p + ": cannot read");
}

TEST_F(MnistTest, ImagesAndLabelsMustAgree) {
  write_split(dir_, "train", pattern_images(4), pattern_labels(4), kRows, kCols, false);
  write_bytes(path("train-labels-idx1-ubyte"), idx_bytes({3}, pattern_labels(3)), false);
  EXPECT_EMBER_ERROR(MNIST(dir_.string()), ember::ErrorKind::Runtime,
                     "train-images-idx3-ubyte holds 4 images but " +
                         path("train-labels-idx1-ubyte") + " holds 3 labels");
  write_bytes(path("train-labels-idx1-ubyte"), idx_bytes({4}, {1, 2, 10, 3}), false);
  EXPECT_EMBER_ERROR(MNIST(dir_.string()), ember::ErrorKind::Runtime,
                     "label 10 at index 2 is not a class (expected 0..9)");
  // Labels that are images (a swapped file).
  write_bytes(path("train-labels-idx1-ubyte"), idx_bytes({4, kRows, kCols}, pattern_images(4)),
              false);
  EXPECT_EMBER_ERROR(MNIST(dir_.string()), ember::ErrorKind::Runtime,
                     "train-labels-idx1-ubyte: expected 1 dimension(s), the header has 3");
}

// Debian's dataset-fashion-mnist, when installed: the published sizes and the balanced classes.
TEST(FashionMnistData, DebianPackageHasTheExpectedSizes) {
  const std::string root = "/usr/share/datasets/fashion-mnist";
  if (!fs::exists(root)) GTEST_SKIP() << root << " is not installed";
  const FashionMNIST train(root, true), test(root, false);
  EXPECT_EQ(ember_test::vec(train.images().sizes()), (std::vector<int64_t>{60000, 28, 28}));
  EXPECT_EQ(ember_test::vec(test.images().sizes()), (std::vector<int64_t>{10000, 28, 28}));
  auto per_class = [](const Tensor& targets) {
    std::vector<int64_t> counts(10);
    for (int64_t t : targets.to_vector<int64_t>()) ++counts.at(size_t(t));
    return counts;
  };
  EXPECT_EQ(per_class(train.targets()), std::vector<int64_t>(10, 6000));
  EXPECT_EQ(per_class(test.targets()), std::vector<int64_t>(10, 1000));
  // The first labels and the pixel sum (whose mean, 0.28604 x 255, is the example's 0.2860), as
  // Python's gzip module reads the same files.
  EXPECT_EQ(train.targets().narrow(0, 0, 10).to_vector<int64_t>(),
            (std::vector<int64_t>{9, 0, 0, 3, 0, 2, 7, 2, 5, 5}));
  EXPECT_EQ(test.targets().narrow(0, 0, 10).to_vector<int64_t>(),
            (std::vector<int64_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
  EXPECT_EQ(train.images().sum().item<int64_t>(), 3431114169);
}

}  // namespace
