// FP16/BF16 → FP32 conversion for kernel inner loops: branch-free bit operations the compiler
// vectorises (no table gathers, no subnormal floats in the arithmetic), exact for every input.
#pragma once

#include <bit>
#include <cstdint>

namespace ec::engine::cpu {

inline float f16_bits_to_f32(uint16_t h) {
  const uint32_t magnitude = h & 0x7fffu;
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  // Normal numbers: move exponent and mantissa into place and re-bias by 127 - 15.
  const uint32_t normal = (magnitude << 13) + 0x38000000u;
  // Inf/NaN: the exponent needs the full 255, i.e. re-biasing twice.
  const uint32_t inf_nan = normal + 0x38000000u;
  // Subnormals (and zero): mantissa × 2^-24, computed with normal floats only.
  const float sub = static_cast<float>(static_cast<int32_t>(magnitude)) * 0x1p-24f;
  const uint32_t subnormal = std::bit_cast<uint32_t>(sub);
  // Selects written as masks: GCC vectorises these where it turns ?: into branches.
  const uint32_t sub_mask = 0u - static_cast<uint32_t>(magnitude < 0x0400u);
  const uint32_t inf_mask = 0u - static_cast<uint32_t>(magnitude >= 0x7c00u);
  uint32_t bits = (subnormal & sub_mask) | (normal & ~sub_mask);
  bits = (inf_nan & inf_mask) | (bits & ~inf_mask);
  return std::bit_cast<float>(bits | sign);
}

inline float bf16_bits_to_f32(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

inline void f16_to_f32_row(const uint16_t* __restrict in, float* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = f16_bits_to_f32(in[i]);
}

inline void bf16_to_f32_row(const uint16_t* __restrict in, float* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bf16_bits_to_f32(in[i]);
}

}  // namespace ec::engine::cpu
