// Weight-only INT8 (W8A16) batch-1 GEMV: sixteen int8 weights per 16-byte load, widened to fp16
// pairs with a magic-number trick (byte_perm + one subtract; no slow I2F), multiplied by x in fp16
// and summed in FP32; the row scale SCB/127 is applied once.
#include <cuda_fp16.h>

#include "engine/cuda/gemv_dispatch.cuh"
#include "engine/cuda/gemv_int8_wo.cuh"
#include "quant/int8_rowwise.h"

namespace ec::engine::cuda {
namespace {

// The int8 pair in bytes (lo, hi) of v (two's complement), as fp16 b/128: bytes flipped to offset
// binary u = b + 128 become the low mantissa bits of 0x48XX = 8 + u/128 (fp16 steps by 1/128 on
// [8, 16), so this is exact), and one subtraction of 9 leaves (u - 128)/128 = b/128, also exact.
// Two weights per byte_perm and per subtraction, instead of one float conversion each.
__device__ __forceinline__ __half2 int8_pair(uint32_t flipped, unsigned selector) {
  const uint32_t h = __byte_perm(flipped, 0x48484848u, selector);
  return __hsub2(*reinterpret_cast<const __half2*>(&h), __float2half2_rn(9.0f));
}

// Eight weights (two words) dotted with the eight fp16 x of one staged 16-byte unit: products of
// b/128 (|b/128| <= 1, so no product exceeds its x) and x in fp16, summed four deep per half, then
// added in FP32 — as the NF4 dot does.
__device__ __forceinline__ float dot8(uint32_t a, uint32_t b, uint4 xu) {
  const auto* x2 = reinterpret_cast<const __half2*>(&xu);
  a ^= 0x80808080u;
  b ^= 0x80808080u;
  __half2 h = __hmul2(int8_pair(a, 0x4140u), x2[0]);
  h = __hfma2(int8_pair(a, 0x4342u), x2[1], h);
  h = __hfma2(int8_pair(b, 0x4140u), x2[2], h);
  h = __hfma2(int8_pair(b, 0x4342u), x2[3], h);
  const float2 f = __half22float2(h);
  return f.x + f.y;
}

struct Int8WoPolicy : detail::NoChunkScales {  // the row scale is applied in finish
  static constexpr int kElems = 16;
  static constexpr int kBitsPerWeight = 8;
  static constexpr size_t kSharedBytes = 0;
  // W8A16: x is staged in fp16, as the format's activations are (QUANT_FORMATS.md).
  static constexpr bool kXHalf = true;
  static constexpr bool kShortSteps = true;
  // stage_x: one 8-feature unit at a time. Deeper sweeps gained nothing at qwen2-7b and cost
  // qwen2-0.5b 3 % on the H200.
  static constexpr int kStageLoads = 1;
  // x given in fp16 (GemvArgs::x_half, the decode step's down_proj): two 8-feature units in flight
  // per thread, the registers of the fp32 sweep's one (two float4); eight in the bulk-copy kernel,
  // where no weights are held in registers meanwhile. Eight everywhere cost qwen2-1.5b's r1p-u16
  // down_proj 2.4 % on the H200 (and gained 0.5 % at qwen2-7b's r1p-bulk).
  static constexpr int kXHalfLoads = 2;
  static constexpr int kXHalfLoadsBulk = 8;
  __device__ static void init_shared(const GemvArgs&, unsigned char*) {}
  // A chunk's 16 x are staged as two 16-byte units (x_slot: unit k at k ^ rot).
  __device__ static float dot(uint4 w, const float4* x4, int rot, const unsigned char*, int) {
    const auto* xh = reinterpret_cast<const uint4*>(x4);
    return dot8(w.x, w.y, xh[rot]) + dot8(w.z, w.w, xh[rot ^ 1]);
  }
  // The dot summed b/128 · x: times 128 · SCB/127 (128 is a power of two, so the row scale is
  // rounded exactly as the CPU rounds SCB/127).
  __device__ static float finish(const GemvSegment& s, int row, float acc) {
    const float scale = __fmul_rn(s.scales[row], quant::kInv127) * 128.0f;
    const float v = __fmul_rn(acc, scale);
    return s.bias != nullptr ? __fadd_rn(v, s.bias[row]) : v;
  }
};

}  // namespace

size_t gemv_int8_wo_shared_bytes(int cols) {
  return detail::gemv_shared_bytes<Int8WoPolicy>(cols);
}

void launch_gemv_int8_wo(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream) {
  detail::dispatch_rows<Int8WoPolicy>(args, config, stream);
}

}  // namespace ec::engine::cuda
