// The SwiGLU gate of the Llama/Qwen2 MLP: out = silu(gate) · up, elementwise.
#include "engine/cpu/swiglu.h"

#include <cmath>

namespace ec::engine::cpu {

void swiglu(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const float g = gate[i];
    out[i] = g / (1.0f + std::exp(-g)) * up[i];
  }
}

}  // namespace ec::engine::cpu
