// bnb's 8-bit "dynamic" quantization map (create_dynamic_map) and its nearest-code search
// (dQuantize), used by nf4-dq to store the block absmax in one byte each.
#pragma once

#include <array>
#include <cstdint>

namespace ec::quant {

using DynamicMap = std::array<float, 256>;

// bitsandbytes.functional.create_dynamic_map(signed, max_exponent_bits, total_bits), rebuilt from
// its algorithm: for each exponent i < max_exponent_bits, the midpoints of torch.linspace(0.1, 1,
// 2^(i + non_sign_bits - max_exponent_bits) + 1) (2^(...+1)+1 unsigned) scaled by 10^(i - max_e +
// 1), mirrored when signed, plus 0 and 1.0, zero-padded to 256 and sorted. Arithmetic in float32 as
// torch does it (linspace: start + step·i below the halfway index, end - step·(steps-1-i) from it).
// Requires 1 <= max_exponent_bits < total_bits <= 8.
DynamicMap create_dynamic_map(bool is_signed = true, int max_exponent_bits = 7, int total_bits = 8);

// The default map, create_dynamic_map(true, 7, 8): 127 negatives, 0 at index 127, 127 positives,
// 1.0 at index 255; entry 0 is -0.99296875 (there is no -1).
const DynamicMap& signed_dynamic_map();

// bnb's dQuantize<STOCHASTIC=0>: a 7-step binary search from pivot 127, then a midpoint test
// against the neighbour it came from (`x > midpoint` upward, `x < midpoint` downward), in float.
// Reproduced step by step so that ties and the ends of the map resolve exactly as on the GPU.
uint8_t dynamic_quantize_value(const DynamicMap& code, float x);

}  // namespace ec::quant
