// The rotate_half RoPE of one (x1, x2) pair, shared by the RoPE + KV-store kernel and the fused
// decode attention so that both round exactly as cpu::RopeTable does.
#pragma once

#include <cuda_runtime.h>

namespace ec::engine::cuda {

// x1' = x1·cos − x2·sin, x2' = x2·cos + x1·sin with every product rounded on its own (no FMA
// contraction), as the CPU computes them.
__device__ __forceinline__ float2 rope_rotate(float x1, float x2, float c, float s) {
  return make_float2(__fsub_rn(__fmul_rn(x1, c), __fmul_rn(x2, s)),
                     __fadd_rn(__fmul_rn(x2, c), __fmul_rn(x1, s)));
}

}  // namespace ec::engine::cuda
