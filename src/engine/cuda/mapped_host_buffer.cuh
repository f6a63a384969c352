// MappedHostBuffer<T>: an owning array of pinned host memory mapped into the device's address
// space (move-only), so kernels store to it and the host reads it after a synchronisation, with no
// copy in between.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "engine/cuda/cuda_check.cuh"

namespace ec::engine::cuda {

template <class T>
class MappedHostBuffer {
 public:
  MappedHostBuffer() = default;
  explicit MappedHostBuffer(size_t count) {
    if (count == 0) return;
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocMapped));
    host_ = static_cast<T*>(p);
    count_ = count;
    void* d = nullptr;
    const cudaError_t mapped = cudaHostGetDevicePointer(&d, p, 0);
    if (mapped != cudaSuccess) {
      release();
      CUDA_CHECK(mapped);
    }
    device_ = static_cast<T*>(d);
    for (size_t i = 0; i < count; ++i) host_[i] = T{};
  }
  ~MappedHostBuffer() { release(); }
  MappedHostBuffer(const MappedHostBuffer&) = delete;
  MappedHostBuffer& operator=(const MappedHostBuffer&) = delete;
  MappedHostBuffer(MappedHostBuffer&& o) noexcept
      : host_(std::exchange(o.host_, nullptr)),
        device_(std::exchange(o.device_, nullptr)),
        count_(std::exchange(o.count_, 0)) {}
  MappedHostBuffer& operator=(MappedHostBuffer&& o) noexcept {
    if (this != &o) {
      release();
      host_ = std::exchange(o.host_, nullptr);
      device_ = std::exchange(o.device_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  T* host() { return host_; }
  const T* host() const { return host_; }
  T* device() { return device_; }  // the same memory, as kernels address it
  size_t size() const { return count_; }

 private:
  void release() noexcept {
    if (host_ != nullptr) (void)cudaFreeHost(host_);
    host_ = nullptr;
    device_ = nullptr;
    count_ = 0;
  }
  T* host_ = nullptr;
  T* device_ = nullptr;
  size_t count_ = 0;
};

}  // namespace ec::engine::cuda
