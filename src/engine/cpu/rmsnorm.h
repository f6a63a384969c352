// RMSNorm as Llama/Qwen2 compute it: y = (x · 1/sqrt(mean(x²) + eps)) · weight, per token.
#pragma once

#include <cstdint>

namespace ec::engine::cpu {

// x and y are [n_tokens, dim] (y may alias x); weight is [dim].
void rmsnorm(const float* x, const float* weight, int64_t n_tokens, int64_t dim, double eps,
             float* y);

}  // namespace ec::engine::cpu
