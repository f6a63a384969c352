// bnb's dynamic 8-bit map and its quantizer (functional.py create_dynamic_map; kernels dQuantize).
#include "quant/dynamic_map.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"

namespace ec::quant {
namespace {

// torch.linspace(start, end, steps) for float32 on the CPU (RangeFactoriesKernel.cpp, scalar path).
std::vector<float> linspace_f32(float start, float end, int steps) {
  std::vector<float> out(static_cast<size_t>(steps));
  if (steps == 1) {
    out[0] = start;
    return out;
  }
  const float step = (end - start) / static_cast<float>(steps - 1);
  const int halfway = steps / 2;
  for (int i = 0; i < steps; ++i) {
    out[i] = i < halfway ? start + step * static_cast<float>(i)
                         : end - step * static_cast<float>(steps - i - 1);
  }
  return out;
}

// Appends scale · midpoints(linspace(0.1, 1, items + 1)) (and its negation when signed). The
// Python scalar 10**e multiplies a float32 tensor, so torch casts it to float32 first.
void append_scaled_means(std::vector<float>& data, int items, int exponent, bool is_signed) {
  const std::vector<float> bounds = linspace_f32(0.1f, 1.0f, items + 1);
  const auto scale = static_cast<float>(std::pow(10.0, exponent));
  std::vector<float> means(static_cast<size_t>(items));
  for (int k = 0; k < items; ++k) means[k] = (bounds[k] + bounds[k + 1]) / 2.0f;
  for (float m : means) data.push_back(scale * m);
  if (is_signed) {
    for (float m : means) data.push_back(-scale * m);
  }
}

}  // namespace

DynamicMap create_dynamic_map(bool is_signed, int max_exponent_bits, int total_bits) {
  EC_CHECK(total_bits >= 2 && total_bits <= 8 && max_exponent_bits >= 1 &&
               max_exponent_bits < total_bits,
           "dynamic map: need 1 <= max_exponent_bits < total_bits <= 8, got {} and {}",
           max_exponent_bits, total_bits);
  std::vector<float> data;
  // bnb: non_sign_bits = total_bits - 1 whether signed or not.
  const int non_sign_bits = total_bits - 1;
  const int additional_items = (1 << (non_sign_bits - max_exponent_bits)) - 1;
  for (int i = 0; i < max_exponent_bits; ++i) {
    const int shift = i + non_sign_bits - max_exponent_bits + (is_signed ? 0 : 1);
    append_scaled_means(data, 1 << shift, -(max_exponent_bits - 1) + i, is_signed);
  }
  if (additional_items > 0) {
    // bnb reuses the last loop exponent (i = max_exponent_bits - 1) here.
    append_scaled_means(data, additional_items, 0, is_signed);
  }
  data.push_back(0.0f);
  data.push_back(1.0f);
  EC_CHECK(data.size() == (size_t{1} << total_bits), "dynamic map: built {} entries, expected 2^{}",
           data.size(), total_bits);
  data.resize(256, 0.0f);
  std::sort(data.begin(), data.end());
  DynamicMap map{};
  std::copy(data.begin(), data.end(), map.begin());
  return map;
}

const DynamicMap& signed_dynamic_map() {
  static const DynamicMap map = create_dynamic_map(true, 7, 8);
  return map;
}

uint8_t dynamic_quantize_value(const DynamicMap& code, float x) {
  int pivot = 127;
  int upper_pivot = 255;
  int lower_pivot = 0;
  float lower = -1.0f;
  float upper = 1.0f;
  float val = code[pivot];
  for (int i = 64; i > 0; i >>= 1) {
    if (x > val) {
      lower_pivot = pivot;
      lower = val;
      pivot += i;
    } else {
      upper_pivot = pivot;
      upper = val;
      pivot -= i;
    }
    val = code[pivot];
  }
  if (upper_pivot == 255) upper = code[upper_pivot];
  if (lower_pivot == 0) lower = code[lower_pivot];
  if (x > val) {
    const float midpoint = (upper + val) * 0.5f;
    return static_cast<uint8_t>(x > midpoint ? upper_pivot : pivot);
  }
  const float midpoint = (lower + val) * 0.5f;
  return static_cast<uint8_t>(x < midpoint ? lower_pivot : pivot);
}

}  // namespace ec::quant
