// Device twins of the src/quant quantizers (so a 7B model is quantized on the GPU in seconds,
// byte for byte as the host would), and dequantization to fp16 for the prefill GEMMs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/cuda/gemv.cuh"

namespace ec::engine::cuda {

// quant::quantize_int8_rowwise of the fp16 weights w16 [rows, cols]: codes [rows, cols], scales
// [rows].
void quantize_int8_rowwise(const uint16_t* w16, int64_t rows, int64_t cols, int8_t* codes,
                           float* scales, cudaStream_t stream);

// quant::quantize_nf4_blocks of the fp16 weights w16 [n]: packed [(n+1)/2], absmax [ceil(n/64)].
void quantize_nf4(const uint16_t* w16, int64_t n, uint8_t* packed, float* absmax,
                  cudaStream_t stream);

// The weights of one segment back as fp16 [rows, cols] (int8: fp16(q·SCB·(1/127)); nf4/nf4-dq:
// fp16(code·absmax)). f16 needs no call; bf16 is not handled here.
void dequantize_to_f16(quant::Format format, const GemvSegment& seg, int64_t cols, uint16_t* out,
                       cudaStream_t stream);

}  // namespace ec::engine::cuda
