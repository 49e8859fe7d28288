// The pooling and resampling ops through the C++ API, on hand-checked values: max pooling with
// indices and its gradient, average pooling's divisors, adaptive windows, interpolate, pixel
// shuffle, unfold/fold, channels-last layouts kept, errors.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using ember_test::iota;
using ember_test::vec;
using V = std::vector<float>;
using I = std::vector<int64_t>;

// x (4-d) with the same values in NHWC memory order.
Tensor channels_last(const Tensor& x) {
  return x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
}

TEST(NnPool, MaxPoolValuesIndicesAndGradient) {
  Tensor x = iota({1, 1, 4, 4}).requires_grad_();
  auto [out, idx] = ember::max_pool2d_with_indices(x, {2});
  EXPECT_EQ(out.to_vector<float>(), (V{5, 7, 13, 15}));
  EXPECT_EQ(idx.to_vector<int64_t>(), (I{5, 7, 13, 15}));
  EXPECT_EQ(idx.dtype(), ember::kInt64);
  out.sum().backward();
  // One gradient per window, at its max.
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1}));
  // Overlapping windows (stride 1) add up where they share a max: 8 is the max of all four.
  Tensor z = ember::tensor({{0.f, 1.f, 0.f}, {1.f, 8.f, 1.f}, {0.f, 1.f, 0.f}})
                 .view({1, 1, 3, 3})
                 .requires_grad_();
  Tensor y = ember::max_pool2d(z, {2}, {1});
  EXPECT_EQ(y.to_vector<float>(), (V{8, 8, 8, 8}));
  y.sum().backward();
  EXPECT_EQ(z.grad().to_vector<float>(), (V{0, 0, 0, 0, 4, 0, 0, 0, 0}));
}

TEST(NnPool, MaxPoolOneAndThreeDims) {
  // ceil mode keeps a window only if it starts inside the input or the left padding.
  Tensor x = iota({1, 1, 4});
  EXPECT_EQ(vec(ember::max_pool1d(x, {2}, {3}, {1}, {1}, true).sizes()), (I{1, 1, 2}));
  auto [v, i] = ember::max_pool3d_with_indices(iota({1, 1, 2, 2, 2}), {2});
  EXPECT_EQ(v.to_vector<float>(), V{7});
  EXPECT_EQ(i.to_vector<int64_t>(), I{7});
}

TEST(NnPool, AveragePoolDivisors) {
  Tensor x = ember::ones({1, 1, 3, 3});
  // The corner window holds 4 input elements of 9.
  EXPECT_FLOAT_EQ(ember::avg_pool2d(x, {3}, {1}, {1}).to_vector<float>()[0], 4.f / 9.f);
  EXPECT_FLOAT_EQ(ember::avg_pool2d(x, {3}, {1}, {1}, false, false).to_vector<float>()[0], 1.f);
  EXPECT_FLOAT_EQ(ember::avg_pool2d(x, {3}, {1}, {1}, false, true, 2).to_vector<float>()[4], 4.5f);
  // Its gradient spreads each output's gradient over its window, divided the same way.
  Tensor xg = ember::ones({1, 1, 2, 2}).requires_grad_();
  ember::avg_pool2d(xg, {2}).sum().backward();
  EXPECT_EQ(xg.grad().to_vector<float>(), (V{0.25f, 0.25f, 0.25f, 0.25f}));
}

TEST(NnPool, AdaptivePools) {
  Tensor x = iota({1, 1, 5});
  // Windows [0, 2), [1, 4), [3, 5).
  EXPECT_EQ(ember::adaptive_avg_pool1d(x, {3}).to_vector<float>(), (V{0.5f, 2.f, 3.5f}));
  auto [v, i] = ember::adaptive_max_pool1d(x, {3});
  EXPECT_EQ(v.to_vector<float>(), (V{1, 3, 4}));
  EXPECT_EQ(i.to_vector<int64_t>(), (I{1, 3, 4}));
  Tensor h = iota({2, 3, 2, 2});
  EXPECT_EQ(ember::adaptive_avg_pool2d(h, {1}).to_vector<float>(),
            (V{1.5f, 5.5f, 9.5f, 13.5f, 17.5f, 21.5f}));
}

TEST(NnPool, ChannelsLastIsKept) {
  Tensor x = channels_last(iota({2, 3, 4, 4}));
  Tensor y = ember::max_pool2d(x, {2});
  EXPECT_EQ(vec(y.sizes()), (I{2, 3, 2, 2}));
  EXPECT_EQ(vec(y.strides()), (I{12, 1, 6, 3}));
  EXPECT_EQ(y.contiguous().to_vector<float>(),
            ember::max_pool2d(iota({2, 3, 4, 4}), {2}).to_vector<float>());
  EXPECT_EQ(vec(ember::avg_pool2d(x, {2}).strides()), (I{12, 1, 6, 3}));
  EXPECT_EQ(vec(ember::interpolate(x, std::vector<int64_t>{8, 8}).strides()), (I{192, 1, 24, 3}));
}

TEST(NnPool, Interpolate) {
  Tensor x = ember::tensor({{1.f, 2.f}, {3.f, 4.f}}).view({1, 1, 2, 2});
  Tensor near = ember::interpolate(x, std::nullopt, std::vector<double>{2, 2});
  EXPECT_EQ(near.to_vector<float>()[0], 1.f);
  EXPECT_EQ(near.to_vector<float>()[2], 2.f);
  // Bilinear with aligned corners: thirds between the corners.
  Tensor lin = ember::interpolate(x, std::vector<int64_t>{4, 4}, std::nullopt, "bilinear", true);
  EXPECT_NEAR(lin.to_vector<float>()[1], 4.f / 3.f, 1e-6);
  EXPECT_NEAR(lin.to_vector<float>()[5], 2.f, 1e-6);
  // Linear: output 1 of 5 reads (1.5) * 3 / 5 - 0.5 = 0.4 between 1 and 2.
  Tensor line = ember::tensor({1.f, 2.f, 4.f}).view({1, 1, 3});
  EXPECT_NEAR(ember::interpolate(line, std::vector<int64_t>{5}, std::nullopt, "linear")
                  .to_vector<float>()[1],
              1.4f, 1e-6);
  EXPECT_EMBER_ERROR(ember::interpolate(x, std::nullopt), ErrorKind::Value,
                     "either size or scale_factor");
  EXPECT_EMBER_ERROR(ember::interpolate(x, std::vector<int64_t>{2, 2}, std::nullopt, "linear"),
                     ErrorKind::NotImplemented, "needs 3D input");
}

TEST(NnPool, PixelShuffleAndFold) {
  Tensor x = iota({1, 4, 1, 1});
  EXPECT_EQ(ember::pixel_shuffle(x, 2).to_vector<float>(), (V{0, 1, 2, 3}));
  EXPECT_EQ(vec(ember::pixel_unshuffle(ember::pixel_shuffle(x, 2), 2).sizes()), (I{1, 4, 1, 1}));
  Tensor cols = ember::im2col(iota({1, 1, 3, 3}), {2});
  EXPECT_EQ(vec(cols.sizes()), (I{1, 4, 4}));
  EXPECT_EQ(cols.to_vector<float>(), (V{0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8}));
  // col2im adds the blocks back: the centre pixel is in all four.
  Tensor back = ember::col2im(ember::im2col(ember::ones({1, 1, 3, 3}), {2}), {3}, {2});
  EXPECT_EQ(back.to_vector<float>(), (V{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(NnPool, MaxUnpool) {
  auto [v, i] = ember::max_pool2d_with_indices(iota({1, 1, 2, 4}), {2});
  Tensor u = ember::max_unpool2d(v, i, {2});
  EXPECT_EQ(u.to_vector<float>(), (V{0, 0, 0, 0, 0, 5, 0, 7}));
  EXPECT_EMBER_ERROR(ember::max_unpool2d(v, i + 8, {2}), ErrorKind::Runtime,
                     "invalid max index: 13");
}

TEST(NnPool, Errors) {
  Tensor x = ember::ones({1, 1, 4, 4});
  EXPECT_EMBER_ERROR(ember::max_pool2d(x, {3}, {1}, {2}), ErrorKind::Runtime,
                     "[max_pool2d] pad should be at most half");
  EXPECT_EMBER_ERROR(ember::max_pool2d(ember::ones({4}), {2}), ErrorKind::Runtime, "3D or 4D");
  EXPECT_EMBER_ERROR(ember::avg_pool2d(x, {2}, {}, {0}, false, true, 0), ErrorKind::Runtime,
                     "divisor must be not zero");
  EXPECT_EMBER_ERROR(ember::max_pool2d(x.to(ember::kBool), {2}), ErrorKind::NotImplemented,
                     "dtype bool");
  EXPECT_EMBER_ERROR(ember::col2im(ember::ones({1, 7, 4}), {3}, {2}), ErrorKind::Runtime,
                     "divisible by the product");
}

TEST(NnPool, SameResultOnOneAndTwoThreads) {
  ember_test::NumThreadsGuard guard;
  Tensor x = channels_last(ember::randn({1, 40, 9, 9})).requires_grad_();
  auto grad_of = [&](int threads) {
    ember::set_num_threads(threads);
    Tensor y = ember::interpolate(x, std::vector<int64_t>{13, 5}, std::nullopt, "bicubic");
    Tensor g = ember::arange(y.numel(), ember::kFloat32).view({1, 40, 13, 5});
    return ember::grad({y}, {x}, {g})[0].contiguous().to_vector<float>();
  };
  EXPECT_EQ(grad_of(1), grad_of(2));
}

}  // namespace
