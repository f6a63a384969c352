// Eight FP16 or BF16 weights (one 16-byte load) widened to FP32 and dotted with eight floats of x:
// the inner step of the FP16/BF16 GEMV, and of any kernel that must compute the same sums.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace ec::engine::cuda {

__device__ __forceinline__ float2 f16x2(uint32_t v) {
  return __half22float2(*reinterpret_cast<const __half2*>(&v));
}
// bf16 → f32 is a shift: exact and cheaper than a conversion instruction.
__device__ __forceinline__ float2 bf16x2(uint32_t v) {
  return make_float2(__uint_as_float(v << 16), __uint_as_float(v & 0xffff0000u));
}

template <float2 (*Widen)(uint32_t)>
__device__ __forceinline__ float dot8(uint4 w, const float4* xc, int rot) {
  const float4 x0 = xc[rot];
  const float4 x1 = xc[rot ^ 1];
  const float2 a = Widen(w.x), b = Widen(w.y), c = Widen(w.z), d = Widen(w.w);
  float s = a.x * x0.x;
  s = fmaf(a.y, x0.y, s);
  s = fmaf(b.x, x0.z, s);
  s = fmaf(b.y, x0.w, s);
  s = fmaf(c.x, x1.x, s);
  s = fmaf(c.y, x1.y, s);
  s = fmaf(d.x, x1.z, s);
  s = fmaf(d.y, x1.w, s);
  return s;
}

}  // namespace ec::engine::cuda
