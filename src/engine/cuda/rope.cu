// RoPE + KV-cache store: blocks over (token, item block), one thread per (head, pair) of q and k
// or per v element (prefill, and decode where the fused decode attention does not apply).
#include <cuda_fp16.h>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/pdl.cuh"
#include "engine/cuda/rope.cuh"
#include "engine/cuda/rope_rotate.cuh"

namespace ec::engine::cuda {
namespace {

constexpr int kRopeThreads = 256;

// Work items of one token: the rotated (head, pair)s of q and k, then the v elements.
__host__ __device__ inline int rope_items(const RopeStoreArgs& a) {
  return (a.n_heads + a.kv_heads) * (a.head_dim / 2) + a.kv_heads * a.head_dim;
}

// Grid (token, item block): one item per thread, so a decode step is one memory round trip rather
// than one block walking all of a token's heads (7 µs per layer at 7B when it did).
__global__ void rope_store_kernel(RopeStoreArgs a) {
  pdl_trigger();  // let the next GEMV start prefetching its weights
  const int t = blockIdx.x;
  const int i = static_cast<int>(blockIdx.y) * kRopeThreads + static_cast<int>(threadIdx.x);
  const int pos = *a.start + t;
  const int half = a.head_dim / 2;
  float* row = a.qkv + static_cast<int64_t>(t) * a.stride;
  const int rotated = (a.n_heads + a.kv_heads) * half;
  if (i < rotated) {
    const float* c = a.cos + static_cast<int64_t>(pos) * half;
    const float* s = a.sin + static_cast<int64_t>(pos) * half;
    const int head = i / half;
    const int d = i % half;
    float* x1 = row + head * a.head_dim + d;
    float* x2 = x1 + half;
    const float2 r = rope_rotate(*x1, *x2, c[d], s[d]);
    const float r1 = r.x, r2 = r.y;
    if (head < a.n_heads) {
      *x1 = r1;
      *x2 = r2;
    } else {
      const int kvh = head - a.n_heads;
      uint16_t* dst = a.k_cache + (static_cast<int64_t>(kvh) * a.capacity + pos) * a.head_dim + d;
      dst[0] = __half_as_ushort(__float2half_rn(r1));
      dst[half] = __half_as_ushort(__float2half_rn(r2));
    }
  } else if (i < rope_items(a)) {
    const int j = i - rotated;
    const float* v = row + (a.n_heads + a.kv_heads) * a.head_dim;
    const int kvh = j / a.head_dim;
    const int d = j % a.head_dim;
    a.v_cache[(static_cast<int64_t>(kvh) * a.capacity + pos) * a.head_dim + d] =
        __half_as_ushort(__float2half_rn(v[j]));
  }
}

}  // namespace

void rope_store(const RopeStoreArgs& args, cudaStream_t stream) {
  if (args.n_tokens <= 0) return;
  const dim3 grid(static_cast<unsigned>(args.n_tokens),
                  static_cast<unsigned>((rope_items(args) + kRopeThreads - 1) / kRopeThreads));
  rope_store_kernel<<<grid, kRopeThreads, 0, stream>>>(args);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
