// Conversions to the 16-bit formats and bias adds, grid-stride elementwise kernels.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/tensor_convert.cuh"

namespace ec::engine::cuda {
namespace {

__device__ __forceinline__ float load_as_float(const void* src, int kind, int64_t i) {
  if (kind == 0) return static_cast<const float*>(src)[i];
  const uint16_t b = static_cast<const uint16_t*>(src)[i];
  return kind == 1 ? __half2float(__ushort_as_half(b))
                   : __uint_as_float(static_cast<uint32_t>(b) << 16);
}

__global__ void convert_kernel(const void* src, int kind, int64_t n, uint16_t* dst, bool to_bf16) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = load_as_float(src, kind, i);
    dst[i] = to_bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(v))
                     : __half_as_ushort(__float2half_rn(v));
  }
}

__global__ void add_bias_kernel(float* y, const float* bias, int n_tokens, int rows, int ld) {
  const int64_t n = static_cast<int64_t>(n_tokens) * rows;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t t = i / rows;
    const int r = static_cast<int>(i % rows);
    y[t * ld + r] += bias[r];
  }
}

unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 8192 ? (blocks < 1 ? 1 : blocks) : 8192);
}

}  // namespace

void convert_to_16bit(const void* src, DType src_dtype, int64_t n, uint16_t* dst, bool to_bf16,
                      cudaStream_t stream) {
  if (n <= 0) return;
  int kind = 0;
  if (src_dtype == DType::f16) {
    kind = 1;
  } else if (src_dtype == DType::bf16) {
    kind = 2;
  } else if (src_dtype != DType::f32) {
    cuda_invalid("convert_to_16bit: source must be f32, f16 or bf16");
  }
  convert_kernel<<<grid_for(n), 256, 0, stream>>>(src, kind, n, dst, to_bf16);
  CUDA_CHECK_LAUNCH();
}

void add_bias(float* y, const float* bias, int n_tokens, int rows, int ld, cudaStream_t stream) {
  if (n_tokens <= 0 || rows <= 0) return;
  add_bias_kernel<<<grid_for(static_cast<int64_t>(n_tokens) * rows), 256, 0, stream>>>(
      y, bias, n_tokens, rows, ld);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
