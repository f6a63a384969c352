// FP16 and BF16 batch-1 GEMV: eight weights per 16-byte load, widened to FP32 and dotted with the
// staged x.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "engine/cuda/gemv_dispatch.cuh"
#include "engine/cuda/gemv_half.cuh"

namespace ec::engine::cuda {
namespace {

struct HalfCommon : detail::NoChunkScales {
  static constexpr int kElems = 8;
  static constexpr int kBitsPerWeight = 16;
  static constexpr size_t kSharedBytes = 0;
  static constexpr bool kXHalf = false;
  static constexpr bool kShortSteps = false;
  static constexpr int kStageLoads = 8;  // stage_x: 8 float4 of x in flight per thread
  __device__ static void init_shared(const GemvArgs&, unsigned char*) {}
  __device__ static float finish(const GemvSegment& s, int row, float acc) {
    return s.bias != nullptr ? acc + s.bias[row] : acc;
  }
};

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

struct F16Policy : HalfCommon {
  __device__ static float dot(uint4 w, const float4* xc, int rot, const unsigned char*, int) {
    return dot8<f16x2>(w, xc, rot);
  }
};

struct Bf16Policy : HalfCommon {
  __device__ static float dot(uint4 w, const float4* xc, int rot, const unsigned char*, int) {
    return dot8<bf16x2>(w, xc, rot);
  }
};

}  // namespace

size_t gemv_half_shared_bytes(quant::Format format, int cols) {
  return format == quant::Format::bf16 ? detail::gemv_shared_bytes<Bf16Policy>(cols)
                                       : detail::gemv_shared_bytes<F16Policy>(cols);
}

void launch_gemv_half(const GemvArgs& args, const GemvConfig& config, cudaStream_t stream) {
  if (args.format == quant::Format::bf16) {
    detail::dispatch_rows<Bf16Policy>(args, config, stream);
  } else {
    detail::dispatch_rows<F16Policy>(args, config, stream);
  }
}

}  // namespace ec::engine::cuda
