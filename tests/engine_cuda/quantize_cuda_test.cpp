// The device quantizers against src/quant byte for byte (the engine quantizes 7B models on the GPU
// and must produce exactly what the host would), and the prefill dequantizers.
#include <gtest/gtest.h>

#include "engine/cuda/quantize.cuh"
#include "engine/cuda/tensor_convert.cuh"
#include "engine_cuda/cuda_test_util.h"
#include "quant/dynamic_map.h"
#include "quant/int8_rowwise.h"
#include "quant/nf4.h"
#include "quant/nf4_dq.h"

namespace ec::engine::cuda {
namespace {

using test::dev;

// fp16 weights with the cases quantizers get wrong: a zero row/block, a huge outlier, values on
// both sides of zero.
std::vector<uint16_t> weights16(int64_t rows, int64_t cols, uint64_t seed) {
  auto w = test::random_floats(size_t(rows * cols), seed, 0.03f);
  for (int64_t c = 0; c < cols; ++c) w[size_t(cols + c)] = 0.0f;  // row 1 all zero
  w[size_t(2 * cols + 5)] = 40.0f;                                // outlier in row 2
  for (int64_t c = 0; c < cols; ++c) w[size_t(3 * cols + c)] = -std::abs(w[size_t(3 * cols + c)]);
  return to_half_bits(w);
}

TEST(CudaQuantize, Int8RowwiseMatchesHostBitForBit) {
  EC_REQUIRE_CUDA();
  const int64_t rows = 67, cols = 1000;
  const auto w16 = weights16(rows, cols, 11);
  const auto host = quant::quantize_int8_rowwise(half_bits_to_floats(w16), rows, cols, "w");
  auto d_w = dev(w16);
  DeviceBuffer<int8_t> codes(static_cast<size_t>(rows * cols));
  DeviceBuffer<float> scales(static_cast<size_t>(rows));
  quantize_int8_rowwise(d_w.get(), rows, cols, codes.get(), scales.get(), nullptr);
  test::sync();
  EXPECT_EQ(codes.download(), host.codes);
  EXPECT_EQ(scales.download(), host.scales);

  // Prefill dequantization: fp16(q · SCB · 1/127) for every element.
  GemvSegment s;
  s.w = codes.get();
  s.scales = scales.get();
  s.rows = static_cast<int>(rows);
  DeviceBuffer<uint16_t> out(static_cast<size_t>(rows * cols));
  dequantize_to_f16(quant::Format::int8_wo, s, cols, out.get(), nullptr);
  test::sync();
  const auto back = quant::dequantize_int8_rowwise(host);
  EXPECT_EQ(out.download(), to_half_bits(back));
}

TEST(CudaQuantize, Nf4MatchesHostBitForBit) {
  EC_REQUIRE_CUDA();
  for (int64_t cols : {int64_t{64}, int64_t{160}, int64_t{333}}) {  // 333: blocks span rows, odd n
    const int64_t rows = 9;
    const auto w16 = weights16(rows, cols, 12);
    const auto host = quant::quantize_nf4(half_bits_to_floats(w16), rows, cols, "w");
    auto d_w = dev(w16);
    DeviceBuffer<uint8_t> packed(host.packed.size());
    DeviceBuffer<float> absmax(host.absmax.size());
    quantize_nf4(d_w.get(), rows * cols, packed.get(), absmax.get(), nullptr);
    test::sync();
    EXPECT_EQ(packed.download(), host.packed) << "cols " << cols;
    EXPECT_EQ(absmax.download(), host.absmax) << "cols " << cols;

    GemvSegment s;
    s.w = packed.get();
    s.scales = absmax.get();
    s.rows = static_cast<int>(rows);
    DeviceBuffer<uint16_t> out(static_cast<size_t>(rows * cols));
    dequantize_to_f16(quant::Format::nf4, s, cols, out.get(), nullptr);
    test::sync();
    EXPECT_EQ(out.download(), to_half_bits(quant::dequantize_nf4(host))) << "cols " << cols;
  }
}

TEST(CudaQuantize, Nf4DqDequantizesAsHost) {
  EC_REQUIRE_CUDA();
  const int64_t rows = 40, cols = 896;
  const auto w16 = weights16(rows, cols, 13);
  const auto host = quant::quantize_nf4_dq(half_bits_to_floats(w16), rows, cols, "w");
  const auto& map = quant::signed_dynamic_map();
  auto d_packed = dev(host.packed);
  auto d_codes = dev(host.absmax_codes);
  auto d_scales = dev(host.absmax_scales);
  auto d_map = dev(std::vector<float>(map.begin(), map.end()));
  GemvSegment s;
  s.w = d_packed.get();
  s.scales = d_scales.get();
  s.absmax_codes = d_codes.get();
  s.absmax_offset = host.absmax_offset;
  s.absmax_map = d_map.get();
  s.rows = static_cast<int>(rows);
  DeviceBuffer<uint16_t> out(static_cast<size_t>(rows * cols));
  dequantize_to_f16(quant::Format::nf4_dq, s, cols, out.get(), nullptr);
  test::sync();
  EXPECT_EQ(out.download(), to_half_bits(quant::dequantize_nf4_dq(host)));
}

TEST(CudaQuantize, ConvertTo16BitRoundsAsHost) {
  EC_REQUIRE_CUDA();
  auto v = test::random_floats(4099, 14, 100.0f);
  v[0] = 1e-8f;     // fp16 subnormal
  v[1] = 70000.0f;  // overflows fp16
  v[2] = -0.0f;
  auto d = dev(v);
  DeviceBuffer<uint16_t> out(v.size());
  convert_to_16bit(d.get(), DType::f32, int64_t(v.size()), out.get(), false, nullptr);
  test::sync();
  EXPECT_EQ(out.download(), to_half_bits(v));
  convert_to_16bit(d.get(), DType::f32, int64_t(v.size()), out.get(), true, nullptr);
  test::sync();
  EXPECT_EQ(out.download(), test::to_bf16_bits(v));
}

}  // namespace
}  // namespace ec::engine::cuda
