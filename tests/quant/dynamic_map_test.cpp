// bnb's signed dynamic 8-bit map: structure, published entries, and the dQuantize search.
#include "quant/dynamic_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "quant/random_tensor.h"

namespace ec::quant {
namespace {

TEST(DynamicMap, Structure) {
  const DynamicMap& m = signed_dynamic_map();
  for (int i = 1; i < 256; ++i) ASSERT_LT(m[i - 1], m[i]) << i;  // sorted, no duplicates
  EXPECT_EQ(m[127], 0.0f);
  EXPECT_EQ(m[255], 1.0f);
  EXPECT_EQ(m[0], -0.99296875f);  // no -1: the map is not symmetric at its ends
  for (int k = 1; k < 128; ++k) EXPECT_EQ(m[127 + k], -m[127 - k]) << k;
  EXPECT_EQ(m[254], 0.99296875f);
}

// Entries of create_dynamic_map() as printed from a real torch run (a table of the 256 floats,
// e.g. published beside bitsandbytes' functional.py link in unsloth-style NF4 re-implementations).
// Values are torch's float32 results written as doubles.
TEST(DynamicMap, MatchesPublishedEntries) {
  const DynamicMap& m = signed_dynamic_map();
  const std::pair<int, double> exact[] = {{0, -0.992968738079071},
                                          {1, -0.9789062738418579},
                                          {62, -0.12109375},
                                          {63, -0.10703125596046448},
                                          {64, -0.09859374910593033},
                                          {95, -0.011406250298023224},
                                          {96, -0.009718749672174454},
                                          {111, -0.001281249918974936},
                                          {112, -0.0009437500848434865},
                                          {119, -0.00015625001105945557},
                                          {120, -8.874999912222847e-05},
                                          {125, -3.250000190746505e-06},
                                          {126, -5.500000384017767e-07},
                                          {127, 0.0},
                                          {128, 5.500000384017767e-07},
                                          {129, 3.250000190746505e-06},
                                          {134, 8.874999912222847e-05},
                                          {160, 0.014218750409781933},
                                          {191, 0.10703125596046448},
                                          {192, 0.12109375},
                                          {230, 0.655468761920929},
                                          {254, 0.992968738079071},
                                          {255, 1.0}};
  for (auto [i, v] : exact) EXPECT_EQ(m[i], static_cast<float>(v)) << "entry " << i;
  // torch.linspace's float32 rounding differs by one ulp between builds (scalar vs vectorised
  // kernels); 42 of the 256 published entries, e.g. these two, are one ulp from ours.
  const std::pair<int, double> one_ulp[] = {{20, -0.7117187976837158}, {234, 0.7117187976837158}};
  for (auto [i, v] : one_ulp) {
    const auto p = static_cast<float>(v);
    EXPECT_LE(std::fabs(m[i] - p), std::fabs(std::nextafter(p, 2.0f) - p)) << "entry " << i;
  }
}

TEST(DynamicMap, EveryEntryQuantizesToItself) {
  const DynamicMap& m = signed_dynamic_map();
  for (int k = 0; k < 256; ++k) EXPECT_EQ(dynamic_quantize_value(m, m[k]), k) << k;
  EXPECT_EQ(dynamic_quantize_value(m, -1.0f), 0);
  EXPECT_EQ(dynamic_quantize_value(m, 1.0f), 255);
}

TEST(DynamicMap, SearchGivesTheNearestEntryUpToTies) {
  const DynamicMap& m = signed_dynamic_map();
  const auto xs = test::random_normal(100000, 31, 0.3f);
  for (float x : xs) {
    const float v = std::clamp(x, -1.0f, 1.0f);
    const int q = dynamic_quantize_value(m, v);
    int best = 0;
    for (int j = 1; j < 256; ++j) {
      if (std::fabs(m[j] - v) < std::fabs(m[best] - v)) best = j;
    }
    // The float midpoint (a+b)·0.5 can round either way of the exact one: ties within 1 ulp.
    ASSERT_LE(std::fabs(m[q] - v), std::fabs(m[best] - v) + 6e-8f) << v;
  }
}

}  // namespace
}  // namespace ec::quant
