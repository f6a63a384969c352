// RMSNorm on the device for prefill (decode fuses it into the GEMV that reads it).
#pragma once

#include <cuda_runtime_api.h>

namespace ec::engine::cuda {

// y = (x · 1/sqrt(mean(x²) + eps)) · weight per row of x [n_tokens, dim]; y may alias x.
void rmsnorm(const float* x, const float* weight, int n_tokens, int dim, double eps, float* y,
             cudaStream_t stream);

}  // namespace ec::engine::cuda
