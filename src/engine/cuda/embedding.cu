// Token embedding lookup: one block per token, 16-bit rows widened to FP32.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/embedding.cuh"
#include "engine/cuda/pdl.cuh"

namespace ec::engine::cuda {
namespace {

__global__ void embedding_kernel(const uint16_t* table, bool bf16, int vocab, int hidden,
                                 const int32_t* tokens, float* out) {
  pdl_trigger();  // let the next GEMV start prefetching its weights
  const int32_t token = tokens[blockIdx.x];
  float* row_out = out + static_cast<int64_t>(blockIdx.x) * hidden;
  if (token < 0 || token >= vocab) {
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) row_out[i] = __int_as_float(0x7fc00000);
    return;
  }
  const uint16_t* row = table + static_cast<int64_t>(token) * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const uint16_t b = row[i];
    row_out[i] =
        bf16 ? __uint_as_float(static_cast<uint32_t>(b) << 16) : __half2float(__ushort_as_half(b));
  }
}

}  // namespace

void embedding(const uint16_t* table, bool bf16, int vocab, int hidden, const int32_t* tokens,
               int n_tokens, float* out, cudaStream_t stream) {
  if (n_tokens <= 0) return;
  embedding_kernel<<<n_tokens, 256, 0, stream>>>(table, bf16, vocab, hidden, tokens, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
