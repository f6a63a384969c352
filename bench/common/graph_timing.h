// Kernel timing for the CUDA benches: `launches` calls of launch(i, stream) captured in one CUDA
// graph, replayed 7 times after a warm-up replay; the median seconds per launch. (A graph rather
// than a loop of launches: back-to-back kernels as in decoding, without the host's launch cost.)
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "engine/cuda/cuda_check.cuh"

namespace ec::bench {

inline double graph_seconds_per_launch(const std::function<void(int, cudaStream_t)>& launch,
                                       int launches, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < launches; ++i) launch(i, stream);
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t a = nullptr, b = nullptr;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  CUDA_CHECK(cudaGraphLaunch(exec, stream));
  std::vector<double> t;
  for (int rep = 0; rep < 7; ++rep) {
    CUDA_CHECK(cudaEventRecord(a, stream));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaEventRecord(b, stream));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e-3 / launches);
  }
  (void)cudaEventDestroy(a);
  (void)cudaEventDestroy(b);
  (void)cudaGraphExecDestroy(exec);
  (void)cudaGraphDestroy(graph);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace ec::bench
