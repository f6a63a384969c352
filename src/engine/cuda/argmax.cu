// Two-level argmax in one launch: each block reduces a slice, the last block to finish reduces the
// block results (threadfence + counter), writes the token (and logs it by position) and bumps the
// position.
#include <cfloat>

#include "engine/cuda/argmax.cuh"
#include "engine/cuda/cuda_check.cuh"

namespace ec::engine::cuda {
namespace {

constexpr int kThreads = 512;

// (v, i) beats (bv, bi) when larger, or equal with a smaller index.
__device__ __forceinline__ bool better(float v, int i, float bv, int bi) {
  return v > bv || (v == bv && i < bi);
}

__device__ void block_reduce(float& v, int& i) {
  __shared__ float sv[kThreads / 32];
  __shared__ int si[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, o);
    const int oi = __shfl_xor_sync(0xffffffffu, i, o);
    if (better(ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
  if ((threadIdx.x & 31) == 0) {
    sv[threadIdx.x >> 5] = v;
    si[threadIdx.x >> 5] = i;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) {
      if (better(sv[w], si[w], v, i)) {
        v = sv[w];
        i = si[w];
      }
    }
  }
}

__global__ void argmax_kernel(ArgmaxArgs a) {
  __shared__ bool is_last;
  float v = -FLT_MAX;
  int idx = 0x7fffffff;
  const int stride = gridDim.x * kThreads;
  for (int j = blockIdx.x * kThreads + threadIdx.x; j < a.n; j += stride) {
    const float x = a.logits[j];
    if (better(x, j, v, idx)) {
      v = x;
      idx = j;
    }
  }
  block_reduce(v, idx);
  if (threadIdx.x == 0) {
    a.part_value[blockIdx.x] = v;
    a.part_index[blockIdx.x] = idx;
    __threadfence();
    is_last = atomicAdd(a.counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  v = -FLT_MAX;
  idx = 0x7fffffff;
  for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kThreads) {
    const float bv = __ldcg(a.part_value + b);
    const int bi = __ldcg(a.part_index + b);
    if (better(bv, bi, v, idx)) {
      v = bv;
      idx = bi;
    }
  }
  __syncthreads();
  block_reduce(v, idx);
  if (threadIdx.x == 0) {
    const int32_t token = idx == 0x7fffffff ? 0 : idx;
    *a.out = token;
    if (a.bump != nullptr) {
      const int position = *a.bump;
      if (a.log != nullptr && position >= 0 && position < a.log_len) a.log[position] = token;
      *a.bump = position + 1;
    }
    *a.counter = 0;
  }
}

}  // namespace

void argmax(const ArgmaxArgs& args, cudaStream_t stream) {
  argmax_kernel<<<kArgmaxBlocks, kThreads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
