// RMSNorm, one block per token; the sum of squares in double as the CPU twin computes it.
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/rmsnorm.cuh"

namespace ec::engine::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void rmsnorm_kernel(const float* x, const float* weight, int dim, double eps, float* y) {
  __shared__ double partial[kThreads / 32];
  __shared__ float s_scale;
  const float* xt = x + static_cast<int64_t>(blockIdx.x) * dim;
  float* yt = y + static_cast<int64_t>(blockIdx.x) * dim;
  double ss = 0.0;
  for (int i = threadIdx.x; i < dim; i += kThreads) ss += static_cast<double>(xt[i]) * xt[i];
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0.0;
    for (int w = 0; w < kThreads / 32; ++w) total += partial[w];
    s_scale = static_cast<float>(1.0 / sqrt(total / dim + eps));
  }
  __syncthreads();
  const float scale = s_scale;
  for (int i = threadIdx.x; i < dim; i += kThreads) yt[i] = weight[i] * (xt[i] * scale);
}

}  // namespace

void rmsnorm(const float* x, const float* weight, int n_tokens, int dim, double eps, float* y,
             cudaStream_t stream) {
  if (n_tokens <= 0) return;
  rmsnorm_kernel<<<n_tokens, kThreads, 0, stream>>>(x, weight, dim, eps, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
