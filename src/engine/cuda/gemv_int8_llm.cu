// LLM.int8() batch-1 GEMV, fused: each block quantizes the token itself (fp16 rounding, per-token
// absmax over |x| < 6, outlier columns zeroed and listed in ascending order), then warps stream
// int8 rows with 16-byte loads and __dp4a into int32, and the epilogue applies bnb's dequant
// (C·SCA·SCB/127² + bias, fp16) and adds the outlier columns' fp16 products in column order —
// the same operations as quant::int8_llm_matmul_reference, so the result matches it bit for bit.
#include <cuda_fp16.h>

#include "engine/cuda/gemv_int8_llm.cuh"
#include "engine/cuda/gemv_kernel.cuh"
#include "quant/int8_llm.h"

namespace ec::engine::cuda {
namespace {

using detail::align16;
using detail::kGemvThreads;
using detail::kGemvUnroll;
using detail::kGemvWarps;

constexpr int kMaxListed = 1024;  // outlier columns kept in shared memory; more take a slow path

__device__ __forceinline__ float round16(float v) {
  return __half2float(__float2half_rn(v));
}

__device__ __forceinline__ int warp_sum_int(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// 1/rms of x [cols] in double, as the CPU rmsnorm; every thread gets it. Uses `red`.
__device__ float block_inv_rms(const float* x, int cols, double eps, double* red) {
  double ss = 0.0;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) ss += static_cast<double>(x[i]) * x[i];
  ss = detail::warp_sum(ss);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = ss;
  __syncthreads();
  double total = 0.0;
  for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) total += red[w];
  __syncthreads();
  return static_cast<float>(1.0 / sqrt(total / cols + eps));
}

struct Staged {
  const int8_t* q;
  const int* list_idx;
  const float* list_val;
  const uint32_t* mask;
  int count;
  float absmax;
  float inv_rms;  // 1 when there is no norm
};

// The activation side of LLM.int8() for one token, into shared memory.
__device__ Staged stage_token(const GemvArgs& a, const float* x, unsigned char* smem) {
  __shared__ double red[kGemvWarps];
  __shared__ float red_max[kGemvWarps];
  __shared__ int s_count;
  const int cols = a.cols;
  const int words = cols / 32;
  auto* q = reinterpret_cast<int8_t*>(smem);
  auto* mask = reinterpret_cast<uint32_t*>(smem + align16(cols));
  auto* list_idx = reinterpret_cast<int*>(smem + align16(cols) + align16(words * 4));
  auto* list_val = reinterpret_cast<float*>(list_idx + kMaxListed);
  const float thr = round16(quant::kLlmInt8Threshold);
  const float inv_rms = a.norm != nullptr ? block_inv_rms(x, cols, a.norm_eps, red) : 1.0f;
  const auto value = [&](int i) {
    return round16(a.norm != nullptr ? a.norm[i] * (x[i] * inv_rms) : x[i]);
  };

  // Pass 1: own outliers (a warp covers 32 consecutive columns) and the absmax of the rest.
  float m = 0.0f;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    const float v = fabsf(value(i));
    const bool outlier = v >= thr;
    const unsigned bits = __ballot_sync(0xffffffffu, outlier);
    if (a.outlier_mask == nullptr && (threadIdx.x & 31) == 0) mask[i / 32] = bits;
    if (!outlier) m = fmaxf(m, v);
  }
  if (a.outlier_mask != nullptr) {
    for (int i = threadIdx.x; i < words; i += blockDim.x) mask[i] = a.outlier_mask[i];
  }
  m = warp_max(m);
  if ((threadIdx.x & 31) == 0) red_max[threadIdx.x >> 5] = m;
  __syncthreads();
  float absmax = 0.0f;
  for (int w = 0; w < kGemvWarps; ++w) absmax = fmaxf(absmax, red_max[w]);

  // Pass 2: codes (quant::quantize_int8_row), zero in every outlier column.
  const float scale = 127.0f / absmax;
  const bool scale_finite = isfinite(scale);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    int8_t code = 0;
    const bool outlier = (mask[i / 32] >> (i % 32)) & 1u;
    if (absmax > 0.0f && !outlier) {
      const float v = value(i);
      const float scaled = scale_finite ? v * scale : v / absmax * 127.0f;
      code = static_cast<int8_t>(fminf(fmaxf(rintf(scaled), -127.0f), 127.0f));
    }
    q[i] = code;
  }

  // Outlier columns listed in ascending order by warp 0 (a lane scans a run of mask words).
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    const int per = (words + 31) / 32;
    const int w0 = min(words, lane * per), w1 = min(words, w0 + per);
    int n = 0;
    for (int w = w0; w < w1; ++w) n += __popc(mask[w]);
    int incl = n;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int t = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += t;
    }
    int pos = incl - n;
    for (int w = w0; w < w1; ++w) {
      for (uint32_t bits = mask[w]; bits != 0; bits &= bits - 1) {
        const int col = w * 32 + __ffs(static_cast<int>(bits)) - 1;
        if (pos < kMaxListed) {
          list_idx[pos] = col;
          list_val[pos] = value(col);
        }
        ++pos;
      }
    }
    if (lane == 31) s_count = incl;
  }
  __syncthreads();
  return Staged{q, list_idx, list_val, mask, s_count, absmax, inv_rms};
}

// One output of LLM.int8(): dequantized int32 product, rounded to fp16, plus the outlier columns'
// fp16 products summed in FP32 in column order, rounded to fp16. Every lane returns the value.
__device__ float finish_row(const GemvArgs& a, const Staged& st, const GemvSegment& s, int row,
                            int acc, const float* x) {
  const float scb = s.scales[row];
  const float b = s.bias != nullptr ? s.bias[row] : 0.0f;
  const float main = __fmaf_rn(__fmul_rn(__fmul_rn(static_cast<float>(acc), st.absmax), scb),
                               quant::kMmDequantConst, b);
  float out = round16(main);
  if (st.count == 0) return out;
  const int lane = threadIdx.x & 31;
  const auto* cb = static_cast<const int8_t*>(s.w) + static_cast<int64_t>(row) * a.cols;
  float sum = out;
  if (st.count <= kMaxListed) {
    for (int base = 0; base < st.count; base += 32) {
      const int i = base + lane;
      float term = 0.0f;
      if (i < st.count) {
        const float w16 = round16(
            __fmul_rn(__fmul_rn(static_cast<float>(cb[st.list_idx[i]]), scb), quant::kInv127));
        term = __fmul_rn(st.list_val[i], w16);
      }
      const int n = min(32, st.count - base);
      for (int j = 0; j < n; ++j) sum = __fadd_rn(sum, __shfl_sync(0xffffffffu, term, j));
    }
  } else {
    // More outliers than listed: walk the mask (values re-read through the same rounding).
    for (int w = 0; w < a.cols / 32; ++w) {
      for (uint32_t bits = st.mask[w]; bits != 0; bits &= bits - 1) {
        const int col = w * 32 + __ffs(static_cast<int>(bits)) - 1;
        const float w16 =
            round16(__fmul_rn(__fmul_rn(static_cast<float>(cb[col]), scb), quant::kInv127));
        const float v = round16(a.norm != nullptr ? a.norm[col] * (x[col] * st.inv_rms) : x[col]);
        sum = __fadd_rn(sum, __fmul_rn(v, w16));
      }
    }
  }
  return round16(sum);
}

template <int R>
__global__ void __launch_bounds__(kGemvThreads) gemv_int8_llm_kernel(const GemvArgs a) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int token = blockIdx.y;
  const int total = detail::outputs(a);
  const float* x = a.x + static_cast<int64_t>(token) * a.cols;
  float* y = a.y + static_cast<int64_t>(token) * total;
  const float* residual =
      a.residual != nullptr ? a.residual + static_cast<int64_t>(token) * total : nullptr;
  pdl_wait();
  pdl_trigger();
  const Staged st = stage_token(a, x, smem);

  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int per_warp = a.swiglu ? R / 2 : R;
  const int per_group = kGemvWarps * per_warp;
  const int groups = (total + per_group - 1) / per_group;
  const int chunks = a.cols / 16;
  const auto* xq = reinterpret_cast<const int4*>(st.q);

  for (int g = blockIdx.x; g < groups; g += gridDim.x) {
    const int first = (g * kGemvWarps + warp) * per_warp;
    if (first >= total) continue;
    GemvSegment seg[R];
    int local[R];
    bool valid[R];
    const int8_t* wrow[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      int out = a.swiglu ? first + r / 2 : first + r;
      valid[r] = out < total;
      out = valid[r] ? out : first;
      local[r] = out;
      if (a.swiglu) {
        seg[r] = (r % 2 == 0) ? a.seg[0] : a.seg[1];
      } else {
        seg[r] = detail::pick_segment(a, local[r]);
      }
      wrow[r] = static_cast<const int8_t*>(seg[r].w) + static_cast<int64_t>(local[r]) * a.cols;
    }
    int acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0;
    for (int c0 = lane; c0 < chunks; c0 += 32 * kGemvUnroll) {
      uint4 wv[kGemvUnroll][R];
#pragma unroll
      for (int u = 0; u < kGemvUnroll; ++u) {
        const int c = c0 + u * 32;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          wv[u][r] = c < chunks ? detail::ld_stream(wrow[r] + static_cast<int64_t>(c) * 16)
                                : make_uint4(0, 0, 0, 0);
        }
      }
#pragma unroll
      for (int u = 0; u < kGemvUnroll; ++u) {
        const int c = c0 + u * 32;
        if (c < chunks) {
          const int4 xv = xq[c];
#pragma unroll
          for (int r = 0; r < R; ++r) {
            acc[r] = __dp4a(static_cast<int>(wv[u][r].x), xv.x, acc[r]);
            acc[r] = __dp4a(static_cast<int>(wv[u][r].y), xv.y, acc[r]);
            acc[r] = __dp4a(static_cast<int>(wv[u][r].z), xv.z, acc[r]);
            acc[r] = __dp4a(static_cast<int>(wv[u][r].w), xv.w, acc[r]);
          }
        }
      }
    }
    float out[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int sum = warp_sum_int(acc[r]);
      out[r] = valid[r] ? finish_row(a, st, seg[r], local[r], sum, x) : 0.0f;
    }
    if (lane == 0) {
      if (a.swiglu) {
#pragma unroll
        for (int r = 0; r < R; r += 2) {
          if (valid[r]) {
            const float gate = out[r], up = out[r + 1];
            y[first + r / 2] = gate / (1.0f + expf(-gate)) * up;
          }
        }
      } else {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if (valid[r]) y[first + r] = residual != nullptr ? out[r] + residual[first + r] : out[r];
        }
      }
    }
  }
}

template <int R>
void launch(const GemvArgs& a, const GemvConfig& config, int n_tokens, cudaStream_t stream) {
  const size_t smem = gemv_int8_llm_shared_bytes(a.cols);
  auto kernel = gemv_int8_llm_kernel<R>;
  static size_t configured = 48 * 1024;  // per instantiation: the dynamic limit already set
  detail::allow_shared(kernel, smem, configured);
  const int grid = detail::gemv_grid(kernel, a, R, config.persistent, smem);
  if (grid <= 0 || n_tokens <= 0) return;
  detail::launch_maybe_pdl(kernel,
                           dim3(static_cast<unsigned>(grid), static_cast<unsigned>(n_tokens)), smem,
                           config.pdl, stream, a);
}

__global__ void outlier_mask_kernel(const float* x, const float* norm, double eps, int cols,
                                    uint32_t* mask) {
  __shared__ double red[kGemvWarps];
  const float* xt = x + static_cast<int64_t>(blockIdx.x) * cols;
  const float inv_rms = norm != nullptr ? block_inv_rms(xt, cols, eps, red) : 1.0f;
  const float thr = round16(quant::kLlmInt8Threshold);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    const float v = round16(norm != nullptr ? norm[i] * (xt[i] * inv_rms) : xt[i]);
    const unsigned bits = __ballot_sync(0xffffffffu, fabsf(v) >= thr);
    if ((threadIdx.x & 31) == 0 && bits != 0) atomicOr(mask + i / 32, bits);
  }
}

}  // namespace

size_t gemv_int8_llm_shared_bytes(int cols) {
  return align16(static_cast<size_t>(cols)) + align16(static_cast<size_t>(cols / 32) * 4) +
         static_cast<size_t>(kMaxListed) * 8;
}

void launch_gemv_int8_llm(const GemvArgs& args, const GemvConfig& config, int n_tokens,
                          cudaStream_t stream) {
  switch (config.rows_per_warp) {
    case 1:
      if (!args.swiglu) return launch<1>(args, config, n_tokens, stream);
      break;
    case 2:
      return launch<2>(args, config, n_tokens, stream);
    case 4:
      return launch<4>(args, config, n_tokens, stream);
    default:
      break;
  }
  cuda_invalid("gemv int8-llm: rows_per_warp must be 1, 2 or 4 (2 or 4 with swiglu)");
}

void int8_llm_outlier_mask(const float* x, const float* norm, double eps, int n_tokens, int cols,
                           uint32_t* mask, cudaStream_t stream) {
  if (n_tokens <= 0) return;
  outlier_mask_kernel<<<n_tokens, kGemvThreads, 0, stream>>>(x, norm, eps, cols, mask);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
