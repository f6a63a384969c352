// FP16/BF16 decode GEMV launcher (gemv() dispatches here for the fp16 and bf16 formats).
#pragma once

#include "engine/cuda/gemv.cuh"

namespace ec::engine::cuda {

void launch_gemv_half(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream);

// Shared memory per block of that kernel for `cols` input features (f16 or bf16).
size_t gemv_half_shared_bytes(quant::Format format, int cols);

}  // namespace ec::engine::cuda
