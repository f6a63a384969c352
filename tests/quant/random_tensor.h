// Seeded random tensors for the quantizer tests: normal values that are never exactly zero.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ec::quant::test {

inline std::vector<float> random_normal(size_t n, uint32_t seed, float stddev = 1.0f,
                                        float mean = 0.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, stddev);
  std::vector<float> v(n);
  for (float& x : v) {
    do {
      x = dist(rng);
    } while (x == 0.0f);
  }
  return v;
}

}  // namespace ec::quant::test
