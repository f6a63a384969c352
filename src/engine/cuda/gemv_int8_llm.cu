// LLM.int8() GEMV: a policy of the shared batch-1 GEMV kernels (every pipeline, bulk copies
// included, as INT8-WO has them) and the prefill kernel over a batch of tokens. Each block
// quantizes its token itself (fp16 rounding, per-token absmax over |x| < 6, outlier columns zeroed
// and listed in ascending order), warps stream int8 rows and sum __dp4a products in int32, and each
// row's epilogue applies bnb's dequant (C·SCA·SCB/127² + bias, fp16) and adds the outlier columns'
// fp16 products in column order: the operations of quant::int8_llm_matmul_reference, bit for bit.
// A row's first 32 outlier weights are loaded one per lane when the warp takes up the row, and
// gathered by shuffles in the epilogue.
#include <cuda_fp16.h>

#include "engine/cuda/gemv_dispatch.cuh"
#include "engine/cuda/gemv_int8_llm.cuh"
#include "quant/int8_llm.h"
#include "quant/int8_rowwise.h"

namespace ec::engine::cuda {
namespace {

using detail::align16;
using detail::kGemvThreads;
using detail::kGemvWarps;

constexpr int kMaxListed = 1024;  // outlier columns listed in shared memory; more walk the mask
constexpr int kSweep = 4;         // float4 of x and gain in flight per thread while staging
constexpr int kSweepBare = 8;     // float4 of x in flight per thread where there is no gain

__device__ __forceinline__ float round16(float v) {
  return __half2float(__float2half_rn(v));
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

struct Int8LlmPolicy : detail::NoChunkScales {  // the row scale is applied in finish_staged
  static constexpr int kElems = 16;
  static constexpr int kBitsPerWeight = 8;
  static constexpr int kXBytes = 1;  // x is staged as the token's int8 codes
  static constexpr bool kShortSteps = true;
  static constexpr int kHeldLoads = kSweep;  // stage_token reads x its own way: no HeldWide
  using Acc = int;

  // The policy's tables: what stage_token found, then the listed outlier columns and their
  // values. The codes follow (the staged x), then the outlier mask and the token's fp16
  // activations (tail_bytes).
  struct Header {
    float absmax;   // of the non-outlier fp16 activations
    int count;      // outlier columns
    float inv_rms;  // 1 when there is no norm
    int unused;
  };
  static constexpr size_t kListAt = sizeof(Header);
  static constexpr size_t kSharedBytes = kListAt + size_t{kMaxListed} * 8;
  static_assert(sizeof(Header) == 16 && kSharedBytes % 16 == 0);

  __host__ __device__ static constexpr size_t tail_bytes(int cols) {
    return align16(static_cast<size_t>(cols / 32) * 4) + static_cast<size_t>(cols) * 2;
  }
  __device__ static const int* list_idx(const unsigned char* smem) {
    return reinterpret_cast<const int*>(smem + kListAt);
  }
  __device__ static const float* list_val(const unsigned char* smem) {
    return reinterpret_cast<const float*>(smem + kListAt + size_t{kMaxListed} * 4);
  }
  __device__ static const uint32_t* mask(const unsigned char* smem, int cols) {
    return reinterpret_cast<const uint32_t*>(smem + kSharedBytes + align16(cols));
  }
  // The token's fp16 activations, kept by the first pass over x so that neither the codes nor the
  // outlier values read x again.
  __device__ static const __half* values(const unsigned char* smem, int cols) {
    return reinterpret_cast<const __half*>(smem + kSharedBytes + align16(cols) +
                                           align16(static_cast<size_t>(cols / 32) * 4));
  }

  // Columns 4i..4i+3 (a float4 of x and of the gain) rounded to fp16, as two half2: the outlier
  // test and the absmax take them two at a time (both exact on fp16 values).
  struct Quad {
    __half2 lo, hi;
  };
  __device__ static Quad quad(float4 x, float4 g, bool normed, float inv_rms) {
    if (normed) x = detail::normalised(detail::XAndGain{x, g}, inv_rms);
    return Quad{__floats2half2_rn(x.x, x.y), __floats2half2_rn(x.z, x.w)};
  }

  // Applies use(i, quad) to every float4 i of x, N loads of x (and as many of the gain when
  // kNormed) in flight per thread; every thread runs the same iterations (warp shuffles in `use`
  // see the whole warp), i = -1 past the end.
  template <int N, bool kNormed, class Use>
  __device__ static void sweep_quads(const GemvArgs& a, float inv_rms, Use use) {
    const int n4 = a.cols / 4;
    const auto* x4 = reinterpret_cast<const float4*>(a.x);
    const auto* g4 = reinterpret_cast<const float4*>(a.norm);
    for (int base = 0; base < n4; base += N * kGemvThreads) {
      float4 xv[N], gv[N];
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const int i = base + k * kGemvThreads + static_cast<int>(threadIdx.x);
        if (i < n4) {
          xv[k] = x4[i];
          gv[k] = kNormed ? g4[i] : xv[k];
        }
      }
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const int i = base + k * kGemvThreads + static_cast<int>(threadIdx.x);
        use(i < n4 ? i : -1, i < n4 ? quad(xv[k], gv[k], kNormed, inv_rms) : Quad{});
      }
    }
  }

  // LLM.int8()'s activation side of this block's token (a.x), into shared memory: the outlier
  // mask (this token's |x| ≥ 6 columns, or a.outlier_mask's over a prefill batch), the absmax of
  // the rest, the codes (quant::quantize_int8_row; 0 in outlier columns) and the outlier list.
  // x is read from global memory once (twice with a norm wider than 4,096 features: its sum of
  // squares first); with a norm up to kSweep float4 per thread (4,096 features) it is held in
  // registers while the block sums the squares, as stage_x holds it. Each pass over x in global
  // memory is a chain of round trips before the first product (at qwen2-7b's down_proj, 18,944
  // features, five). Both ways sum the squares in the same order. Ends with __syncthreads().
  __device__ static void stage_token(const GemvArgs& a, unsigned char* smem) {
    const int n4 = a.cols / 4;
    const int t = static_cast<int>(threadIdx.x);
    if (n4 > kSweep * kGemvThreads) {
      if (a.norm == nullptr) {
        quantize_token(a, smem, 1.0f,
                       [&](auto use) { sweep_quads<kSweepBare, false>(a, 1.0f, use); });
      } else {
        const float inv_rms = detail::rms_inverse<kSweep>(a.x, a.norm_eps, a.cols);
        quantize_token(a, smem, inv_rms,
                       [&](auto use) { sweep_quads<kSweep, true>(a, inv_rms, use); });
      }
      return;
    }
    const auto* x4 = reinterpret_cast<const float4*>(a.x);
    const auto* g4 = reinterpret_cast<const float4*>(a.norm);
    const bool normed = a.norm != nullptr;
    float4 xv[kSweep], gv[kSweep];
#pragma unroll
    for (int k = 0; k < kSweep; ++k) {
      const int i = k * kGemvThreads + t;
      if (i < n4) {
        xv[k] = x4[i];
        gv[k] = normed ? g4[i] : xv[k];
      }
    }
    float inv_rms = 1.0f;
    if (normed) {
      double ss = 0.0;
#pragma unroll
      for (int k = 0; k < kSweep; ++k) {
        if (k * kGemvThreads + t < n4) ss += detail::sum_squares(xv[k]);
      }
      inv_rms = detail::block_rms_scale(ss, a.norm_eps, a.cols);
    }
    quantize_token(a, smem, inv_rms, [&](auto use) {
#pragma unroll
      for (int k = 0; k < kSweep; ++k) {
        const int i = k * kGemvThreads + t;
        use(i < n4 ? i : -1, i < n4 ? quad(xv[k], gv[k], normed, inv_rms) : Quad{});
      }
    });
  }

  // The passes of stage_token over the token's fp16 activations: for_each(use) applies use(i,
  // quad) to every float4 i of x as sweep_quads does; it runs once, and keeps the activations in
  // shared memory (values) for the codes and the outlier list.
  template <class ForEach>
  __device__ static void quantize_token(const GemvArgs& a, unsigned char* smem, float inv_rms,
                                        ForEach for_each) {
    __shared__ float red_max[kGemvWarps];
    const int cols = a.cols;
    const int words = cols / 32;
    const int lane = static_cast<int>(threadIdx.x & 31);
    auto* head = reinterpret_cast<Header*>(smem);
    auto* codes = reinterpret_cast<uint32_t*>(smem + kSharedBytes);
    auto* bits = const_cast<uint32_t*>(mask(smem, cols));
    auto* kept = reinterpret_cast<uint2*>(const_cast<__half*>(values(smem, cols)));
    const __half2 thr = __float2half2_rn(quant::kLlmInt8Threshold);
    const bool given = a.outlier_mask != nullptr;
    if (given) {
      for (int w = static_cast<int>(threadIdx.x); w < words; w += kGemvThreads) {
        bits[w] = a.outlier_mask[w];
      }
    }

    // Pass 1: the token's own outlier mask (a float4's four flags as a nibble; eight lanes make a
    // word), unless a batch's is given, the absmax of the token's non-outlier columns, and the
    // fp16 activations kept.
    __half2 m2 = __float2half2_rn(0.0f);
    for_each([&](int i, const Quad& q) {
      unsigned nibble = 0;
      if (i >= 0) {
        const __half2 h[2] = {q.lo, q.hi};
        kept[i] = *reinterpret_cast<const uint2*>(h);
        // The absmax leaves out the token's own outliers (|x| ≥ 6, 0xffff in a half of `own`); a
        // batch's mask zeroes more codes.
        const __half2 abs_lo = __habs2(q.lo), abs_hi = __habs2(q.hi);
        const unsigned own_lo = __hge2_mask(abs_lo, thr), own_hi = __hge2_mask(abs_hi, thr);
        nibble = (own_lo & 1u) | (own_lo >> 15 & 2u) | (own_hi & 1u) << 2 | (own_hi >> 13 & 8u);
        const auto kept_abs = [](__half2 v, unsigned own) {
          const unsigned bits = *reinterpret_cast<const unsigned*>(&v) & ~own;
          return *reinterpret_cast<const __half2*>(&bits);
        };
        m2 = __hmax2(m2, __hmax2(kept_abs(abs_lo, own_lo), kept_abs(abs_hi, own_hi)));
      }
      if (!given) {
        unsigned word = nibble << (4 * (lane & 7));
        word |= __shfl_xor_sync(0xffffffffu, word, 1);
        word |= __shfl_xor_sync(0xffffffffu, word, 2);
        word |= __shfl_xor_sync(0xffffffffu, word, 4);
        if (i >= 0 && (lane & 7) == 0) bits[i / 8] = word;
      }
    });
    float m = warp_max(fmaxf(__low2float(m2), __high2float(m2)));
    if (lane == 0) red_max[threadIdx.x >> 5] = m;
    __syncthreads();  // also publishes the mask
    float absmax = 0.0f;
    for (int w = 0; w < kGemvWarps; ++w) absmax = fmaxf(absmax, red_max[w]);

    // Pass 2, at once: warp 0 lists the outlier columns in ascending order (a lane scans a run of
    // mask words; the list needs only the mask) while the other warps write the codes, four to a
    // word (column 4i + j in byte j), from the kept activations: rint(x · 127 / absmax) clamped
    // to ±127 (an fp16 absmax is at least 2^-24, so the scale is finite), 0 in the outlier columns
    // (the mask's nibble i % 8 of word i / 8) and everywhere when the absmax is 0.
    if (threadIdx.x < 32) {
      auto* idx = const_cast<int*>(list_idx(smem));
      auto* val = const_cast<float*>(list_val(smem));
      const int per = (words + 31) / 32;
      const int w0 = min(words, lane * per), w1 = min(words, w0 + per);
      int n = 0;
      for (int w = w0; w < w1; ++w) n += __popc(bits[w]);
      int incl = n;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const int t = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += t;
      }
      int pos = incl - n;
      for (int w = w0; w < w1; ++w) {
        for (uint32_t b = bits[w]; b != 0; b &= b - 1) {
          const int col = w * 32 + __ffs(static_cast<int>(b)) - 1;
          if (pos < kMaxListed) {
            idx[pos] = col;
            val[pos] = __half2float(values(smem, cols)[col]);
          }
          ++pos;
        }
      }
      if (lane == 31) *head = Header{absmax, incl, inv_rms, 0};
    } else {
      const float scale = 127.0f / absmax;
      for (int i = static_cast<int>(threadIdx.x) - 32; i < cols / 4; i += kGemvThreads - 32) {
        const uint2 k = kept[i];
        const __half* h = reinterpret_cast<const __half*>(&k);
        const unsigned outliers = absmax > 0.0f ? bits[i >> 3] >> (4 * (i & 7)) : 0xfu;
        uint32_t packed = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int code = max(-127, min(127, __float2int_rn(__half2float(h[j]) * scale)));
          packed |= (outliers >> j & 1u) != 0 ? 0u : static_cast<uint32_t>(code & 0xff) << (8 * j);
        }
        codes[i] = packed;
      }
    }
    __syncthreads();
  }

  __device__ static void init_shared(const GemvArgs&, unsigned char*) {}

  // Sixteen int8 weights against the chunk's sixteen codes, exact in int32.
  __device__ static int dot(uint4 w, const float4* x4, int, const unsigned char*, int) {
    const int4 q = *reinterpret_cast<const int4*>(x4);
    int s = __dp4a(static_cast<int>(w.x), q.x, 0);
    s = __dp4a(static_cast<int>(w.y), q.y, s);
    s = __dp4a(static_cast<int>(w.z), q.z, s);
    return __dp4a(static_cast<int>(w.w), q.w, s);
  }

  // What a row's epilogue needs from global memory, loaded by every lane as the warp takes up the
  // row: the row scale and the bias, and the lane's own outlier weight (column `lane` of the
  // list): a row's first kSpread outlier weights are in flight at one register a lane, where one
  // lane holding them took a register each (eight early weights cost qwen2-0.5b a block per SM).
  struct WarpEpilogue {};  // load_row and finish_staged run in every lane
  static constexpr int kSpread = 32;
  struct RowLoads {
    float scb, bias;
    int q;
  };
  __device__ static RowLoads load_row(const GemvArgs& a, const GemvSegment& s, int row,
                                      const unsigned char* smem, int lane) {
    const int count = reinterpret_cast<const Header*>(smem)->count;
    const auto* cb = static_cast<const int8_t*>(s.w) + static_cast<int64_t>(row) * a.cols;
    return RowLoads{s.scales[row], s.bias != nullptr ? s.bias[row] : 0.0f,
                    lane < count ? cb[list_idx(smem)[lane]] : 0};
  }

  // One output: the dequantized int32 sum rounded to fp16, plus the outlier columns' fp16
  // products added in FP32 in column order, rounded to fp16. Every lane of the warp runs it (the
  // first kSpread outlier products come by shuffles from the lanes that loaded their weights);
  // acc is the warp-reduced sum, the same in every lane.
  __device__ static float finish_staged(const GemvArgs& a, const GemvSegment& s, int row, int acc,
                                        const unsigned char* smem, const RowLoads& l) {
    const Header h = *reinterpret_cast<const Header*>(smem);
    const float scb = l.scb;
    const float main = __fmaf_rn(__fmul_rn(__fmul_rn(static_cast<float>(acc), h.absmax), scb),
                                 quant::kMmDequantConst, l.bias);
    const float out = round16(main);
    if (h.count == 0) return out;
    const auto* cb = static_cast<const int8_t*>(s.w) + static_cast<int64_t>(row) * a.cols;
    const auto weight16 = [scb](int8_t q) {
      return round16(__fmul_rn(__fmul_rn(static_cast<float>(q), scb), quant::kInv127));
    };
    float sum = out;
    if (h.count <= kMaxListed) {
      const int* idx = list_idx(smem);
      const float* val = list_val(smem);
      // Lane k forms the product of outlier k; the sum takes them in column order.
      const int lane = static_cast<int>(threadIdx.x & 31);
      const int spread = min(h.count, kSpread);
      const float mine =
          lane < spread ? __fmul_rn(val[lane], weight16(static_cast<int8_t>(l.q))) : 0.0f;
      for (int k = 0; k < spread; ++k) {  // the same trip count in every lane (h is shared)
        sum = __fadd_rn(sum, __shfl_sync(0xffffffffu, mine, k));
      }
      for (int i = kSpread; i < h.count; i += 4) {  // the rest, four weight loads in flight
        int8_t q[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) q[k] = i + k < h.count ? cb[idx[i + k]] : int8_t{0};
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if (i + k < h.count) sum = __fadd_rn(sum, __fmul_rn(val[i + k], weight16(q[k])));
        }
      }
    } else {
      // More outliers than listed: walk the mask, the values from the kept activations.
      const uint32_t* bits = mask(smem, a.cols);
      const __half* kept = values(smem, a.cols);
      for (int w = 0; w < a.cols / 32; ++w) {
        for (uint32_t m = bits[w]; m != 0; m &= m - 1) {
          const int col = w * 32 + __ffs(static_cast<int>(m)) - 1;
          sum = __fadd_rn(sum, __fmul_rn(__half2float(kept[col]), weight16(cb[col])));
        }
      }
    }
    return round16(sum);
  }
};

// Prefill: gridDim.y tokens of x [n, cols] and y [n, outputs], each block staging its token with
// the batch's outlier mask, R rows per warp, steps of kGemvUnroll chunks.
template <int R>
__global__ void __launch_bounds__(kGemvThreads) gemv_int8_llm_batch_kernel(const GemvArgs batch) {
  using F = Int8LlmPolicy;
  constexpr int U = detail::kGemvUnroll;
  extern __shared__ __align__(16) unsigned char smem[];
  const int token = static_cast<int>(blockIdx.y);
  const int total = detail::outputs(batch);
  GemvArgs a = batch;
  a.x = batch.x + static_cast<int64_t>(token) * a.cols;
  a.y = batch.y + static_cast<int64_t>(token) * total;
  if (batch.residual != nullptr) a.residual = batch.residual + static_cast<int64_t>(token) * total;
  pdl_wait();
  pdl_trigger();
  F::stage_token(a, smem);

  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int per_group = kGemvWarps * (a.swiglu ? R / 2 : R);
  const int groups = (total + per_group - 1) / per_group;
  const int chunks = a.cols / F::kElems;
  for (int g = static_cast<int>(blockIdx.x); g < groups; g += static_cast<int>(gridDim.x)) {
    const detail::WarpRows<F, R> rows(a, g, warp, total);
    if (rows.first >= total) continue;
    const auto epilogue = detail::load_epilogue<F, R>(a, rows, lane, smem);
    int acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0;
    for (int c0 = lane; c0 < chunks; c0 += 32 * U) {
      detail::Step<F, R, U> step;
      step.load(rows, c0, chunks, a.cols);
      detail::accumulate_step<F, R, U, 1>(step, rows, c0, chunks, smem, lane, acc);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = detail::warp_sum(acc[r]);
    detail::write_outputs<F, R>(a, rows, lane, acc, smem, epilogue);
  }
}

template <int R>
void launch_batch(const GemvArgs& a, const GemvConfig& config, int n_tokens, cudaStream_t stream) {
  const size_t smem = gemv_int8_llm_shared_bytes(a.cols);
  auto kernel = gemv_int8_llm_batch_kernel<R>;
  static size_t configured = 48 * 1024;  // per instantiation: the dynamic limit already set
  detail::allow_shared(kernel, smem, configured);
  const int grid = detail::gemv_grid(kernel, a, R, config.persistent, smem);
  if (grid <= 0 || n_tokens <= 0) return;
  detail::launch_maybe_pdl(kernel,
                           dim3(static_cast<unsigned>(grid), static_cast<unsigned>(n_tokens)), smem,
                           config.pdl, stream, a);
}

__global__ void outlier_mask_kernel(const float* x, int cols, uint32_t* mask) {
  const float* xt = x + static_cast<int64_t>(blockIdx.x) * cols;
  const float thr = round16(quant::kLlmInt8Threshold);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    // The fp16 activation, as the CPU forms it: |fp16(x)| ≥ fp16(6).
    const unsigned bits = __ballot_sync(0xffffffffu, fabsf(round16(xt[i])) >= thr);
    if ((threadIdx.x & 31) == 0 && bits != 0) atomicOr(mask + i / 32, bits);
  }
}

}  // namespace

size_t gemv_int8_llm_shared_bytes(int cols) {
  return detail::gemv_shared_bytes<Int8LlmPolicy>(cols);
}

void launch_gemv_int8_llm(const GemvArgs& args, const GemvConfig& config, int n_tokens,
                          cudaStream_t stream) {
  if (n_tokens == 1 && args.outlier_mask == nullptr) {
    return detail::dispatch_rows<Int8LlmPolicy>(args, config, stream);
  }
  // A batch takes the config's rows and grid; its pipeline is the decode step's.
  switch (config.rows_per_warp) {
    case 1:
      if (!args.swiglu) return launch_batch<1>(args, config, n_tokens, stream);
      break;
    case 2:
      return launch_batch<2>(args, config, n_tokens, stream);
    case 4:
      return launch_batch<4>(args, config, n_tokens, stream);
    default:
      break;
  }
  cuda_invalid("gemv int8-llm: rows_per_warp must be 1, 2 or 4 (2 or 4 with swiglu)");
}

void int8_llm_outlier_mask(const float* x, int n_tokens, int cols, uint32_t* mask,
                           cudaStream_t stream) {
  if (n_tokens <= 0) return;
  outlier_mask_kernel<<<n_tokens, kGemvThreads, 0, stream>>>(x, cols, mask);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
