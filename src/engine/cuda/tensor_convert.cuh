// Element conversions on the device: checkpoint dtypes to the 16-bit weight formats (once, at
// load), FP32 activations to fp16/bf16 for cuBLAS (prefill), and bias adds.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/dtype.h"

namespace ec::engine::cuda {

// dst[i] = round_to_nearest_even(src[i]) as f16 (or bf16 when to_bf16) bits; src is f32, f16 or
// bf16 (the same rounding as the host's float_to_half / float_to_bf16).
void convert_to_16bit(const void* src, DType src_dtype, int64_t n, uint16_t* dst, bool to_bf16,
                      cudaStream_t stream);

// y[t, r] += bias[r] for t < n_tokens, r < rows; rows of y are `ld` apart.
void add_bias(float* y, const float* bias, int n_tokens, int rows, int ld, cudaStream_t stream);

}  // namespace ec::engine::cuda
