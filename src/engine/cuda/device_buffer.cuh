// DeviceBuffer<T>: an owning cudaMalloc'd array (move-only), with host<->device copy helpers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "engine/cuda/cuda_check.cuh"

namespace ec::engine::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  // Discards the contents; a zero count frees the memory.
  void resize(size_t count) {
    if (count == count_) return;
    release();
    if (count > 0) {
      void* p = nullptr;
      CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
      ptr_ = static_cast<T*>(p);
      count_ = count;
    }
  }

  T* get() { return ptr_; }
  const T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(std::span<const T> host) {
    resize(host.size());
    if (!host.empty()) {
      CUDA_CHECK(cudaMemcpy(ptr_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
    }
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) {
      CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    }
    return host;
  }

 private:
  void release() noexcept {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

template <class T>
DeviceBuffer<T> to_device(std::span<const T> host) {
  DeviceBuffer<T> d;
  d.upload(host);
  return d;
}

}  // namespace ec::engine::cuda
