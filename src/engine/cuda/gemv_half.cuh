// FP16/BF16 decode GEMV launcher (gemv() dispatches here for GemvFormat::f16 and ::bf16).
#pragma once

#include "engine/cuda/gemv.cuh"

namespace ec::engine::cuda {

void launch_gemv_half(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream);

}  // namespace ec::engine::cuda
