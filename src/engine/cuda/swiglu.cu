// SwiGLU, elementwise, with the CPU twin's formula g / (1 + exp(-g)) · u.
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/swiglu.cuh"

namespace ec::engine::cuda {
namespace {

__global__ void swiglu_kernel(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float g = gate[i];
    out[i] = g / (1.0f + expf(-g)) * up[i];
  }
}

}  // namespace

void swiglu(const float* gate, const float* up, int64_t n, float* out, cudaStream_t stream) {
  if (n <= 0) return;
  const int64_t blocks = (n + 255) / 256;
  swiglu_kernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(gate, up,
                                                                                          n, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
