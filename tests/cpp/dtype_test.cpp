// Type promotion (promote_types, result_type) and the float16/bfloat16 conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using namespace ember;  // the kFloat32... constants make the tables readable

// Copied from torch.promote_types over all pairs, in enum order (bool ... complex128).
constexpr DType kPromoteTable[12][12] = {
    {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64,
     kComplex64, kComplex128},
    {kUInt8, kUInt8, kInt16, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64,
     kComplex64, kComplex128},
    {kInt8, kInt16, kInt8, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64,
     kComplex64, kComplex128},
    {kInt16, kInt16, kInt16, kInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64,
     kComplex64, kComplex128},
    {kInt32, kInt32, kInt32, kInt32, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64,
     kComplex64, kComplex128},
    {kInt64, kInt64, kInt64, kInt64, kInt64, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64,
     kComplex64, kComplex128},
    {kFloat16, kFloat16, kFloat16, kFloat16, kFloat16, kFloat16, kFloat16, kFloat32, kFloat32,
     kFloat64, kComplex64, kComplex128},
    {kBFloat16, kBFloat16, kBFloat16, kBFloat16, kBFloat16, kBFloat16, kFloat32, kBFloat16,
     kFloat32, kFloat64, kComplex64, kComplex128},
    {kFloat32, kFloat32, kFloat32, kFloat32, kFloat32, kFloat32, kFloat32, kFloat32, kFloat32,
     kFloat64, kComplex64, kComplex128},
    {kFloat64, kFloat64, kFloat64, kFloat64, kFloat64, kFloat64, kFloat64, kFloat64, kFloat64,
     kFloat64, kComplex128, kComplex128},
    {kComplex64, kComplex64, kComplex64, kComplex64, kComplex64, kComplex64, kComplex64, kComplex64,
     kComplex64, kComplex128, kComplex64, kComplex128},
    {kComplex128, kComplex128, kComplex128, kComplex128, kComplex128, kComplex128, kComplex128,
     kComplex128, kComplex128, kComplex128, kComplex128, kComplex128},
};

TEST(PromoteTypes, NamedCases) {
  EXPECT_EQ(promote_types(kUInt8, kInt8), kInt16);
  EXPECT_EQ(promote_types(kInt8, kUInt8), kInt16);
  EXPECT_EQ(promote_types(kUInt8, kInt32), kInt32);
  EXPECT_EQ(promote_types(kFloat16, kBFloat16), kFloat32);
  EXPECT_EQ(promote_types(kBFloat16, kFloat16), kFloat32);
  EXPECT_EQ(promote_types(kInt64, kFloat16), kFloat16);
  EXPECT_EQ(promote_types(kBool, kInt8), kInt8);
  EXPECT_EQ(promote_types(kBool, kBool), kBool);
  EXPECT_EQ(promote_types(kInt32, kFloat64), kFloat64);
}

TEST(PromoteTypes, MatchesPyTorchTableForAllPairs) {
  for (int a = 0; a < kNumDTypes; ++a) {
    for (int b = 0; b < kNumDTypes; ++b) {
      EXPECT_EQ(promote_types(DType(a), DType(b)), kPromoteTable[a][b])
          << DType(a) << " + " << DType(b);
    }
  }
}

Tensor dimensioned(DType d) { return ember::ones({2}, d); }
Tensor zero_dim(DType d) { return ember::ones({}, d); }

TEST(ResultType, DimensionedTensorsPromote) {
  EXPECT_EQ(result_type(dimensioned(kUInt8), dimensioned(kInt8)), kInt16);
  EXPECT_EQ(result_type(dimensioned(kBFloat16), dimensioned(kFloat16)), kFloat32);
  EXPECT_EQ(result_type(dimensioned(kInt64), dimensioned(kFloat16)), kFloat16);
}

TEST(ResultType, ZeroDimTensorsRankBelowDimensioned) {
  // Same category: the dimensioned tensor's dtype wins.
  EXPECT_EQ(result_type(dimensioned(kInt8), zero_dim(kInt64)), kInt8);
  EXPECT_EQ(result_type(zero_dim(kInt64), dimensioned(kInt8)), kInt8);
  EXPECT_EQ(result_type(dimensioned(kInt8), zero_dim(kUInt8)), kInt8);
  EXPECT_EQ(result_type(dimensioned(kFloat16), zero_dim(kFloat64)), kFloat16);
  EXPECT_EQ(result_type(dimensioned(kInt32), zero_dim(kBool)), kInt32);
  // Higher category: the 0-d tensor's own dtype is used (not the default dtype).
  EXPECT_EQ(result_type(dimensioned(kInt32), zero_dim(kFloat64)), kFloat64);
  EXPECT_EQ(result_type(dimensioned(kInt16), zero_dim(kBFloat16)), kBFloat16);
  EXPECT_EQ(result_type(dimensioned(kBool), zero_dim(kInt16)), kInt16);
  // Two 0-d tensors promote normally.
  EXPECT_EQ(result_type(zero_dim(kInt64), zero_dim(kFloat16)), kFloat16);
  EXPECT_EQ(result_type(zero_dim(kFloat32), zero_dim(kFloat64)), kFloat64);
}

TEST(ResultType, ScalarsAreWeak) {
  EXPECT_EQ(result_type(dimensioned(kInt32), Scalar(2.5)), kFloat32);
  EXPECT_EQ(result_type(dimensioned(kFloat16), Scalar(1.0)), kFloat16);
  EXPECT_EQ(result_type(dimensioned(kUInt8), Scalar(1000)), kUInt8);
  EXPECT_EQ(result_type(dimensioned(kBool), Scalar(1)), kInt64);
  EXPECT_EQ(result_type(dimensioned(kBool), Scalar(true)), kBool);
  EXPECT_EQ(result_type(dimensioned(kBool), Scalar(1.5)), kFloat32);
  // A 0-d tensor outranks a scalar.
  EXPECT_EQ(result_type(zero_dim(kInt16), Scalar(7)), kInt16);
  // The float scalar's dtype is the default dtype.
  ember_test::DefaultDTypeGuard f64(kFloat64);
  EXPECT_EQ(result_type(dimensioned(kInt32), Scalar(2.5)), kFloat64);
  EXPECT_EQ(result_type(dimensioned(kFloat32), Scalar(2.5)), kFloat32);
}

TEST(ResultType, OperatorsComputeInThePromotedDtype) {
  Tensor i = ember::tensor<int64_t>({1, 2, 3}, {}, kInt32);
  Tensor r = i * 2.5;
  EXPECT_EQ(r.dtype(), kFloat32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{2.5f, 5.0f, 7.5f}));
  EXPECT_EQ((i * 2).dtype(), kInt32);
  Tensor h = ember::tensor({1.5f, 2.0f}).to(kFloat16) + 1.0;
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(h.to_vector<float>(), (std::vector<float>{2.5f, 3.0f}));
  Tensor s = ember::tensor<int64_t>({100, -100}, {}, kInt8) + ember::scalar_tensor(int64_t{20});
  EXPECT_EQ(s.dtype(), kInt8);
  EXPECT_EQ(s.to_vector<int64_t>(), (std::vector<int64_t>{120, -80}));
  // uint8 + int8 needs int16 to hold both ranges: no wrap-around.
  Tensor w = ember::tensor<int64_t>({200}, {}, kUInt8) + ember::tensor<int64_t>({-100}, {}, kInt8);
  EXPECT_EQ(w.dtype(), kInt16);
  EXPECT_EQ(w.item<int64_t>(), 100);
  // Integer division gives the default float dtype (true division).
  Tensor d = ember::tensor<int64_t>({7, -7}) / ember::tensor<int64_t>({2, 2});
  EXPECT_EQ(d.dtype(), kFloat32);
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{3.5f, -3.5f}));
  // Two 0-d tensors promote as in the table; a 0-d float64 lifts an int tensor to float64.
  Tensor z = dimensioned(kInt32) + zero_dim(kFloat64);
  EXPECT_EQ(z.dtype(), kFloat64);
  EXPECT_EQ(z.to_vector<double>(), (std::vector<double>{2.0, 2.0}));
}

// ---- float16 / bfloat16 ----------------------------------------------------------------------

uint16_t half_bits(float f) { return Half(f).bits; }
uint16_t bf16_bits(float f) { return BFloat16(f).bits; }

TEST(Half, ExactValues) {
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(-2.0f), 0xc000);
  EXPECT_EQ(half_bits(0.1f), 0x2e66);
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);          // largest finite
  EXPECT_EQ(half_bits(6.103515625e-05f), 0x0400);  // smallest normal, 2^-14
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(float(Half::from_bits(0x7bff)), 65504.0f);
  EXPECT_EQ(float(Half::from_bits(0x3555)), 0.333251953125f);
  EXPECT_EQ(float(std::numeric_limits<Half>::epsilon()), 0.0009765625f);
}

TEST(Half, Subnormals) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest subnormal
  EXPECT_EQ(half_bits(tiny), 0x0001);
  EXPECT_EQ(float(Half::from_bits(0x0001)), tiny);
  EXPECT_EQ(float(Half::from_bits(0x03ff)), 1023 * tiny);  // largest subnormal
  EXPECT_EQ(half_bits(1023 * tiny), 0x03ff);
  EXPECT_EQ(float(Half::from_bits(0x8001)), -tiny);
  // Ties round to even: 0.5 ulp -> 0, 1.5 ulp -> 2.
  EXPECT_EQ(half_bits(0.5f * tiny), 0x0000);
  EXPECT_EQ(half_bits(1.5f * tiny), 0x0002);
  EXPECT_EQ(half_bits(0.50001f * tiny), 0x0001);
  EXPECT_EQ(half_bits(1e-8f), 0x0000);
}

TEST(Half, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -10);          // spacing of halves in [1, 2)
  EXPECT_EQ(half_bits(1.0f + 0.5f * ulp), 0x3c00);  // tie, down to even
  EXPECT_EQ(half_bits(1.0f + 1.5f * ulp), 0x3c02);  // tie, up to even
  EXPECT_EQ(half_bits(1.0f + 0.5f * ulp + std::ldexp(1.0f, -20)), 0x3c01);  // above the tie
  EXPECT_EQ(half_bits(65519.0f), 0x7bff);  // below the midpoint to 65536: stays finite
  EXPECT_EQ(half_bits(65520.0f), 0x7c00);  // midpoint: rounds to even, which is inf
}

TEST(Half, InfinityAndNan) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(half_bits(inf), 0x7c00);
  EXPECT_EQ(half_bits(-inf), 0xfc00);
  EXPECT_EQ(half_bits(1e10f), 0x7c00);
  EXPECT_EQ(float(Half::from_bits(0x7c00)), inf);
  EXPECT_TRUE(std::isnan(float(Half(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(float(Half::from_bits(0x7e00))));
  EXPECT_TRUE(std::isnan(float(Half::from_bits(0xfc01))));
}

TEST(Half, EveryFiniteHalfRoundTripsThroughFloat) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const Half h = Half::from_bits(uint16_t(b));
    const float f = float(h);
    if (std::isnan(f)) {
      EXPECT_EQ(b & 0x7c00, 0x7c00u);
      continue;
    }
    ASSERT_EQ(half_bits(f), b) << "bits " << b;
  }
}

TEST(BFloat16, ExactValuesAndRounding) {
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits(-3.0f), 0xc040);
  EXPECT_EQ(bf16_bits(0.1f), 0x3dcd);
  const float ulp = std::ldexp(1.0f, -7);
  EXPECT_EQ(bf16_bits(1.0f + 0.5f * ulp), 0x3f80);  // tie, down to even
  EXPECT_EQ(bf16_bits(1.0f + 1.5f * ulp), 0x3f82);  // tie, up to even
  // FLT_MAX is above bfloat16's largest finite value plus half an ulp: inf.
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(float(std::numeric_limits<BFloat16>::max()), 3.3895313892515355e38f);
  EXPECT_TRUE(std::isnan(float(BFloat16(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload sits in the low bits must not round to inf.
  float low_nan;
  const uint32_t bits = 0x7f800001u;
  std::memcpy(&low_nan, &bits, 4);
  EXPECT_TRUE(std::isnan(float(BFloat16(low_nan))));
}

TEST(BFloat16, EveryValueRoundTripsThroughFloat) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const float f = float(BFloat16::from_bits(uint16_t(b)));
    if (std::isnan(f)) continue;
    ASSERT_EQ(bf16_bits(f), b) << "bits " << b;
  }
}

TEST(HalfTensors, ConversionsThroughTensors) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = ember::tensor({1.0f, 65504.0f, 1e5f, 0.1f, -1e-9f});
  EXPECT_EQ(x.to(kFloat16).to_vector<float>(),
            (std::vector<float>{1.0f, 65504.0f, inf, 0.0999755859375f, -0.0f}));
  EXPECT_EQ(
      x.to(kBFloat16).to_vector<float>(),
      (std::vector<float>{1.0f, 65536.0f, 99840.0f, 0.10009765625f, -9.968061931431293e-10f}));
  // Arithmetic happens in float and rounds once: 2048 + 1 is not representable in float16.
  Tensor h = ember::full({1}, 2048.0, kFloat16) + 1;
  EXPECT_EQ(h.item<float>(), 2048.0f);
  EXPECT_EQ((ember::full({1}, 2048.0, kFloat16) + 3).item<float>(), 2052.0f);
}

}  // namespace
