// The convolution, linear and bilinear ops through the C++ API, with values worked out by hand.
#include "test_util.h"

using namespace ember;
using ember_test::vec;

namespace {

std::vector<double> values(const Tensor& t) {
  return t.to(kFloat64).contiguous().to_vector<double>();
}

// 1..9 as a [1, 1, 3, 3] image.
Tensor image(DType dtype) { return (arange(9, dtype) + 1).view({1, 1, 3, 3}); }

}  // namespace

TEST(NnConv, Conv2dSumsEachWindowAndAddsTheBias) {
  for (DType dtype : {kFloat32, kFloat64}) {
    // 2x2 windows of [[1,2,3],[4,5,6],[7,8,9]]: 1+2+4+5 = 12, 16, 24, 28; bias 1.
    const Tensor y = conv2d(image(dtype), ones({1, 1, 2, 2}, dtype), ones({1}, dtype));
    EXPECT_EQ(vec(y.sizes()), (std::vector<int64_t>{1, 1, 2, 2}));
    EXPECT_EQ(values(y), (std::vector<double>{13, 17, 25, 29}));
    // Stride 2 with padding 1: the windows at (-1,-1), (-1,1), (1,-1), (1,1).
    const Tensor s = conv2d(image(dtype), ones({1, 1, 2, 2}, dtype), {}, 2, 1);
    EXPECT_EQ(values(s), (std::vector<double>{1, 5, 11, 28}));
  }
}

TEST(NnConv, Conv2dGradientsCountTheWindows) {
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = image(dtype).requires_grad_();
    Tensor w = ones({1, 1, 2, 2}, dtype).requires_grad_();
    Tensor b = zeros({1}, dtype).requires_grad_();
    conv2d(x, w, b).sum().backward();
    // Each pixel is in as many windows as cover it; each tap sees one window sum.
    EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
    EXPECT_EQ(values(w.grad()), (std::vector<double>{12, 16, 24, 28}));
    EXPECT_EQ(values(b.grad()), (std::vector<double>{4}));
  }
}

TEST(NnConv, GroupsScaleTheirOwnChannels) {
  // Depthwise 1x1: channel 0 times 1, channel 1 times 2.
  const Tensor x = arange(8, kFloat32).view({1, 2, 2, 2});
  const Tensor w = tensor<float>({1, 2}, {2, 1, 1, 1});
  EXPECT_EQ(values(conv2d(x, w, {}, 1, 0, 1, 2)), (std::vector<double>{0, 1, 2, 3, 8, 10, 12, 14}));
}

TEST(NnConv, ChannelsLastInputGivesChannelsLastOutput) {
  const Tensor x =
      image(kFloat32).expand({1, 2, 3, 3}).permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  const Tensor y = conv2d(x, ones({2, 2, 2, 2}), ones({2}));
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{8, 1, 4, 2}));  // [N, H, W, C] in memory
  EXPECT_EQ(values(y), (std::vector<double>{25, 33, 49, 57, 25, 33, 49, 57}));
}

TEST(NnConv, SamePaddingPutsTheOddUnitAfter) {
  const Tensor x = arange(5, kFloat32).view({1, 1, 5});
  const Tensor y = conv1d(x, tensor<float>({1, 10}, {1, 1, 2}), {}, 1, "same");
  EXPECT_EQ(values(y), (std::vector<double>{10, 21, 32, 43, 4}));
  EXPECT_EQ(values(conv1d(x, tensor<float>({1, 10}, {1, 1, 2}), {}, 1, "valid")),
            (std::vector<double>{10, 21, 32, 43}));
}

TEST(NnConv, TransposedConvolutionSpreadsEachInput) {
  // Stride 2 with a 2x2 kernel of ones: each input value fills its own 2x2 block.
  const Tensor x = tensor<double>({1, 2, 3, 4}, {1, 1, 2, 2}, kFloat64);
  const Tensor y = conv_transpose2d(x, ones({1, 1, 2, 2}, kFloat64), {}, 2);
  EXPECT_EQ(values(y), (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // output_padding adds a last row and column that no input reaches.
  const Tensor p = conv_transpose2d(x, ones({1, 1, 1, 1}, kFloat64), ones({1}, kFloat64), 2, 0, 1);
  EXPECT_EQ(values(p), (std::vector<double>{2, 1, 3, 1, 1, 1, 1, 1, 4, 1, 5, 1, 1, 1, 1, 1}));
}

TEST(NnConv, LinearAndBilinear) {
  const Tensor x = tensor<float>({1, 2}, {1, 2});
  const Tensor w = tensor<float>({1, 0, 0, 1, 1, 1}, {3, 2});
  EXPECT_EQ(values(linear(x, w, ones({3}))), (std::vector<double>{2, 3, 4}));
  // 1 * 3 * 1 + 2 * 3 * 1 = 9, plus bias 1.
  const Tensor b = bilinear(tensor<float>({1, 2}, {1, 2}), tensor<float>({3}, {1, 1}),
                            ones({1, 2, 1}), ones({1}));
  EXPECT_EQ(values(b), (std::vector<double>{10}));
}

TEST(NnConv, ErrorsNameTheOpAndTheShapes) {
  EXPECT_EMBER_ERROR(conv2d(ones({1, 2, 3, 3}), ones({1, 3, 2, 2})), ErrorKind::Runtime,
                     "[conv2d] Given groups=1, weight of size [1, 3, 2, 2], expected input[1, 2, "
                     "3, 3] to have 3 channels, but got 2 channels instead");
  EXPECT_EMBER_ERROR(conv2d(ones({1, 1, 3, 3}), ones({1, 1, 2, 2}), {}, 2, "same"),
                     ErrorKind::Runtime, "not supported for strided convolutions");
  EXPECT_EMBER_ERROR(conv2d(ones({1, 1, 3, 3}, kInt64), ones({1, 1, 2, 2}, kInt64)),
                     ErrorKind::Type, "[conv2d] expected a floating-point input");
  EXPECT_EMBER_ERROR(conv_transpose2d(ones({1, 1, 3, 3}), ones({1, 1, 2, 2}), {}, 1, 0, 1),
                     ErrorKind::Runtime, "output padding must be smaller");
  EXPECT_EMBER_ERROR(linear(ones({2, 3}), ones({4, 5})), ErrorKind::Runtime,
                     "[linear] input and weight shapes cannot be multiplied");
}

TEST(NnConv, WinogradSwitch) {
  // Ones through a 16 -> 16 3x3 convolution with padding 1 at 14x14 (large enough for the
  // Winograd kernel): each output sums 16 channels times the taps inside the image, 9 inside,
  // 6 on an edge, 4 at a corner. The direct kernel adds integers exactly; Winograd's transforms
  // (fractions such as 1/6 and 1/24) leave rounding, far below 1.
  EXPECT_TRUE(allow_winograd());  // the default
  const Tensor x = ones({1, 16, 14, 14}), w = ones({16, 16, 3, 3});
  auto expected = [](int64_t i) {
    const int64_t r = i % 196 / 14, c = i % 14;
    return 16.0 * double((r == 0 || r == 13 ? 2 : 3) * (c == 0 || c == 13 ? 2 : 3));
  };
  for (bool allow : {true, false}) {
    set_allow_winograd(allow);
    EXPECT_EQ(allow_winograd(), allow);
    const std::vector<double> y = values(conv2d(x, w, {}, 1, 1));
    ASSERT_EQ(y.size(), 16u * 196u);
    for (size_t i = 0; i < y.size(); ++i) {
      if (allow)
        EXPECT_NEAR(y[i], expected(int64_t(i)), 1e-3) << i;
      else
        EXPECT_EQ(y[i], expected(int64_t(i))) << i;
    }
  }
  set_allow_winograd(true);
}
