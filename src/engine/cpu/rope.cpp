// Rotary position embedding in the Hugging Face rotate_half convention, cos/sin tabled per
// position.
#include "engine/cpu/rope.h"

#include <cmath>

#include "core/error.h"

namespace ec::engine::cpu {

RopeTable::RopeTable(int head_dim, double theta, int max_positions)
    : head_dim_(head_dim), max_positions_(max_positions) {
  EC_CHECK(head_dim > 0 && head_dim % 2 == 0, "rope: head_dim must be even and positive, got {}",
           head_dim);
  EC_CHECK(theta > 0.0, "rope: rope_theta must be positive, got {}", theta);
  EC_CHECK(max_positions > 0, "rope: max_positions must be positive, got {}", max_positions);
  const int half = head_dim / 2;
  cos_.resize(static_cast<size_t>(max_positions) * half);
  sin_.resize(cos_.size());
  for (int i = 0; i < half; ++i) {
    // transformers computes inv_freq and position · inv_freq in FP32; doing the same keeps the
    // angles bit-identical to theirs, and cos/sin are then rounded once from double.
    const auto inv_freq =
        static_cast<float>(1.0 / std::pow(theta, static_cast<double>(2 * i) / head_dim));
    for (int p = 0; p < max_positions; ++p) {
      const float angle = static_cast<float>(p) * inv_freq;
      cos_[static_cast<size_t>(p) * half + i] = static_cast<float>(std::cos(double{angle}));
      sin_[static_cast<size_t>(p) * half + i] = static_cast<float>(std::sin(double{angle}));
    }
  }
}

void RopeTable::apply(float* vec, int n_heads, int position) const {
  EC_CHECK(position >= 0 && position < max_positions_, "rope: position {} outside [0, {})",
           position, max_positions_);
  const int half = head_dim_ / 2;
  const float* __restrict c = cos_.data() + static_cast<size_t>(position) * half;
  const float* __restrict s = sin_.data() + static_cast<size_t>(position) * half;
  for (int h = 0; h < n_heads; ++h) {
    float* __restrict x1 = vec + static_cast<size_t>(h) * head_dim_;
    float* __restrict x2 = x1 + half;
    for (int i = 0; i < half; ++i) {
      const float a = x1[i];
      const float b = x2[i];
      x1[i] = a * c[i] - b * s[i];
      x2[i] = b * c[i] + a * s[i];
    }
  }
}

}  // namespace ec::engine::cpu
