// RMSNorm as Llama/Qwen2 compute it: y = (x · 1/sqrt(mean(x²) + eps)) · weight, per token.
#include "engine/cpu/rmsnorm.h"

#include <cmath>

namespace ec::engine::cpu {

void rmsnorm(const float* x, const float* weight, int64_t n_tokens, int64_t dim, double eps,
             float* y) {
  for (int64_t t = 0; t < n_tokens; ++t) {
    const float* xt = x + t * dim;
    float* yt = y + t * dim;
    // The sum of squares in double: the mean is exact enough that only the weights' rounding shows.
    double sum = 0.0;
    for (int64_t i = 0; i < dim; ++i) sum += static_cast<double>(xt[i]) * xt[i];
    const auto scale = static_cast<float>(1.0 / std::sqrt(sum / static_cast<double>(dim) + eps));
    // Same order as transformers: normalise, then multiply by the weight.
    for (int64_t i = 0; i < dim; ++i) yt[i] = weight[i] * (xt[i] * scale);
  }
}

}  // namespace ec::engine::cpu
