// The ceiling every CUDA bench reports against: a device-to-device copy of 2 GiB on a stream (not
// from a graph), bytes read + written per second, the median of five timed copies.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/device_buffer.cuh"

namespace ec::bench {

inline double copy_ceiling(cudaStream_t stream = nullptr) {
  const size_t bytes = size_t{2} << 30;
  engine::cuda::DeviceBuffer<uint8_t> a(bytes), b(bytes);
  CUDA_CHECK(cudaMemset(a.get(), 1, bytes));
  CUDA_CHECK(cudaMemcpy(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice));
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) {
    CUDA_CHECK(cudaEventRecord(e0, stream));
    CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaEventRecord(e1, stream));
    CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms * 1e-3);
  }
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
  std::sort(t.begin(), t.end());
  return 2.0 * double(bytes) / t[2];
}

}  // namespace ec::bench
