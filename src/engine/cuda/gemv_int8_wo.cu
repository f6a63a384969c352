// Weight-only INT8 batch-1 GEMV: sixteen int8 weights per 16-byte load, widened to FP32 with the
// 2^23 magic-number trick (byte_perm + one subtract; no slow I2F), row scale SCB/127 applied once.
#include "engine/cuda/gemv_int8_wo.cuh"
#include "engine/cuda/gemv_kernel.cuh"
#include "quant/int8_rowwise.h"

namespace ec::engine::cuda {
namespace {

// float(0x4B000000 | (b + 128)) = 2^23 + b + 128 exactly, for the int8 b in byte `i` of v.
__device__ __forceinline__ float int8_at(uint32_t flipped, int i) {
  return __uint_as_float(__byte_perm(flipped, 0x4B000000u, 0x7650u | static_cast<unsigned>(i))) -
         8388736.0f;
}

__device__ __forceinline__ float dot4(uint32_t v, float4 x) {
  const uint32_t f = v ^ 0x80808080u;  // two's complement → offset binary, per byte
  float s = int8_at(f, 0) * x.x;
  s = fmaf(int8_at(f, 1), x.y, s);
  s = fmaf(int8_at(f, 2), x.z, s);
  s = fmaf(int8_at(f, 3), x.w, s);
  return s;
}

struct Int8WoPolicy {
  static constexpr int kElems = 16;
  static constexpr int kBitsPerWeight = 8;
  static constexpr size_t kSharedBytes = 0;
  static constexpr bool kXHalf = false;
  static constexpr bool kShortSteps = true;
  __device__ static void init_shared(const GemvArgs&, unsigned char*) {}
  __device__ static float2 raw(const GemvSegment&, int, int, int) { return make_float2(0.f, 0.f); }
  __device__ static float scale(float2, const GemvSegment&, const unsigned char*) { return 1.0f; }
  __device__ static float dot(uint4 w, const float4* x4, int rot, const unsigned char*, int) {
    return (dot4(w.x, x4[rot]) + dot4(w.y, x4[rot ^ 1])) +
           (dot4(w.z, x4[rot ^ 2]) + dot4(w.w, x4[rot ^ 3]));
  }
  __device__ static float finish(const GemvSegment& s, int row, float acc) {
    const float scale = __fmul_rn(s.scales[row], quant::kInv127);
    const float v = __fmul_rn(acc, scale);
    return s.bias != nullptr ? __fadd_rn(v, s.bias[row]) : v;
  }
};

}  // namespace

void launch_gemv_int8_wo(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream) {
  detail::dispatch_rows<Int8WoPolicy>(args, config, stream);
}

}  // namespace ec::engine::cuda
