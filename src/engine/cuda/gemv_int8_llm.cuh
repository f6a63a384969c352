// LLM.int8() GEMV launcher (int8-llm, the seed's "INT8"), faithful to bitsandbytes.
#pragma once

#include "engine/cuda/gemv.cuh"

namespace ec::engine::cuda {

// One token without a batch mask (decode): the shared GEMV kernels' variant `config`. Else
// (prefill): n_tokens rows of x/y ([n, cols] and [n, outputs]), args.outlier_mask set over the
// batch, one block row per token with config's rows per warp and grid.
void launch_gemv_int8_llm(const GemvArgs& args, const GemvConfig& config, int n_tokens,
                          cudaStream_t stream);

// Shared memory per block of either kernel for `cols` input features.
size_t gemv_int8_llm_shared_bytes(int cols);

// mask[cols/32] |= bit c for every column c where some token of x [n, cols] has |fp16(x)| ≥ 6:
// bnb's outlier columns of a batch. cols is a multiple of 32; the mask must start zeroed.
void int8_llm_outlier_mask(const float* x, int n_tokens, int cols, uint32_t* mask,
                           cudaStream_t stream);

}  // namespace ec::engine::cuda
