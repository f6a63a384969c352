// nf4-dq: offset and blockwise dynamic-map quantization of the absmax, bounds, sizes, edge cases.
#include "quant/nf4_dq.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "quant/random_tensor.h"

namespace ec::quant {
namespace {

using ::testing::HasSubstr;

// Half the gap between the two map entries around v (v below entry 0: its distance to entry 0).
float half_local_step(float v) {
  const DynamicMap& m = signed_dynamic_map();
  if (v <= m[0]) return m[0] - v;
  int k = 0;
  while (k < 254 && v > m[k + 1]) ++k;
  return (m[k + 1] - m[k]) / 2;
}

TEST(Nf4Dq, AbsmaxRoundTripWithinHalfMapStep) {
  // 600 blocks of 64 → absmax of 600 → three 256-blocks, the last partial (88).
  const auto w = test::random_normal(600 * 64, 41, 0.02f);
  const Nf4DqTensor t = quantize_nf4_dq(w, 600, 64, "w");
  const Nf4Tensor plain = quantize_nf4(w, 600, 64, "w");
  ASSERT_EQ(t.blocks(), 600);
  ASSERT_EQ(t.absmax_scales.size(), 3u);
  double sum = 0;
  for (float a : plain.absmax) sum += a;
  EXPECT_EQ(t.absmax_offset, static_cast<float>(sum / 600));
  for (int64_t b = 0; b < 600; ++b) {
    const float scale = t.absmax_scales[b / 256];
    const float centered = plain.absmax[b] - t.absmax_offset;
    const float bound = half_local_step(centered / scale) * scale + 1e-6f * plain.absmax[b];
    ASSERT_LE(std::fabs(t.block_absmax(b) - plain.absmax[b]), bound) << "block " << b;
  }
  // The second-level absmax is the largest |absmax - offset| of its 256 blocks.
  float m = 0;
  for (int b = 512; b < 600; ++b) m = std::max(m, std::fabs(plain.absmax[b] - t.absmax_offset));
  EXPECT_EQ(t.absmax_scales[2], m);
}

TEST(Nf4Dq, CodesAreTheNf4CodesAndWeightsStayWithinBound) {
  const auto w = test::random_normal(48 * 320, 42, 0.05f);
  const Nf4DqTensor t = quantize_nf4_dq(w, 48, 320, "w");
  const Nf4Tensor plain = quantize_nf4(w, 48, 320, "w");
  EXPECT_EQ(t.packed, plain.packed);  // codes come from the fp32 absmax, before compression
  const std::vector<float> back = dequantize_nf4_dq(t);
  for (size_t i = 0; i < w.size(); ++i) {
    const int64_t b = static_cast<int64_t>(i) / kNf4BlockSize;
    const float a = plain.absmax[b];
    const float a_dq = t.block_absmax(b);
    const float v = w[i] / a;
    int k = 0;
    while (k < 14 && v > kNf4Code[k + 1]) ++k;
    // NF4 error at the true absmax, plus the code times the absmax error, plus float slack.
    const float bound =
        (kNf4Code[k + 1] - kNf4Code[k]) / 2 * a +
        std::fabs(kNf4Code[t.code_at(static_cast<int64_t>(i))]) * std::fabs(a_dq - a) + 4e-7f * a;
    ASSERT_LE(std::fabs(back[i] - w[i]), bound) << i;
  }
}

TEST(Nf4Dq, EqualAbsmaxEverywhereDecodesToTheOffsetExactly) {
  // Every block's absmax is 2.0: absmax - offset is 0, the 256-block scale 0, code 127 (0.0).
  auto w = test::random_normal(10 * 64, 43, 0.1f);
  for (int b = 0; b < 10; ++b) w[b * 64 + 5] = (b % 2 == 0) ? 2.0f : -2.0f;
  const Nf4DqTensor t = quantize_nf4_dq(w, 10, 64, "w");
  EXPECT_EQ(t.absmax_offset, 2.0f);
  EXPECT_EQ(t.absmax_scales[0], 0.0f);
  for (int b = 0; b < 10; ++b) {
    EXPECT_EQ(t.absmax_codes[b], 127);
    EXPECT_EQ(t.block_absmax(b), 2.0f);
  }
}

TEST(Nf4Dq, SingleHugeOutlierBlock) {
  auto w = test::random_normal(300 * 64, 44, 0.02f);
  w[123 * 64 + 9] = 50.0f;
  const Nf4DqTensor t = quantize_nf4_dq(w, 300, 64, "w");
  // The outlier block holds the largest |absmax - offset| of its 256-block: code 255 (1.0) exactly.
  EXPECT_EQ(t.absmax_codes[123], 255);
  EXPECT_NEAR(t.block_absmax(123), 50.0f, 50.0f * 1e-6f);
}

TEST(Nf4Dq, SizesAreAbout4127BitsPerWeight) {
  const auto w = test::random_normal(256 * 4096, 45, 0.02f);
  const Nf4DqTensor t = quantize_nf4_dq(w, 256, 4096, "w");
  // 4 bits of code + 8/64 for the absmax byte + 32/(64·256) for the scale (+ the 4-byte offset).
  EXPECT_EQ(t.storage_bytes(), 256 * 4096 / 2 + 256 * 4096 / 64 + 4 * (256 * 4096 / 64 / 256) + 4);
  EXPECT_NEAR(t.bits_per_weight(), 4.127, 0.001);
}

TEST(Nf4Dq, OddSizes) {
  const auto w = test::random_normal(13 * 51, 46);  // 663 elements: 11 blocks, the last of 23
  const Nf4DqTensor t = quantize_nf4_dq(w, 13, 51, "w");
  EXPECT_EQ(t.blocks(), 11);
  EXPECT_EQ(t.packed.size(), 332u);
  EXPECT_EQ(t.packed.back() & 0x0f, kNf4PadCode);
  EXPECT_EQ(dequantize_nf4_dq(t).size(), 663u);
}

TEST(Nf4Dq, RejectsNanNamingTheTensor) {
  auto w = test::random_normal(64, 47);
  w[0] = std::nanf("");
  EXPECT_THAT([&] { quantize_nf4_dq(w, 1, 64, "lm_head.weight"); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("'lm_head.weight': element 0 (row 0, column 0) is NaN")));
}

}  // namespace
}  // namespace ec::quant
