// Host-side RoPE tables for the CUDA engine, computed as cpu::RopeTable computes them.
#include <cmath>

#include "core/error.h"
#include "engine/cuda/rope.cuh"

namespace ec::engine::cuda {

void rope_tables(int head_dim, double theta, int max_positions, std::vector<float>& cos,
                 std::vector<float>& sin) {
  EC_CHECK(head_dim > 0 && head_dim % 2 == 0, "rope: head_dim must be even and positive, got {}",
           head_dim);
  EC_CHECK(theta > 0.0 && max_positions > 0, "rope: theta {} and max_positions {} must be positive",
           theta, max_positions);
  const int half = head_dim / 2;
  cos.assign(static_cast<size_t>(max_positions) * half, 0.0f);
  sin.assign(cos.size(), 0.0f);
  for (int i = 0; i < half; ++i) {
    const auto inv_freq =
        static_cast<float>(1.0 / std::pow(theta, static_cast<double>(2 * i) / head_dim));
    for (int p = 0; p < max_positions; ++p) {
      const float angle = static_cast<float>(p) * inv_freq;
      cos[static_cast<size_t>(p) * half + i] = static_cast<float>(std::cos(double{angle}));
      sin[static_cast<size_t>(p) * half + i] = static_cast<float>(std::sin(double{angle}));
    }
  }
}

}  // namespace ec::engine::cuda
