// NF4: bnb's table and thresholds on every boundary, packing order, padding, round-trip bounds.
#include "quant/nf4.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "quant/random_tensor.h"

namespace ec::quant {
namespace {

using ::testing::HasSubstr;

// The table and the decision-tree thresholds as published in bitsandbytes (functional.py NF4 map;
// csrc dQuantizeNF4), typed here independently of src/quant/nf4.h. The thresholds are float
// literals there: decimal → float directly. Going through double would round differently for 4 of
// them (the exact midpoint of two floats is a float tie, and double-then-float rounds it to even).
constexpr double kPublishedCode[16] = {-1.0,
                                       -0.6961928009986877,
                                       -0.5250730514526367,
                                       -0.39491748809814453,
                                       -0.28444138169288635,
                                       -0.18477343022823334,
                                       -0.09105003625154495,
                                       0.0,
                                       0.07958029955625534,
                                       0.16093020141124725,
                                       0.24611230194568634,
                                       0.33791524171829224,
                                       0.44070982933044434,
                                       0.5626170039176941,
                                       0.7229568362236023,
                                       1.0};
constexpr float kPublishedThreshold[15] = {
    -0.8480964004993439f,  -0.6106329262256622f,  -0.4599952697753906f,   -0.33967943489551544f,
    -0.23460740596055984f, -0.13791173323988914f, -0.045525018125772476f, 0.03979014977812767f,
    0.1202552504837513f,   0.2035212516784668f,   0.2920137718319893f,    0.3893125355243683f,
    0.5016634166240692f,   0.6427869200706482f,   0.8614784181118011f};

float up(float x) {
  return std::nextafter(x, std::numeric_limits<float>::infinity());
}
float down(float x) {
  return std::nextafter(x, -std::numeric_limits<float>::infinity());
}

TEST(Nf4, TableAndThresholdsAreBnbs) {
  for (int k = 0; k < 16; ++k) EXPECT_EQ(kNf4Code[k], static_cast<float>(kPublishedCode[k])) << k;
  for (int k = 0; k < 15; ++k) {
    EXPECT_EQ(kNf4Threshold[k], kPublishedThreshold[k]) << k;
    // Each threshold is the midpoint of its two codes (bnb generated the tree that way).
    EXPECT_NEAR(kPublishedThreshold[k], (kPublishedCode[k] + kPublishedCode[k + 1]) / 2, 1e-7) << k;
    EXPECT_LT(kPublishedThreshold[k], kNf4Code[k + 1]);
    EXPECT_GT(kPublishedThreshold[k], kNf4Code[k]);
  }
  EXPECT_EQ(kNf4Threshold[7], 0.03979014977812767f);  // the tree's first split
}

TEST(Nf4, EveryBoundaryAtJustBelowAndJustAbove) {
  for (int k = 0; k < 15; ++k) {
    const float t = kPublishedThreshold[k];
    // bnb compares with a strict `x > t`: the threshold itself stays with the lower code.
    EXPECT_EQ(nf4_quantize_value(t), k) << "at threshold " << k;
    EXPECT_EQ(nf4_quantize_value(down(t)), k) << "below threshold " << k;
    EXPECT_EQ(nf4_quantize_value(up(t)), k + 1) << "above threshold " << k;
  }
  for (int k = 0; k < 16; ++k) EXPECT_EQ(nf4_quantize_value(kNf4Code[k]), k);
  EXPECT_EQ(nf4_quantize_value(-1.5f), 0);
  EXPECT_EQ(nf4_quantize_value(1.5f), 15);
  EXPECT_EQ(nf4_quantize_value(std::nanf("")), 0);  // every comparison false, as on the GPU
}

TEST(Nf4, TreeGivesTheNearestCode) {
  const auto xs = test::random_normal(200000, 11, 0.5f);
  for (float x : xs) {
    const float v = std::clamp(x, -1.0f, 1.0f);
    const int q = nf4_quantize_value(v);
    for (int j = 0; j < 16; ++j) {
      // 1e-7: the float thresholds sit within that of the exact midpoints.
      ASSERT_LE(std::fabs(v - kNf4Code[q]), std::fabs(v - kNf4Code[j]) + 1e-7f) << v;
    }
  }
}

TEST(Nf4, BoundariesThroughTheBlockQuantizer) {
  // A block whose absmax is 1 has reciprocal exactly 1, so the tensor path sees the values as
  // given.
  std::vector<float> w = {1.0f};
  for (int k = 0; k < 15; ++k) {
    const float t = kPublishedThreshold[k];
    w.insert(w.end(), {down(t), t, up(t)});
  }
  w.resize(64, 0.5f);
  const Nf4Tensor q = quantize_nf4(w, 1, 64, "w");
  ASSERT_EQ(q.absmax[0], 1.0f);
  EXPECT_EQ(q.code_at(0), 15);
  for (int k = 0; k < 15; ++k) {
    EXPECT_EQ(q.code_at(1 + 3 * k), k);
    EXPECT_EQ(q.code_at(2 + 3 * k), k);
    EXPECT_EQ(q.code_at(3 + 3 * k), k + 1);
  }
}

TEST(Nf4, FirstElementInHighNibble) {
  std::vector<float> w(64, 0.3f);
  w[0] = 1.0f;   // code 15
  w[1] = -1.0f;  // code 0
  w[2] = -0.5f;  // nearest -0.5251: code 2
  w[3] = 0.08f;  // nearest 0.0796: code 8
  const Nf4Tensor q = quantize_nf4(w, 2, 32, "w");
  EXPECT_EQ(q.packed[0], 0xF0);
  EXPECT_EQ(q.packed[1], 0x28);
  EXPECT_EQ(q.code_at(0), 15);
  EXPECT_EQ(q.code_at(3), 8);
}

// |w - dequant(w)| ≤ (half the gap between the two codes around w/absmax) · absmax, plus a few ulp
// of absmax for the reciprocal, the product and the float thresholds (1e-7 · absmax).
void expect_within_nf4_bound(const std::vector<float>& w, const Nf4Tensor& q) {
  const std::vector<float> back = dequantize_nf4(q);
  for (size_t i = 0; i < w.size(); ++i) {
    const float absmax = q.absmax[i / kNf4BlockSize];
    const float v = w[i] / absmax;
    int k = 0;
    while (k < 14 && v > kNf4Code[k + 1]) ++k;
    const float half_step = (kNf4Code[k + 1] - kNf4Code[k]) / 2;
    ASSERT_LE(std::fabs(back[i] - w[i]), half_step * absmax + 2e-7f * absmax)
        << "element " << i << " w " << w[i] << " absmax " << absmax;
  }
}

TEST(Nf4, RandomRoundTripWithinHalfCodeStep) {
  for (auto [rows, cols, seed] : {std::tuple{32, 128, 21u}, {5, 64, 22u}, {1, 4096, 23u}}) {
    const auto w = test::random_normal(static_cast<size_t>(rows * cols), seed, 0.03f);
    const Nf4Tensor q = quantize_nf4(w, rows, cols, "w");
    EXPECT_EQ(q.blocks(), rows * cols / 64);
    expect_within_nf4_bound(w, q);
  }
}

TEST(Nf4, OddSizesEndInAPartialPaddedBlock) {
  // 3 × 37 = 111 elements: one full block and one of 47; odd count → one padding nibble.
  const auto w = test::random_normal(111, 24);
  const Nf4Tensor q = quantize_nf4(w, 3, 37, "w");
  ASSERT_EQ(q.blocks(), 2);
  ASSERT_EQ(q.packed.size(), 56u);
  float m = 0.0f;
  for (int i = 64; i < 111; ++i) m = std::max(m, std::fabs(w[i]));
  EXPECT_EQ(q.absmax[1], m);  // the partial block's absmax covers only its own elements
  EXPECT_EQ(q.packed[55] & 0x0f, kNf4PadCode);
  expect_within_nf4_bound(w, q);
  EXPECT_EQ(dequantize_nf4(q).size(), 111u);
}

TEST(Nf4, AllEqualBlocksAreExact) {
  std::vector<float> w(128, 0.37f);
  std::fill(w.begin() + 64, w.end(), -2.5f);
  const Nf4Tensor q = quantize_nf4(w, 2, 64, "w");
  const std::vector<float> back = dequantize_nf4(q);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(q.code_at(i), 15);
    EXPECT_EQ(back[i], 0.37f);
    EXPECT_EQ(q.code_at(64 + i), 0);
    EXPECT_EQ(back[64 + i], -2.5f);
  }
}

TEST(Nf4, ZeroBlockNeverDivides) {
  std::vector<float> w = test::random_normal(192, 25);
  std::fill(w.begin() + 64, w.begin() + 128, 0.0f);
  const Nf4Tensor q = quantize_nf4(w, 3, 64, "w");
  EXPECT_EQ(q.absmax[1], 0.0f);
  const std::vector<float> back = dequantize_nf4(q);
  for (int i = 64; i < 128; ++i) {
    EXPECT_EQ(q.code_at(i), 7);
    EXPECT_EQ(back[i], 0.0f);
  }
}

TEST(Nf4, SingleHugeOutlierAndNegativeOnlyRows) {
  auto w = test::random_normal(4 * 64, 26, 0.02f);
  w[10] = 1000.0f;
  for (int c = 0; c < 64; ++c) w[64 + c] = -std::fabs(w[64 + c]);
  const Nf4Tensor q = quantize_nf4(w, 4, 64, "w");
  EXPECT_EQ(q.absmax[0], 1000.0f);
  EXPECT_EQ(q.code_at(10), 15);
  EXPECT_EQ(dequantize_nf4(q)[10], 1000.0f);
  for (int c = 0; c < 64; ++c) EXPECT_LE(q.code_at(64 + c), 7);  // codes 0..7 are ≤ 0
  expect_within_nf4_bound(w, q);
}

TEST(Nf4, RejectsNanAndInfNamingTheTensor) {
  auto w = test::random_normal(128, 27);
  w[70] = INFINITY;
  EXPECT_THAT(
      [&] { quantize_nf4(w, 2, 64, "model.layers.0.self_attn.q_proj.weight"); },
      ::testing::ThrowsMessage<Error>(HasSubstr(
          "'model.layers.0.self_attn.q_proj.weight': element 70 (row 1, column 6) is +Inf")));
  w[70] = std::nanf("");
  EXPECT_THAT([&] { quantize_nf4(w, 2, 64, "wq"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("NaN")));
}

TEST(Nf4, SizesAreFourAndAHalfBitsPerWeight) {
  const auto w = test::random_normal(64 * 256, 28);
  const Nf4Tensor q = quantize_nf4(w, 64, 256, "w");
  EXPECT_EQ(q.storage_bytes(), 64 * 256 / 2 + 4 * 64 * 256 / 64);
  EXPECT_DOUBLE_EQ(q.bits_per_weight(), 4.5);
}

}  // namespace
}  // namespace ec::quant
