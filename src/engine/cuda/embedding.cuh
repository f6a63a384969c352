// Token embedding lookup on the device: rows of the f16/bf16 [vocab, hidden] table widened to FP32.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ec::engine::cuda {

// out[t, :] = table[tokens[t], :] for t < n_tokens; tokens live in device memory (the decode graph
// reads the token its argmax wrote). A token outside [0, vocab) gives a row of NaN.
void embedding(const uint16_t* table, bool bf16, int vocab, int hidden, const int32_t* tokens,
               int n_tokens, float* out, cudaStream_t stream);

}  // namespace ec::engine::cuda
