// Storage, TensorImpl and view invariants; repr; error kinds and messages.
#include <gtest/gtest.h>

#include <unistd.h>

#include <limits>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using ember_test::byte_offset;
using ember_test::iota;
using ember_test::vec;
using V = std::vector<float>;
using I = std::vector<int64_t>;

TEST(Tensor, FreshTensorIsContiguousRowMajor) {
  Tensor x = ember::zeros({2, 3, 4});
  EXPECT_EQ(vec(x.sizes()), (I{2, 3, 4}));
  EXPECT_EQ(vec(x.strides()), (I{12, 4, 1}));
  EXPECT_EQ(x.dim(), 3);
  EXPECT_EQ(x.numel(), 24);
  EXPECT_EQ(x.dtype(), ember::kFloat32);
  EXPECT_EQ(x.element_size(), 4u);
  EXPECT_EQ(x.nbytes(), 96u);
  EXPECT_EQ(x.storage()->nbytes(), 96u);
  EXPECT_EQ(x.storage_offset(), 0);
  EXPECT_TRUE(x.is_contiguous());
  EXPECT_FALSE(x.is_view());
  EXPECT_EQ(x.size(-1), 4);
  EXPECT_EQ(x.stride(0), 12);
  EXPECT_EQ(x.data_ptr(), x.storage()->data());
}

TEST(Storage, ExternalMemoryIsReleasedOnceByTheLastTensor) {
  struct Blob {
    float data[6] = {0, 1, 2, 3, 4, 5};
    int released = 0;
  } blob;
  {
    Tensor t = ember::from_blob(blob.data, {2, 3}, {3, 1}, ember::kFloat32,
                                {[](void* ctx) { static_cast<Blob*>(ctx)->released++; }, &blob});
    EXPECT_EQ(t.data_ptr(), static_cast<void*>(blob.data));
    EXPECT_EQ(t.storage()->nbytes(), 24u);
    EXPECT_EQ(t.to_vector<float>(), (V{0, 1, 2, 3, 4, 5}));
    Tensor col = t.select(1, 2);
    t = Tensor();
    EXPECT_EQ(blob.released, 0);  // the view still uses the buffer
    col.mul_(10);
    EXPECT_EQ(blob.data[5], 50.0f);  // no copy was made
  }
  EXPECT_EQ(blob.released, 1);
}

TEST(Storage, ShareMemoryMovesInPlaceAndAnotherMappingSeesWrites) {
  Tensor t = ember::arange(6.0, ember::TensorOptions(ember::kFloat32)).reshape({2, 3});
  Tensor col = t.select(1, 1);  // a view taken before the move
  EXPECT_FALSE(t.storage()->is_shared());
  t.storage()->share_memory_();
  ASSERT_TRUE(col.storage()->is_shared());
  EXPECT_EQ(t.to_vector<float>(), (V{0, 1, 2, 3, 4, 5}));
  col.mul_(10);
  EXPECT_EQ(t.to_vector<float>(), (V{0, 10, 2, 3, 40, 5}));
  // A second mapping of the same file (what another process gets) sees and makes changes.
  auto other = ember::Storage::from_shared_fd(dup(t.storage()->shared_fd()), 24);
  float* q = static_cast<float*>(other->data());
  EXPECT_EQ(q[4], 40.0f);
  q[0] = -1.0f;
  EXPECT_EQ(t.to_vector<float>()[0], -1.0f);
}

TEST(Tensor, ViewSharesStorageAndSeesWrites) {
  Tensor x = ember::arange(12, ember::kFloat32);
  Tensor v = x.view({3, 4});
  EXPECT_EQ(v.storage().get(), x.storage().get());
  EXPECT_EQ(v.data_ptr(), x.data_ptr());
  EXPECT_EQ(vec(v.strides()), (I{4, 1}));
  EXPECT_TRUE(v.is_view());
  EXPECT_TRUE(v.base().is_same(x));
  // A view of a view records the original base.
  EXPECT_TRUE(v.view({-1}).base().is_same(x));
  v.select(0, 1).fill_(-1.0f);
  EXPECT_EQ(x.to_vector<float>(), (V{0, 1, 2, 3, -1, -1, -1, -1, 8, 9, 10, 11}));
}

TEST(Tensor, ReshapeOfContiguousIsAView) {
  Tensor x = iota({2, 6});
  Tensor r = x.reshape({3, -1});
  EXPECT_EQ(vec(r.sizes()), (I{3, 4}));
  EXPECT_EQ(r.storage().get(), x.storage().get());
  EXPECT_EQ(r.data_ptr(), x.data_ptr());
}

TEST(Tensor, ReshapeOfTransposedCopies) {
  Tensor x = iota({2, 3});
  Tensor r = x.t().reshape({6});
  EXPECT_NE(r.storage().get(), x.storage().get());
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.to_vector<float>(), (V{0, 3, 1, 4, 2, 5}));
  // view refuses what reshape copies.
  EXPECT_EMBER_ERROR(x.t().view({6}), ErrorKind::Runtime, "[view]");
}

TEST(Tensor, PermuteReordersSizesAndStrides) {
  Tensor x = iota({2, 3, 4});
  Tensor p = x.permute({2, 0, 1});
  EXPECT_EQ(vec(p.sizes()), (I{4, 2, 3}));
  EXPECT_EQ(vec(p.strides()), (I{1, 12, 4}));
  EXPECT_EQ(p.data_ptr(), x.data_ptr());
  EXPECT_FALSE(p.is_contiguous());
  // p[k][i][j] == x[i][j][k]
  EXPECT_EQ(p.select(0, 3).select(0, 1).select(0, 2).item<float>(), 1 * 12 + 2 * 4 + 3);
  EXPECT_EMBER_ERROR(x.permute({0, 0, 1}), ErrorKind::Runtime, "[permute]");
  EXPECT_EMBER_ERROR(x.permute({0, 1}), ErrorKind::Runtime, "[permute]");
}

TEST(Tensor, TransposeAndT) {
  Tensor x = iota({2, 3});
  for (const Tensor& y : {x.transpose(0, 1), x.t(), x.transpose(-1, -2)}) {
    EXPECT_EQ(vec(y.sizes()), (I{3, 2}));
    EXPECT_EQ(vec(y.strides()), (I{1, 3}));
    EXPECT_EQ(y.data_ptr(), x.data_ptr());
    EXPECT_FALSE(y.is_contiguous());
    EXPECT_EQ(y.to_vector<float>(), (V{0, 3, 1, 4, 2, 5}));
  }
  // t() of a 1-d tensor is itself.
  EXPECT_EQ(vec(ember::arange(3).t().sizes()), (I{3}));
  EXPECT_EMBER_ERROR(iota({2, 2, 2}).t(), ErrorKind::Runtime, "[t]");
}

TEST(Tensor, ExpandUsesStrideZero) {
  Tensor x = ember::tensor({1.f, 2.f, 3.f}).view({3, 1});
  Tensor e = x.expand({2, 3, 4});
  EXPECT_EQ(vec(e.sizes()), (I{2, 3, 4}));
  EXPECT_EQ(vec(e.strides()), (I{0, 1, 0}));
  EXPECT_EQ(e.data_ptr(), x.data_ptr());
  EXPECT_FALSE(e.is_contiguous());
  EXPECT_EQ(e.sum().item<float>(), 2 * 4 * (1 + 2 + 3));
  EXPECT_EQ(vec(x.expand({-1, 5}).sizes()), (I{3, 5}));
  EXPECT_EMBER_ERROR(x.expand({4, 2}), ErrorKind::Runtime, "[expand]");
}

TEST(Tensor, SqueezeAndUnsqueeze) {
  Tensor x = ember::zeros({2, 1, 3, 1});
  EXPECT_EQ(vec(x.squeeze().sizes()), (I{2, 3}));
  EXPECT_EQ(vec(x.squeeze(1).sizes()), (I{2, 3, 1}));
  EXPECT_EQ(vec(x.squeeze(-1).sizes()), (I{2, 1, 3}));
  EXPECT_EQ(vec(x.squeeze(0).sizes()), (I{2, 1, 3, 1}));  // size 2: unchanged
  EXPECT_EQ(x.squeeze().data_ptr(), x.data_ptr());

  Tensor y = iota({2, 3});
  Tensor u0 = y.unsqueeze(0), u1 = y.unsqueeze(1), ul = y.unsqueeze(-1);
  EXPECT_EQ(vec(u0.sizes()), (I{1, 2, 3}));
  EXPECT_EQ(vec(u1.sizes()), (I{2, 1, 3}));
  EXPECT_EQ(vec(u1.strides()), (I{3, 3, 1}));
  EXPECT_EQ(vec(ul.sizes()), (I{2, 3, 1}));
  EXPECT_EQ(vec(ul.strides()), (I{3, 1, 1}));
  EXPECT_TRUE(u1.is_contiguous());
  EXPECT_EQ(ul.data_ptr(), y.data_ptr());
  EXPECT_EMBER_ERROR(y.unsqueeze(3), ErrorKind::Index, "[unsqueeze]");
}

TEST(Tensor, FlattenIsAViewWhenContiguous) {
  Tensor x = iota({2, 3, 4});
  Tensor f = x.flatten(1);
  EXPECT_EQ(vec(f.sizes()), (I{2, 12}));
  EXPECT_EQ(f.storage().get(), x.storage().get());
  EXPECT_EQ(vec(x.flatten().sizes()), (I{24}));
  EXPECT_EQ(vec(x.flatten(0, 1).sizes()), (I{6, 4}));
  // A 0-d tensor flattens to one element.
  EXPECT_EQ(vec(ember::scalar_tensor(5.0).flatten().sizes()), (I{1}));
  Tensor ft = x.transpose(0, 2).flatten();
  EXPECT_NE(ft.storage().get(), x.storage().get());
  EXPECT_EQ(ft.to_vector<float>()[1], 12.0f);  // x[1][0][0]
}

TEST(Tensor, NarrowOffsetsIntoStorage) {
  Tensor x = iota({3, 4});
  Tensor n = x.narrow(1, 1, 2);
  EXPECT_EQ(vec(n.sizes()), (I{3, 2}));
  EXPECT_EQ(vec(n.strides()), (I{4, 1}));
  EXPECT_EQ(n.storage_offset(), 1);
  EXPECT_EQ(byte_offset(n, x), 4);
  EXPECT_FALSE(n.is_contiguous());
  EXPECT_EQ(n.to_vector<float>(), (V{1, 2, 5, 6, 9, 10}));
  Tensor rows = x.narrow(0, -2, 2);  // negative start counts from the end
  EXPECT_EQ(rows.storage_offset(), 4);
  EXPECT_TRUE(rows.is_contiguous());
  EXPECT_EMBER_ERROR(x.narrow(1, 3, 2), ErrorKind::Runtime, "[narrow]");
}

TEST(Tensor, SelectDropsADim) {
  Tensor x = iota({3, 4});
  Tensor row = x.select(0, 2);
  EXPECT_EQ(vec(row.sizes()), (I{4}));
  EXPECT_EQ(row.storage_offset(), 8);
  EXPECT_EQ(byte_offset(row, x), 32);
  EXPECT_EQ(row.to_vector<float>(), (V{8, 9, 10, 11}));
  Tensor col = x.select(1, -1);
  EXPECT_EQ(vec(col.strides()), (I{4}));
  EXPECT_EQ(col.storage_offset(), 3);
  EXPECT_EQ(col.to_vector<float>(), (V{3, 7, 11}));
  EXPECT_EQ(x[1][2].item<float>(), 6.0f);
  EXPECT_EQ(x[1][2].dim(), 0);
  EXPECT_EMBER_ERROR(x.select(0, 3), ErrorKind::Index, "[select]");
  EXPECT_EMBER_ERROR(x[0][0].select(0, 0), ErrorKind::Index, "[select]");
}

TEST(Tensor, SliceWithStepAndPythonClamping) {
  Tensor x = iota({3, 5});
  Tensor s = x.slice(1, 1, std::nullopt, 2);  // x[:, 1::2]
  EXPECT_EQ(vec(s.sizes()), (I{3, 2}));
  EXPECT_EQ(vec(s.strides()), (I{5, 2}));
  EXPECT_EQ(s.storage_offset(), 1);
  EXPECT_EQ(s.to_vector<float>(), (V{1, 3, 6, 8, 11, 13}));
  Tensor s2 = x.slice(1, 0, 5, 3);  // x[:, 0:5:3]
  EXPECT_EQ(s2.to_vector<float>(), (V{0, 3, 5, 8, 10, 13}));
  Tensor tail = x.slice(0, -2, 100);  // x[-2:100]
  EXPECT_EQ(vec(tail.sizes()), (I{2, 5}));
  EXPECT_EQ(tail.storage_offset(), 5);
  EXPECT_EQ(x.slice(0, 2, 1).numel(), 0);  // empty, never negative
  EXPECT_EMBER_ERROR(x.slice(0, 0, 2, 0), ErrorKind::Value, "[slice]");
}

TEST(Tensor, AsStridedReadsTheGivenGeometry) {
  Tensor x = ember::arange(6, ember::kFloat32);
  Tensor a = ember::as_strided(x, {2, 2}, {1, 2}, 1);
  EXPECT_EQ(a.storage_offset(), 1);
  EXPECT_EQ(a.data_ptr(), x[1].data_ptr());
  EXPECT_EQ(a.to_vector<float>(), (V{1, 3, 2, 4}));
  // Overlapping windows, as in a sliding window.
  Tensor w = ember::as_strided(x, {3, 3}, {1, 1});
  EXPECT_EQ(w.to_vector<float>(), (V{0, 1, 2, 1, 2, 3, 2, 3, 4}));
  // The last element would be 4 + 2 = 6, one past the storage.
  EXPECT_EMBER_ERROR(ember::as_strided(x, {2, 2}, {4, 2}, 0), ErrorKind::Runtime, "[as_strided]");
}

TEST(Tensor, ContiguityFlags) {
  // Dims of size 1 may have any stride; empty tensors are always contiguous.
  EXPECT_TRUE(ember::empty_strided({2, 1, 3}, {3, 100, 1}).is_contiguous());
  EXPECT_FALSE(ember::empty_strided({2, 3}, {1, 2}).is_contiguous());
  EXPECT_FALSE(iota({2, 3}).expand({4, 2, 3}).is_contiguous());
  EXPECT_TRUE(iota({1, 3}).expand({1, 3}).is_contiguous());
  EXPECT_TRUE(iota({4, 3}).select(1, 0).unsqueeze(1).squeeze(1).narrow(0, 0, 1).is_contiguous());
}

// As tensor_impl.h (and PyTorch) say: a tensor without elements is contiguous, whatever its
// strides.
TEST(Tensor, EmptyTensorsAreAlwaysContiguous) {
  EXPECT_TRUE(ember::empty_strided({0, 3}, {1, 7}).is_contiguous());
  EXPECT_TRUE(ember::zeros({2, 0, 3}).transpose(0, 2).is_contiguous());
}

TEST(Tensor, ContiguousCopiesOnlyWhenNeeded) {
  Tensor x = iota({2, 3});
  EXPECT_TRUE(x.contiguous().is_same(x));
  Tensor t = x.t();
  Tensor c = t.contiguous();
  EXPECT_FALSE(c.is_same(t));
  EXPECT_NE(c.storage().get(), x.storage().get());
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(vec(c.strides()), (I{2, 1}));
  EXPECT_EQ(c.to_vector<float>(), (V{0, 3, 1, 4, 2, 5}));
}

TEST(Tensor, CloneIsADeepCopy) {
  Tensor x = iota({2, 2});
  Tensor c = x.clone();
  EXPECT_NE(c.storage().get(), x.storage().get());
  EXPECT_FALSE(c.is_view());
  c.fill_(7.0f);
  EXPECT_EQ(x.to_vector<float>(), (V{0, 1, 2, 3}));
  // Cloning a strided view keeps the values, not the gaps.
  Tensor s = iota({4}).slice(0, 0, std::nullopt, 2).clone();
  EXPECT_EQ(s.storage()->nbytes(), 8u);
  EXPECT_EQ(s.to_vector<float>(), (V{0, 2}));
}

TEST(Tensor, DetachSharesStorageButNotGraph) {
  Tensor x = ember::ones({3}, ember::TensorOptions().requires_grad(true));
  Tensor y = x * 2;
  Tensor d = y.detach();
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_TRUE(y.requires_grad());
  d.fill_(5.0f);
  EXPECT_EQ(y.to_vector<float>(), (V{5, 5, 5}));
  EXPECT_EQ(d.version(), y.version());
}

TEST(Tensor, ToVectorConvertsAndFollowsStrides) {
  Tensor x = ember::tensor({{1.5f, -2.5f}, {3.25f, 4.0f}});
  EXPECT_EQ(x.t().to_vector<float>(), (V{1.5f, 3.25f, -2.5f, 4.0f}));
  EXPECT_EQ(x.to_vector<int64_t>(), (I{1, -2, 3, 4}));  // C cast: toward zero
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{1.5, -2.5, 3.25, 4.0}));
  EXPECT_EQ(ember::tensor({0.0f, 2.0f}).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(ember::tensor<int64_t>({7, 8}).to(ember::kUInt8).to_vector<uint8_t>(),
            (std::vector<uint8_t>{7, 8}));
}

TEST(Tensor, ItemReturnsTheOneValue) {
  EXPECT_EQ(ember::scalar_tensor(2.5).item<float>(), 2.5f);
  EXPECT_TRUE(ember::scalar_tensor(2.5).item().is_floating());
  EXPECT_EQ(ember::scalar_tensor(int64_t{1} << 40).item<int64_t>(), int64_t{1} << 40);
  EXPECT_TRUE(ember::scalar_tensor(int64_t{3}).item().is_integral());
  EXPECT_TRUE(ember::scalar_tensor(true).item<bool>());
  EXPECT_EQ(ember::ones({1, 1}, ember::kFloat64).item<double>(), 1.0);
  EXPECT_EMBER_ERROR(ember::ones({2}).item(), ErrorKind::Runtime, "[item]");
  EXPECT_EMBER_ERROR(ember::ones({2}).data_ptr<double>(), ErrorKind::Type, "[data_ptr]");
}

// A 0-d tensor has no dim 0 to measure (reductions do accept dim 0 and -1 on it).
TEST(Tensor, SizeOfZeroDimTensorRaises) {
  const Tensor s = ember::scalar_tensor(5.0);
  EXPECT_EMBER_ERROR(s.size(0), ErrorKind::Index, "[size]");
  EXPECT_EMBER_ERROR(s.stride(-1), ErrorKind::Index, "[stride]");
}

TEST(TensorRepr, MatchesPyTorch) {
  EXPECT_EQ(iota({2, 3}).repr(), "tensor([[0., 1., 2.],\n        [3., 4., 5.]])");
  EXPECT_EQ(ember::tensor({1.5f, 2.0f}).repr(), "tensor([1.5000, 2.0000])");
  EXPECT_EQ(ember::tensor({true, false}).repr(), "tensor([ True, False])");
  EXPECT_EQ(ember::scalar_tensor(15.0).repr(), "tensor(15.)");
  EXPECT_EQ(ember::tensor({1.0f, 1234.5678f}).repr(), "tensor([1.0000e+00, 1.2346e+03])");
  EXPECT_EQ(ember::tensor({1e-5f, 1.0f}).repr(), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(ember::empty({0, 3}).repr(), "tensor([], size=(0, 3))");
  EXPECT_EQ(ember::empty({0, 3}, ember::kInt64).repr(),
            "tensor([], size=(0, 3), dtype=ember.int64)");
  EXPECT_EQ(ember::tensor<int64_t>({1, -20, 300, 4}, {2, 2}).repr(),
            "tensor([[  1, -20],\n        [300,   4]])");
  EXPECT_EQ(ember::scalar_tensor(int64_t{7}).repr(), "tensor(7)");
  EXPECT_EQ(ember::tensor<int64_t>({1, 2}, {}, ember::kInt32).repr(),
            "tensor([1, 2], dtype=ember.int32)");
  EXPECT_EQ(ember::tensor<double>({1.25, -2.5}, {}, ember::kFloat64).repr(),
            "tensor([ 1.2500, -2.5000], dtype=ember.float64)");
  EXPECT_EQ(ember::tensor({0.5f, 65504.0f}).to(ember::kFloat16).repr(),
            "tensor([5.0000e-01, 6.5504e+04], dtype=ember.float16)");
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ember::tensor({std::numeric_limits<float>::quiet_NaN(), inf, -1.5f}).repr(),
            "tensor([    nan,     inf, -1.5000])");
}

TEST(TensorRepr, AutogradSuffixes) {
  Tensor x = ember::tensor({1.0f, 2.0f}, ember::TensorOptions().requires_grad(true));
  EXPECT_EQ(x.repr(), "tensor([1., 2.], requires_grad=True)");
  EXPECT_EQ((x * 2).repr(), "tensor([2., 4.], grad_fn=<MulBackward0>)");
}

TEST(TensorRepr, SummarisesAndWrapsLongTensors) {
  EXPECT_EQ(ember::arange(2000).repr(), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  EXPECT_EQ(ember::arange(30, ember::kFloat32).repr(),
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
            "        28., 29.])");
}

TEST(TensorErrors, KindAndMessageNameTheOp) {
  Tensor x = iota({2, 3});
  EXPECT_EMBER_ERROR(x.transpose(0, 2), ErrorKind::Index, "[transpose] dim 2 is out of range");
  EXPECT_EMBER_ERROR(x.sum({-3}), ErrorKind::Index, "[sum]");
  EXPECT_EMBER_ERROR(x.size(2), ErrorKind::Index, "[size]");
  EXPECT_EMBER_ERROR(x.view({4, 2}), ErrorKind::Runtime, "[view] shape [4, 2] is invalid");
  EXPECT_EMBER_ERROR(x.reshape({-1, -1}), ErrorKind::Runtime, "[reshape]");
  EXPECT_EMBER_ERROR(x + ember::ones({4}), ErrorKind::Runtime, "[add] shapes [2, 3] and [4]");
  EXPECT_EMBER_ERROR(x.mm(x), ErrorKind::Runtime, "[mm]");
  EXPECT_EMBER_ERROR(x.matmul(ember::ones({2})), ErrorKind::Runtime, "[matmul]");
  EXPECT_EMBER_ERROR(ember::zeros({-1}), ErrorKind::Runtime, "[zeros] expected non-negative sizes");
}

}  // namespace

TEST(MemoryFormat, ChannelsLastStridesAndElementwise) {
  using ember::MemoryFormat;
  const ember::Tensor x = ember::arange(24, ember::kFloat32).reshape({1, 2, 3, 4});
  const ember::Tensor y = x.contiguous(MemoryFormat::ChannelsLast);
  EXPECT_EQ(std::vector<int64_t>(y.strides().begin(), y.strides().end()),
            (std::vector<int64_t>{24, 1, 8, 2}));
  EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_FALSE(y.is_contiguous());
  EXPECT_EQ(y.suggest_memory_format(), MemoryFormat::ChannelsLast);
  // Element (0, 1, 2, 3) is 23 wherever it sits in memory: offset 1*1 + 2*8 + 3*2 = 23.
  EXPECT_EQ(static_cast<const float*>(y.data_ptr())[23], 23.0f);
  const ember::Tensor z = ember::relu(y - 5);
  EXPECT_TRUE(z.is_contiguous(MemoryFormat::ChannelsLast));
  EXPECT_EQ(z.contiguous().to_vector<float>()[23], 18.0f);
  EXPECT_EQ(ember::empty_like(y).strides(), y.strides());
  EXPECT_THROW(ember::arange(6).reshape({1, 2, 3}).contiguous(MemoryFormat::ChannelsLast),
               ember::Error);
}
