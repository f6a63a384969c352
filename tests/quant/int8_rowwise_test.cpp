// Row-wise int8 weights: round-trip bound, bnb's half-to-even rounding, edge rows, rejected input.
#include "quant/int8_rowwise.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "quant/random_tensor.h"

namespace ec::quant {
namespace {

using ::testing::HasSubstr;

// |w - dequant(w)| ≤ 0.5/127 · absmax_row, plus 2^-20 · absmax for the float rounding of the scale,
// the product and the dequantization (a few ulp of absmax).
void expect_within_int8_bound(const std::vector<float>& w, const Int8RowwiseTensor& t) {
  const std::vector<float> back = dequantize_int8_rowwise(t);
  for (int64_t r = 0; r < t.rows; ++r) {
    const float bound = t.scales[r] * (0.5f / 127.0f) + t.scales[r] * 0x1p-20f;
    for (int64_t c = 0; c < t.cols; ++c) {
      const int64_t i = r * t.cols + c;
      ASSERT_LE(std::fabs(back[i] - w[i]), bound) << "row " << r << " col " << c << " w " << w[i];
    }
  }
}

TEST(Int8Rowwise, RandomRoundTripWithinHalfStep) {
  for (auto [rows, cols, seed] :
       {std::tuple{64, 256, 1u}, {7, 33, 2u}, {1, 1, 3u}, {3, 1000, 4u}}) {
    const auto w = test::random_normal(static_cast<size_t>(rows * cols), seed, 0.02f);
    const Int8RowwiseTensor t = quantize_int8_rowwise(w, rows, cols, "w");
    ASSERT_EQ(t.codes.size(), static_cast<size_t>(rows * cols));
    ASSERT_EQ(t.scales.size(), static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      float m = 0.0f;
      for (int64_t c = 0; c < cols; ++c) m = std::max(m, std::fabs(w[r * cols + c]));
      EXPECT_EQ(t.scales[r], m);
    }
    expect_within_int8_bound(w, t);
  }
}

TEST(Int8Rowwise, RowMaximumMapsToPlusMinus127) {
  const std::vector<float> w = {0.25f, -3.0f, 1.0f, 3.0f, -0.5f, 0.1f};
  const Int8RowwiseTensor t = quantize_int8_rowwise(w, 2, 3, "w");
  EXPECT_EQ(t.codes[1], -127);
  EXPECT_EQ(t.codes[3], 127);
}

TEST(Int8Rowwise, RoundsHalfToEvenLikeFloat2IntRn) {
  // absmax 127 makes the scale exactly 1, so x·scale is x and the rounding rule shows directly.
  const std::vector<float> w = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.5f, 127.0f};
  const Int8RowwiseTensor t = quantize_int8_rowwise(w, 1, 8, "w");
  EXPECT_EQ(t.scales[0], 127.0f);
  const std::vector<int8_t> expected = {0, 2, 2, 0, -2, -2, 4, 127};
  EXPECT_EQ(t.codes, expected);
}

TEST(Int8Rowwise, AllZeroRowHasScaleZeroAndDequantizesToZero) {
  std::vector<float> w = test::random_normal(3 * 16, 5);
  std::fill(w.begin() + 16, w.begin() + 32, 0.0f);  // row 1
  const Int8RowwiseTensor t = quantize_int8_rowwise(w, 3, 16, "w");
  EXPECT_EQ(t.scales[1], 0.0f);
  const std::vector<float> back = dequantize_int8_rowwise(t);
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(t.codes[16 + c], 0);
    EXPECT_EQ(back[16 + c], 0.0f);
    EXPECT_FALSE(std::isnan(back[16 + c]));
  }
}

TEST(Int8Rowwise, AllEqualRowIsExact) {
  const std::vector<float> w(40, -0.375f);
  const Int8RowwiseTensor t = quantize_int8_rowwise(w, 2, 20, "w");
  const std::vector<float> back = dequantize_int8_rowwise(t);
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(t.codes[i], -127);
    EXPECT_NEAR(back[i], -0.375f, 0.375f * 0x1p-22f);
  }
}

TEST(Int8Rowwise, SingleHugeOutlierAndNegativeOnlyRows) {
  auto w = test::random_normal(4 * 128, 6, 0.01f);
  w[2 * 128 + 77] = 500.0f;  // row 2: one huge value
  for (int c = 0; c < 128; ++c) w[3 * 128 + c] = -std::fabs(w[3 * 128 + c]);  // row 3: all < 0
  const Int8RowwiseTensor t = quantize_int8_rowwise(w, 4, 128, "w");
  EXPECT_EQ(t.scales[2], 500.0f);
  EXPECT_EQ(t.codes[2 * 128 + 77], 127);
  for (int c = 0; c < 128; ++c) EXPECT_LE(t.codes[3 * 128 + c], 0);
  expect_within_int8_bound(w, t);
}

TEST(Int8Rowwise, RejectsNanAndInfNamingTheTensor) {
  auto w = test::random_normal(2 * 8, 7);
  w[11] = std::nanf("");
  try {
    quantize_int8_rowwise(w, 2, 8, "model.layers.3.mlp.up_proj.weight");
    FAIL() << "NaN accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("model.layers.3.mlp.up_proj.weight"));
    EXPECT_THAT(e.what(), HasSubstr("row 1, column 3"));
    EXPECT_THAT(e.what(), HasSubstr("NaN"));
  }
  w[11] = -INFINITY;
  EXPECT_THAT(
      [&] { quantize_int8_rowwise(w, 2, 8, "wk"); },
      ::testing::ThrowsMessage<Error>(HasSubstr("'wk': element 11 (row 1, column 3) is -Inf")));
}

TEST(Int8Rowwise, ShapeMismatchAndWrongFormatAreErrors) {
  const auto w = test::random_normal(10, 8);
  EXPECT_THROW(quantize_int8_rowwise(w, 3, 3, "w"), Error);
  EXPECT_THROW(quantize_int8_rowwise(w, 2, 5, "w", Format::nf4), Error);
}

TEST(Int8Rowwise, SizesAndNames) {
  const auto w = test::random_normal(32 * 64, 9);
  const Int8RowwiseTensor t = quantize_int8_rowwise(w, 32, 64, "w", Format::int8_wo);
  EXPECT_EQ(format_name(t.format), "int8-wo");
  EXPECT_EQ(t.storage_bytes(), 32 * 64 + 32 * 4);
  EXPECT_DOUBLE_EQ(t.bits_per_weight(), 8.0 + 32.0 / 64.0);
  EXPECT_EQ(format_name(Format::int8_llm), "int8-llm");
  EXPECT_EQ(format_name(Format::nf4), "nf4");
  EXPECT_EQ(format_name(Format::nf4_dq), "nf4-dq");
}

}  // namespace
}  // namespace ec::quant
