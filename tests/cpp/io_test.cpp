// ember::save / ember::load: safetensors round trips, the exact bytes written, atomic saves, and
// validation of corrupt files (including truncation at every length and random header flips).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using ember::StateDict;
using ember::Tensor;

// A fresh folder per test, removed afterwards (/tmp is shared, hence the pid).
class IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ember_io_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

std::string read_bytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Same dtype, shape and bytes.
void expect_identical(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  Tensor ca = a.contiguous(), cb = b.contiguous();
  EXPECT_EQ(0, std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()));
}

// A safetensors file from a header text and a data buffer, without ember's writer.
std::string make_file(const std::string& header, const std::string& buffer) {
  uint64_t n = header.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + header + buffer;
}

std::string load_error(const std::string& bytes) {
  try {
    ember::io::decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "f.st");
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(IoTest, RoundTripsEveryDtypeInOrder) {
  StateDict sd;
  const ember::DType dtypes[] = {
      ember::kFloat64, ember::kFloat32, ember::kFloat16, ember::kBFloat16, ember::kInt64,
      ember::kInt32,   ember::kInt16,   ember::kInt8,    ember::kUInt8,    ember::kBool};
  for (ember::DType d : dtypes) {
    Tensor t = d == ember::kBool ? ember::tensor(std::vector<uint8_t>{0, 1, 1, 0, 1, 0}).to(d)
                                 : (ember::arange(6, ember::kFloat64) * 7 - 3).to(d);
    sd.insert(std::string(ember::dtype_name(d)), t.view({2, 3}));
  }
  sd.insert("zero_d", ember::scalar_tensor(2.5, ember::kFloat32));
  sd.insert("empty", ember::empty({0, 4}, ember::kInt32));
  ember::save(sd, path("all.safetensors"), {{"note", "hello"}});
  auto ck = ember::load_with_metadata(path("all.safetensors"));
  ASSERT_EQ(ck.tensors.size(), sd.size());
  auto it = ck.tensors.begin();
  for (const auto& [name, t] : sd) {
    EXPECT_EQ(it->first, name);
    expect_identical(it->second, t);
    ++it;
  }
  EXPECT_EQ(ck.metadata, (ember::io::Metadata{{"note", "hello"}}));
  EXPECT_EQ(ck.tensors.at("int16").to(ember::kInt64).to_vector<int64_t>(),
            (std::vector<int64_t>{-3, 4, 11, 18, 25, 32}));
  EXPECT_EQ(ck.tensors.at("zero_d").dim(), 0);
  EXPECT_EQ(listing(), std::vector<std::string>{"all.safetensors"});  // no temporary left
}

TEST_F(IoTest, WritesTheExactFormat) {
  StateDict sd;
  sd.insert("b", ember::tensor({1.f, 2.f}));
  sd.insert("a", ember::tensor(std::vector<int32_t>{7}, {1, 1}, ember::kInt32));
  ember::save(sd, path("x"), {{"k", "v"}});
  std::string json =
      R"({"__metadata__":{"k":"v"},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("a":{"dtype":"I32","shape":[1,1],"data_offsets":[8,12]}})";
  json.append((8 - json.size() % 8) % 8, ' ');
  float f[2] = {1.f, 2.f};
  int32_t i = 7;
  std::string data(reinterpret_cast<char*>(f), 8);
  data.append(reinterpret_cast<char*>(&i), 4);
  EXPECT_EQ(read_bytes(path("x")), make_file(json, data));
  EXPECT_EQ(ember::io::to_bytes(sd, {{"k", "v"}}), make_file(json, data));
}

TEST_F(IoTest, DataIsAlignedAndTheHeaderKeepsTheOrder) {
  StateDict sd;
  sd.insert("a", ember::ones({3}, ember::kUInt8));
  sd.insert("b", ember::arange(2, ember::kFloat64));
  sd.insert("c", ember::ones({1}, ember::kInt16));
  const std::string bytes = ember::io::to_bytes(sd);
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  std::string header = bytes.substr(8, n);
  header.erase(header.find_last_not_of(' ') + 1);  // the alignment padding
  EXPECT_EQ(header, R"({"a":{"dtype":"U8","shape":[3],"data_offsets":[18,21]},)"
                    R"("b":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},)"
                    R"("c":{"dtype":"I16","shape":[1],"data_offsets":[16,18]}})");
  ember::save(sd, path("f"));
  std::vector<std::string> names;
  for (const auto& [name, t] : ember::load(path("f"))) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ember::load(path("f")).at("b").to_vector<double>(), (std::vector<double>{0, 1}));
}

TEST_F(IoTest, NonContiguousAndGradTensorsAreWrittenContiguous) {
  Tensor base = ember_test::iota({2, 3}).requires_grad_();
  StateDict sd;
  sd.insert("t", base.t());
  sd.insert("s", base.detach().slice(1, 0, 3, 2));
  ember::save(sd, path("nc"));
  StateDict back = ember::load(path("nc"));
  EXPECT_EQ(back.at("t").to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(back.at("t").sizes().vec(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(back.at("s").to_vector<float>(), (std::vector<float>{0, 2, 3, 5}));
  EXPECT_FALSE(back.at("t").requires_grad());
}

TEST_F(IoTest, EmptyStateDictRoundTrips) {
  ember::save(StateDict(), path("e"));
  EXPECT_EQ(ember::load(path("e")).size(), 0u);
}

TEST_F(IoTest, SaveRejectsBadInput) {
  StateDict sd;
  sd.insert("x", Tensor());
  EXPECT_THROW(ember::save(sd, path("u")), ember::Error);
  StateDict reserved;
  reserved.insert("__metadata__", ember::ones({1}));
  EXPECT_THROW(ember::save(reserved, path("u")), ember::Error);
  EXPECT_TRUE(listing().empty());
}

TEST_F(IoTest, FailedSaveToMissingFolderCreatesNothing) {
  StateDict sd;
  sd.insert("x", ember::ones({3}));
  try {
    ember::save(sd, path("no/such/dir/ckpt"));
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[ember.save]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos);
  }
  EXPECT_TRUE(listing().empty());
}

TEST_F(IoTest, FailedRenameLeavesNoTemporary) {
  fs::create_directory(path("target"));  // a file cannot replace a directory
  StateDict sd;
  sd.insert("x", ember::ones({3}));
  EXPECT_THROW(ember::save(sd, path("target")), ember::Error);
  EXPECT_EQ(listing(), std::vector<std::string>{"target"});
  EXPECT_TRUE(fs::is_directory(path("target")));
}

TEST_F(IoTest, FailedWriteLeavesOldFileIntact) {
  StateDict small;
  small.insert("x", ember::ones({3}));
  ember::save(small, path("ckpt"));
  const std::string before = read_bytes(path("ckpt"));
  // A file size limit makes write() fail with EFBIG halfway through a 4 MB tensor: a real
  // mid-write error, as a full disk would give.
  StateDict big;
  big.insert("y", ember::zeros({1 << 20}));
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = old;
  lim.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
  std::string what;
  try {
    ember::save(big, path("ckpt"));
  } catch (const ember::Error& e) {
    what = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(what.find("[ember.save]"), std::string::npos) << what;
  EXPECT_EQ(read_bytes(path("ckpt")), before);
  EXPECT_EQ(listing(), std::vector<std::string>{"ckpt"});
}

TEST_F(IoTest, OverwriteReplacesTheFile) {
  StateDict a, b;
  a.insert("x", ember::ones({100}));
  b.insert("y", ember::zeros({2}));
  ember::save(a, path("ckpt"));
  ember::save(b, path("ckpt"));
  StateDict back = ember::load(path("ckpt"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back.contains("y"));
  EXPECT_EQ(listing(), std::vector<std::string>{"ckpt"});
}

TEST_F(IoTest, MissingFileAndDirectoryAreClearErrors) {
  try {
    ember::load(path("absent"));
    FAIL();
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[ember.load]"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("absent"), std::string::npos);
  }
  EXPECT_THROW(ember::load(dir_.string()), ember::Error);
}

TEST(IoDecode, CorruptFilesAreRejectedWithTheProblem) {
  const std::string eight(8, '\0');
  const std::string t = R"("t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  struct Case {
    std::string bytes, expected;
  };
  std::string huge(8, '\0');
  huge[7] = 0x10;
  const Case cases[] = {
      {"", "too short"},
      {"abc", "too short"},
      {make_file("{}", "").substr(0, 8) + "{", "goes beyond the end"},
      {huge + "{}", "absurd"},
      {make_file("{\xff}", ""), "not valid UTF-8"},
      {make_file("[1, 2]", ""), "does not start with '{'"},
      {make_file("{\"t\": ", ""), "not valid JSON"},
      {make_file("{} x", ""), "not valid JSON"},
      {make_file("{" + t + "}", eight.substr(0, 7)), "go beyond the data buffer"},
      {make_file("{" + t + "}", eight + "x"), "trailing bytes"},
      {make_file("{" + t + "," + t + "}", eight), "names 't' twice"},
      {make_file(R"({"t":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}})", eight),
       "'U16' is not supported"},
      {make_file(R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight), "need 12"},
      {make_file(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight), "negative"},
      {make_file(R"({"t":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", eight),
       "non-negative integer"},
      {make_file(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
                 eight),
       "too many elements"},
      {make_file(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight), "end before"},
      {make_file(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", eight), "[begin, end]"},
      {make_file(R"({"t":{"dtype":"F32","shape":[2]}})", eight), "no 'data_offsets'"},
      {make_file(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", eight),
       "unexpected field 'x'"},
      {make_file(R"({"t":[1]})", eight), "expected an object"},
      {make_file(R"({"__metadata__":{"k":1}})", ""), "must be a string"},
      {make_file(
           R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
           "abc"),
       "overlapping"},
      {make_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})", "abc"), "a gap"},
      {make_file("{\"a\":" + std::string(20, '[') + std::string(20, ']') + "}", ""),
       "nests too deeply"},
  };
  for (const Case& c : cases) {
    std::string what = load_error(c.bytes);
    EXPECT_NE(what.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "', got: " << what;
    EXPECT_NE(what.find("[ember.load] f.st: "), std::string::npos) << what;
  }
}

TEST(IoDecode, ToleratesSpacePaddingNullMetadataAndNonCanonicalBools) {
  std::string bytes =
      make_file(R"({"__metadata__":null,"b":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}   )",
                std::string("\x00\x01\x07", 3));
  auto ck = ember::io::decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "f");
  EXPECT_EQ(ck.tensors.at("b").to_vector<bool>(), (std::vector<bool>{false, true, true}));
}

TEST(IoDecode, FuzzTruncationsAndHeaderFlips) {
  StateDict sd;
  sd.insert("w", ember_test::iota({2, 3}));
  sd.insert("b", ember::arange(4, ember::kInt64));
  sd.insert("m", ember::ones({2}, ember::kBool));
  const std::string good = ember::io::to_bytes(sd, {{"a", "b"}});
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(ember::io::decode(reinterpret_cast<const uint8_t*>(good.data()), n, "f"),
                 ember::Error)
        << "truncated to " << n;
  uint64_t header_len;
  std::memcpy(&header_len, good.data(), 8);
  std::mt19937 rng(1234);
  int loaded = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bad = good;
    for (int k = 0; k < 1 + int(rng() % 3); ++k) bad[rng() % (8 + header_len)] = char(rng() % 256);
    try {
      auto ck = ember::io::decode(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), "f");
      ++loaded;  // a harmless flip (e.g. inside a name or the padding)
    } catch (const ember::Error&) {
    }
  }
  EXPECT_LT(loaded, 3000);
}

// The same file tests/python/test_serialization.py reads: written by ember.save in Python
// (tests/data/make_checkpoint.py), so the two front ends agree on names, order and values.
TEST(IoData, ReadsTheCheckedInPythonCheckpoint) {
  auto ck = ember::load_with_metadata(EMBER_TEST_DATA_DIR "/small_model.safetensors");
  std::vector<std::string> names;
  for (const auto& [name, t] : ck.tensors) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias", "steps"}));
  EXPECT_EQ(ck.tensors.at("0.weight").sizes().vec(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(ck.tensors.at("0.weight").to_vector<float>(),
            (std::vector<float>{0.f, 0.5f, 1.f, 1.5f, 2.f, 2.5f}));
  EXPECT_EQ(ck.tensors.at("2.bias").to_vector<double>(), (std::vector<double>{-1.25}));
  EXPECT_EQ(ck.tensors.at("steps").dtype(), ember::kInt64);
  EXPECT_EQ(ck.tensors.at("steps").item<int64_t>(), 42);
  EXPECT_TRUE(ck.metadata.count("ember.structure"));
}

}  // namespace
