// The SwiGLU gate of the Llama/Qwen2 MLP: out = silu(gate) · up, elementwise.
#pragma once

#include <cstdint>

namespace ec::engine::cpu {

// out may alias gate or up.
void swiglu(const float* gate, const float* up, int64_t n, float* out);

}  // namespace ec::engine::cpu
