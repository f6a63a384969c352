// Owners of the CUDA engine's handles (stream, cuBLAS, events, a captured graph): each is released
// by its destructor, so an engine whose constructor throws halfway leaks none of them.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <utility>

#include "engine/cuda/cuda_check.cuh"

namespace ec::engine::cuda {

// A move-only owner of one handle, released with `release` (its status ignored: a destructor
// cannot report it, and the handle is gone either way).
template <class Handle, auto release>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle h) : h_(h) {}
  ~Owned() { reset(); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  Handle get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  void reset() {
    if (h_ != nullptr) (void)release(h_);
    h_ = nullptr;
  }

 private:
  Handle h_ = nullptr;
};

using CudaStream = Owned<cudaStream_t, &cudaStreamDestroy>;
using CudaEvent = Owned<cudaEvent_t, &cudaEventDestroy>;
using CublasHandle = Owned<cublasHandle_t, &cublasDestroy>;

inline CudaStream make_stream() {
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return CudaStream(s);
}

inline CudaEvent make_event() {
  cudaEvent_t e = nullptr;
  CUDA_CHECK(cudaEventCreate(&e));
  return CudaEvent(e);
}

// A cuBLAS handle whose work goes to `stream`.
inline CublasHandle make_cublas(cudaStream_t stream) {
  cublasHandle_t h = nullptr;
  CUBLAS_CHECK(cublasCreate(&h));
  CublasHandle owned(h);
  CUBLAS_CHECK(cublasSetStream(h, stream));
  return owned;
}

// Milliseconds between two recorded events.
inline float elapsed_ms(const CudaEvent& start, const CudaEvent& stop) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

// A CUDA graph captured from what `enqueue` puts on a stream, instantiated, replayable.
class CudaGraph {
 public:
  CudaGraph() = default;
  // Captures `enqueue`'s launches on `stream` (thread-local capture mode). When enqueue throws,
  // the capture is ended and discarded before the exception goes on.
  static CudaGraph capture(cudaStream_t stream, const std::function<void()>& enqueue) {
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      (void)cudaStreamEndCapture(stream, &broken);
      if (broken != nullptr) (void)cudaGraphDestroy(broken);
      throw;
    }
    cudaGraph_t g = nullptr;
    CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    CudaGraph out;
    out.graph_ = Graph(g);
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    out.exec_ = Exec(exec);
    return out;
  }
  explicit operator bool() const { return static_cast<bool>(exec_); }
  void launch(cudaStream_t stream) const { CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream)); }

 private:
  using Graph = Owned<cudaGraph_t, &cudaGraphDestroy>;
  using Exec = Owned<cudaGraphExec_t, &cudaGraphExecDestroy>;
  Graph graph_;  // declared first: the instance goes before the graph it was made from
  Exec exec_;
};

}  // namespace ec::engine::cuda
