// int8 row-wise and NF4 quantizers on the device, following quant/int8_rowwise.cpp and
// quant/nf4.cpp operation by operation (IEEE division, round-half-even, bnb's NF4 decision tree),
// and the dequantizers the prefill GEMMs use.
#include <cuda_fp16.h>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/quantize.cuh"
#include "quant/int8_rowwise.h"
#include "quant/nf4.h"
#include "quant/nf4_dq.h"

namespace ec::engine::cuda {
namespace {

__constant__ float kThreshold[15] = {
    quant::kNf4Threshold[0],  quant::kNf4Threshold[1],  quant::kNf4Threshold[2],
    quant::kNf4Threshold[3],  quant::kNf4Threshold[4],  quant::kNf4Threshold[5],
    quant::kNf4Threshold[6],  quant::kNf4Threshold[7],  quant::kNf4Threshold[8],
    quant::kNf4Threshold[9],  quant::kNf4Threshold[10], quant::kNf4Threshold[11],
    quant::kNf4Threshold[12], quant::kNf4Threshold[13], quant::kNf4Threshold[14]};

__constant__ float kCode[16] = {
    quant::kNf4Code[0],  quant::kNf4Code[1],  quant::kNf4Code[2],  quant::kNf4Code[3],
    quant::kNf4Code[4],  quant::kNf4Code[5],  quant::kNf4Code[6],  quant::kNf4Code[7],
    quant::kNf4Code[8],  quant::kNf4Code[9],  quant::kNf4Code[10], quant::kNf4Code[11],
    quant::kNf4Code[12], quant::kNf4Code[13], quant::kNf4Code[14], quant::kNf4Code[15]};

__device__ __forceinline__ float h2f(uint16_t b) {
  return __half2float(__ushort_as_half(b));
}

// quant::nf4_quantize_value: strict `>` at every node, NaN falls to 0.
__device__ __forceinline__ unsigned nf4_index(float x) {
  int i = x > kThreshold[7] ? 8 : 0;
  i += x > kThreshold[i + 3] ? 4 : 0;
  i += x > kThreshold[i + 1] ? 2 : 0;
  i += x > kThreshold[i] ? 1 : 0;
  return static_cast<unsigned>(i);
}

__global__ void int8_rowwise_kernel(const uint16_t* w16, int64_t cols, int8_t* codes,
                                    float* scales) {
  __shared__ float red[32];
  const uint16_t* row = w16 + blockIdx.x * cols;
  int8_t* out = codes + blockIdx.x * cols;
  float m = 0.0f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, fabsf(h2f(row[c])));
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
  __syncthreads();
  float absmax = 0.0f;
  for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) absmax = fmaxf(absmax, red[w]);
  if (threadIdx.x == 0) scales[blockIdx.x] = absmax;
  const float scale = 127.0f / absmax;
  const bool scale_finite = isfinite(scale);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float q = 0.0f;
    if (absmax > 0.0f) {
      const float x = h2f(row[c]);
      const float scaled = scale_finite ? x * scale : x / absmax * 127.0f;
      q = fminf(fmaxf(rintf(scaled), -127.0f), 127.0f);
    }
    out[c] = static_cast<int8_t>(q);
  }
}

// One thread per block of 64 (32 output bytes).
__global__ void nf4_kernel(const uint16_t* w16, int64_t n, uint8_t* packed, float* absmax) {
  const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t begin = b * quant::kNf4BlockSize;
  if (begin >= n) return;
  const int64_t end = min(n, begin + quant::kNf4BlockSize);
  float m = 0.0f;
  for (int64_t i = begin; i < end; ++i) m = fmaxf(m, fabsf(h2f(w16[i])));
  absmax[b] = m;
  const float inv = m > 0.0f ? 1.0f / m : 0.0f;
  const bool inv_finite = isfinite(inv);
  for (int64_t i = begin; i < end; i += 2) {
    unsigned hi = 7, lo = quant::kNf4PadCode;
    if (m > 0.0f) {
      const float x0 = h2f(w16[i]);
      hi = nf4_index(inv_finite ? x0 * inv : x0 / m);
    }
    if (i + 1 < end) {
      lo = 7;
      if (m > 0.0f) {
        const float x1 = h2f(w16[i + 1]);
        lo = nf4_index(inv_finite ? x1 * inv : x1 / m);
      }
    }
    packed[i / 2] = static_cast<uint8_t>(hi << 4 | lo);
  }
}

__global__ void dequant_kernel(quant::Format format, GemvSegment s, int64_t cols, uint16_t* out) {
  const int64_t n = static_cast<int64_t>(s.rows) * cols;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float v = 0.0f;
    if (format == quant::Format::int8_wo || format == quant::Format::int8_llm) {
      const int8_t q = static_cast<const int8_t*>(s.w)[i];
      v = __fmul_rn(__fmul_rn(static_cast<float>(q), s.scales[i / cols]), quant::kInv127);
    } else {
      const uint8_t byte = static_cast<const uint8_t*>(s.w)[i / 2];
      const unsigned code = (i % 2 == 0) ? byte >> 4 : byte & 15u;
      const int64_t b = i / quant::kNf4BlockSize;
      float a = 0.0f;
      if (format == quant::Format::nf4) {
        a = s.scales[b];
      } else {
        a = __fadd_rn(
            __fmul_rn(s.absmax_map[s.absmax_codes[b]], s.scales[b / quant::kNf4DqBlockSize]),
            s.absmax_offset);
      }
      v = __fmul_rn(kCode[code], a);
    }
    out[i] = __half_as_ushort(__float2half_rn(v));
  }
}

}  // namespace

void quantize_int8_rowwise(const uint16_t* w16, int64_t rows, int64_t cols, int8_t* codes,
                           float* scales, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  int8_rowwise_kernel<<<static_cast<unsigned>(rows), 256, 0, stream>>>(w16, cols, codes, scales);
  CUDA_CHECK_LAUNCH();
}

void quantize_nf4(const uint16_t* w16, int64_t n, uint8_t* packed, float* absmax,
                  cudaStream_t stream) {
  if (n <= 0) return;
  const int64_t blocks = (n + quant::kNf4BlockSize - 1) / quant::kNf4BlockSize;
  nf4_kernel<<<static_cast<unsigned>((blocks + 127) / 128), 128, 0, stream>>>(w16, n, packed,
                                                                              absmax);
  CUDA_CHECK_LAUNCH();
}

void dequantize_to_f16(quant::Format format, const GemvSegment& seg, int64_t cols, uint16_t* out,
                       cudaStream_t stream) {
  if (format == quant::Format::fp16 || format == quant::Format::bf16) {
    cuda_invalid("dequantize_to_f16: the weights are already 16-bit");
  }
  const int64_t n = static_cast<int64_t>(seg.rows) * cols;
  if (n <= 0) return;
  const int64_t blocks = (n + 255) / 256;
  dequant_kernel<<<static_cast<unsigned>(blocks < 16384 ? blocks : 16384), 256, 0, stream>>>(
      format, seg, cols, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
