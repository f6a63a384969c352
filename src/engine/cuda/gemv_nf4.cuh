// NF4 and NF4-DQ decode GEMV launcher (bnb's 4-bit NormalFloat, blocks of 64, high nibble first).
#pragma once

#include "engine/cuda/gemv.cuh"

namespace ec::engine::cuda {

void launch_gemv_nf4(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream);

// Shared memory per block of that kernel for `cols` input features (nf4 or nf4-dq).
size_t gemv_nf4_shared_bytes(quant::Format format, int cols);

}  // namespace ec::engine::cuda
