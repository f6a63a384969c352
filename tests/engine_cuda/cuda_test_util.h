// Helpers for the CUDA engine tests: skip without a device, seeded random inputs, device round
// trips and the relative-error measure every comparison with a CPU twin uses.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "core/half.h"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"

// CI compiles these tests but has no GPU: every test starts with this.
#define EC_REQUIRE_CUDA()                                                         \
  do {                                                                            \
    if (!::ec::engine::cuda::cuda_device_available()) {                           \
      GTEST_SKIP() << "no CUDA device on this machine (the CUDA tests need one)"; \
    }                                                                             \
  } while (0)

namespace ec::test {

inline std::vector<float> random_floats(size_t n, uint64_t seed, float sd = 1.0f,
                                        float mean = 0.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(mean, sd);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// bf16 bits of values (fp16: ec::to_half_bits).
inline std::vector<uint16_t> to_bf16_bits(const std::vector<float>& v) {
  std::vector<uint16_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = float_to_bf16(v[i]);
  return b;
}

template <class T>
engine::cuda::DeviceBuffer<T> dev(const std::vector<T>& host) {
  return engine::cuda::to_device(std::span<const T>(host));
}

// A device buffer of n floats filled with NaN, so an unwritten output fails every comparison.
inline engine::cuda::DeviceBuffer<float> poisoned(size_t n) {
  engine::cuda::DeviceBuffer<float> b(n);
  CUDA_CHECK(cudaMemset(b.get(), 0xff, b.bytes()));
  return b;
}

// ‖a − b‖ / ‖b‖ over all elements (double); NaN anywhere gives NaN (fails every < bound).
inline double rel_error(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / (den > 0.0 ? den : 1.0));
}

inline void sync() {
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace ec::test
