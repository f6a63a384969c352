// fp16/bf16 conversions: every half round-trips, known values, rounding ties to even.
#include <gtest/gtest.h>

#include <cmath>

#include "core/half.h"

namespace ec {
namespace {

TEST(Half, EveryFiniteHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    uint16_t half = static_cast<uint16_t>(h);
    float f = half_to_float(half);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f)))) << h;
      continue;
    }
    EXPECT_EQ(float_to_half(f), half) << "half bits " << h << " value " << f;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // halfway to the next binade rounds to Inf
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie rounds to even (zero)
  EXPECT_EQ(float_to_half(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_FLOAT_EQ(half_to_float(0x3555), 0.333251953125f);
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 is exactly between 1 and 1 + 2^-10: ties go to the even mantissa (1.0).
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is between 1 + 2^-10 (odd) and 1 + 2^-9 (even): rounds up.
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
}

TEST(Bf16, RoundTripAndRounding) {
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    float f = bf16_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_bf16(f), b);
  }
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie to even
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
}

}  // namespace
}  // namespace ec
