// FP16 and BF16 batch-1 GEMV: eight weights per 16-byte load, widened to FP32 and dotted with the
// staged x.
#include "engine/cuda/gemv_dispatch.cuh"
#include "engine/cuda/gemv_half.cuh"
#include "engine/cuda/half_dot.cuh"

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
