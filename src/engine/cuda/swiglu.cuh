// SwiGLU on the device for prefill (decode fuses it into the gate/up GEMV): out = silu(gate)·up.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ec::engine::cuda {

// out may alias gate or up.
void swiglu(const float* gate, const float* up, int64_t n, float* out, cudaStream_t stream);

}  // namespace ec::engine::cuda
