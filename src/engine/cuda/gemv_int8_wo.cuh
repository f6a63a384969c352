// Weight-only INT8 (W8A16) decode GEMV launcher: int8 codes widened in the inner loop, scaled by
// SCB/127 once per row.
#pragma once

#include "engine/cuda/gemv.cuh"

namespace ec::engine::cuda {

void launch_gemv_int8_wo(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream);

// Shared memory per block of that kernel for `cols` input features.
size_t gemv_int8_wo_shared_bytes(int cols);

}  // namespace ec::engine::cuda
