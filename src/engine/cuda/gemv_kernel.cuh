// The batch-1 GEMV kernel shared by the dense and weight-only formats (device code; included by
// gemv_<format>.cu only). Each warp issues the loads of its first rows, then the block stages x
// in shared memory (RMS-normalised when asked, bank-swizzled), and each warp streams R rows with
// 16-byte loads, U loads deep per row, FP32 accumulation and a warp-shuffle reduce. A format is a
// policy: how many weights one 16-byte load holds, the scale of a chunk (NF4 block absmax: `raw`
// loads it from global memory with the weights, `scale` finishes it), how a chunk is dotted with
// x, and the per-row epilogue.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>

#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/pdl.cuh"

namespace ec::engine::cuda::detail {

inline constexpr int kGemvWarps = kGemvBlockWarps;
inline constexpr int kGemvThreads = kGemvWarps * 32;
inline constexpr int kGemvUnroll = 4;  // chunks per row a lane loads per step, unless configured

// Weights are read exactly once per token: keep them out of L1.
__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ int warp_sum(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__host__ __device__ constexpr size_t align16(size_t n) {
  return (n + 15) / 16 * 16;
}

// The chunk-scale part of a policy for the formats with none per chunk (FP16, BF16, INT8-WO: a
// row's scale, if any, is applied in finish): scale() = 1, so a kernel's chunk FMA adds each dot
// exactly; raw() and the whole-row and row-pass kernels' cursor over the scales (RawFrom) are
// empty.
struct NoChunkScales {
  __device__ static float2 raw(const GemvSegment&, int, int, int) { return make_float2(0.f, 0.f); }
  __device__ static float scale(float2, const GemvSegment&, const unsigned char*) { return 1.0f; }
  struct RawFrom {};
  __device__ static RawFrom raw_from(const GemvSegment&, uint32_t) { return {}; }
  __device__ static RawFrom raw_from(const RawFrom& r, int) { return r; }
  __device__ static float2 raw_at(const RawFrom&, int) { return make_float2(0.f, 0.f); }
};

// Where 16-byte unit k of weight chunk c's x lives in the staged x: the V units of a chunk are
// permuted by XOR with s = c·V/8 mod V so that the 8 lanes of a shared-memory phase (consecutive
// chunks) read 8 different bank groups — a plain layout is 2-, 4- and 8-way conflicted for
// V = 2, 4, 8. (XOR rather than a rotation: a dot finds unit k at k ^ s, one instruction.)
// x_rot is s: what every dot of chunk c's x XORs its unit index with.
template <int V>
__device__ __forceinline__ int x_rot(int c) {
  return (c * V / 8) & (V - 1);
}
template <int V>
__device__ __forceinline__ int x_slot(int c, int k) {
  return c * V + (k ^ x_rot<V>(c));
}

// Staging x is a chain of L2 round trips, not a stream: a loop that loads a float4 and then stores
// it waits a whole round trip per iteration, while the DRAM serves only the first weight step. At
// qwen2-7b's down_proj (18,944 features, FP32 x) that was 18 round trips per thread before any
// weight beyond the first step was requested.
// swept<N> calls use(i, load(i)) for i = threadIdx.x, threadIdx.x + blockDim.x, ... < count, in
// that order in each thread (so sums come out bit for bit as in a plain loop), with the loads of
// N consecutive i of a thread issued before any of their uses.
template <int N, class Load, class Use>
__device__ __forceinline__ void swept(int count, Load load, Use use) {
  using Value = decltype(load(0));
  const int stride = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < count; base += N * stride) {
    Value v[N]{};
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (base + k * stride < count) v[k] = load(base + k * stride);
    }
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (base + k * stride < count) use(base + k * stride, v[k]);
    }
  }
}

__device__ __forceinline__ double sum_squares(float4 v) {
  return static_cast<double>(v.x) * v.x + static_cast<double>(v.y) * v.y +
         static_cast<double>(v.z) * v.z + static_cast<double>(v.w) * v.w;
}

// The RMSNorm scale 1/sqrt(total/cols + eps), where each thread of the block holds its share ss of
// the sum of squares of x (in double, as the CPU sums): the same in every thread. Ends with
// __syncthreads().
__device__ inline float block_rms_scale(double ss, double eps, int cols) {
  __shared__ double partial[kGemvWarps];
  __shared__ float inv_rms;
  ss = warp_sum(ss);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0.0;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) total += partial[w];
    inv_rms = static_cast<float>(1.0 / sqrt(total / cols + eps));
  }
  __syncthreads();
  return inv_rms;
}

// The RMSNorm scale of x, read in sweeps of N float4 (thread t sums float4 t, t + blockDim.x, ...
// in that order). Ends with __syncthreads().
template <int N>
__device__ inline float rms_inverse(const float* __restrict x, double eps, int cols) {
  const auto* x4 = reinterpret_cast<const float4*>(x);
  double ss = 0.0;
  swept<N>(
      cols / 4, [&](int i) { return x4[i]; }, [&](int, float4 v) { ss += sum_squares(v); });
  return block_rms_scale(ss, eps, cols);
}

// One float4 of x and the same float4 of the RMSNorm gain.
struct XAndGain {
  float4 x, gain;
};

__device__ __forceinline__ XAndGain load_x_and_gain(const float* __restrict x,
                                                    const float* __restrict norm, int i) {
  return {reinterpret_cast<const float4*>(x)[i], reinterpret_cast<const float4*>(norm)[i]};
}

// gain · (x · scale), as the CPU normalises.
__device__ __forceinline__ float4 normalised(const XAndGain& v, float scale) {
  const float4 g = v.gain;
  return make_float4(g.x * (v.x.x * scale), g.y * (v.x.y * scale), g.z * (v.x.z * scale),
                     g.w * (v.x.w * scale));
}

__device__ __forceinline__ uint4 to_half8(float4 a, float4 b) {
  const __half2 h[4] = {__floats2half2_rn(a.x, a.y), __floats2half2_rn(a.z, a.w),
                        __floats2half2_rn(b.x, b.y), __floats2half2_rn(b.z, b.w)};
  return *reinterpret_cast<const uint4*>(h);
}

// Bytes of staged x per input feature: the format's own (F::kXBytes: 1 for LLM.int8()'s int8
// codes), else 2 when it stages x in fp16 (F::kXHalf), else 4.
template <class F>
__host__ __device__ constexpr int x_bytes() {
  if constexpr (requires { F::kXBytes; }) {
    return F::kXBytes;
  } else {
    return F::kXHalf ? 2 : 4;
  }
}

// The staged x's region after the format's tables: x itself, then what the format keeps beside
// it whose size grows with x (F::tail_bytes: LLM.int8()'s outlier mask).
template <class F>
__host__ __device__ size_t staged_x_region(int cols) {
  size_t bytes = align16(static_cast<size_t>(cols) * x_bytes<F>());
  if constexpr (requires { F::tail_bytes(cols); }) bytes += align16(F::tail_bytes(cols));
  return bytes;
}

// What a row accumulates: F::Acc where the format says (LLM.int8(): the exact int32 sum of
// int8 products), else FP32.
template <class F>
struct AccOf {
  using type = float;
};
template <class F>
requires requires {
  typename F::Acc;
}
struct AccOf<F> {
  using type = typename F::Acc;
};
template <class F>
using Acc = typename AccOf<F>::type;

// A format that places the staged x itself (NF4: in its table's gaps) says where each 16-byte
// unit goes and how much shared memory that takes in all; the others stage x after their tables
// (F::kSharedBytes).
template <class F>
concept PlacesStagedX = requires(int s, size_t x_bytes) {
  F::x_unit_offset(s);
  F::shared_bytes(x_bytes);
};

// 16-byte unit (x_slot) s of the staged x in the kernel's shared memory smem.
// (Byte is unsigned char, or const unsigned char for a read-only pointer.)
template <class F, class Byte>
__device__ __forceinline__ auto* x_unit(Byte* smem, int s) {
  using Unit = std::conditional_t<std::is_const_v<Byte>, const float4, float4>;
  if constexpr (PlacesStagedX<F>) {
    return reinterpret_cast<Unit*>(smem + F::x_unit_offset(s));
  } else {
    return reinterpret_cast<Unit*>(smem + F::kSharedBytes) + s;
  }
}

// The kernel's shared memory: the format's tables and the staged x.
template <class F>
size_t gemv_shared_bytes(int cols) {
  if constexpr (PlacesStagedX<F>) {
    return F::shared_bytes(align16(static_cast<size_t>(cols) * x_bytes<F>()));
  } else {
    static_assert(F::kSharedBytes % 16 == 0,
                  "x is staged after the format's tables, 16-byte aligned");
    return F::kSharedBytes + staged_x_region<F>(cols);
  }
}

// How many float4 of x (with as many of the gain) each thread holds when stage_x normalises x in
// one pass: F::kHeldLoads where the policy says (HeldWide), else F::kStageLoads / 2, at least 2.
// With 256 threads that is x up to 4,096 features for f16/bf16 (every preset's hidden size) and
// 2,048 for the formats that stage x in fp16 (HeldWide takes those to 4,096).
template <class F>
__host__ __device__ constexpr int single_pass_loads() {
  if constexpr (requires { F::kHeldLoads; }) {
    return F::kHeldLoads;
  } else {
    return std::max(2, F::kStageLoads / 2);
  }
}

// F with x normalised in one pass up to 4 float4 per thread (4,096 features with 256 threads).
// The fp16-staging formats hold 2 (single_pass_loads), because holding 4 costs every one of their
// kernels registers beside the first weight step: at qwen2-0.5b (896 features, where 2 suffice)
// that was INT8-WO -2.7 % tuned. At qwen2-7b's 3,584 features the one pass made INT8-WO +2.0 % and
// NF4 +1.5 %, so dispatch_rows launches this policy where x is
// too wide for F's own single pass and narrow enough for this one (7B decode, so dispatched:
// INT8-WO +1.4 %, NF4 +1.6 %). Results are bit for bit the same: both passes
// sum each thread's squares in the same order.
template <class F>
struct HeldWide : F {
  static constexpr int kHeldLoads = 4;
};

// Whether F is a HeldWide policy, which dispatch_rows runs only past 2,048 features.
template <class F>
inline constexpr bool kIsHeldWide = false;
template <class F>
inline constexpr bool kIsHeldWide<HeldWide<F>> = true;

// Whether dispatch_rows runs HeldWide<F> for these arguments: a norm, and x past F's single pass
// but within HeldWide's.
template <class F>
bool wants_held_wide(const GemvArgs& a) {
  const int count = a.cols / 4;
  return a.norm != nullptr && count > single_pass_loads<F>() * kGemvThreads &&
         count <= single_pass_loads<HeldWide<F>>() * kGemvThreads;
}

// Where the staged x's 16-byte unit u (in x order) lives: unit u / V of weight chunk u / V's
// units, placed by x_slot.
template <class F, int V>
__device__ __forceinline__ float4* staged_unit(unsigned char* __restrict smem, int u) {
  return x_unit<F>(smem, x_slot<V>(u / V, u % V));
}

// Stores float4 i of the (normalised) x in its x_slot place: as is, or as four fp16 (the 8-byte
// half i % 2 of 16-byte unit i / 2).
template <class F, int V>
__device__ __forceinline__ void store_x4(unsigned char* __restrict smem, int i, float4 v) {
  if constexpr (F::kXHalf) {
    const __half2 h[2] = {__floats2half2_rn(v.x, v.y), __floats2half2_rn(v.z, v.w)};
    reinterpret_cast<uint2*>(staged_unit<F, V>(smem, i / 2))[i % 2] =
        *reinterpret_cast<const uint2*>(h);
  } else {
    *staged_unit<F, V>(smem, i) = v;
  }
}

// x, or RMSNorm(x)·norm, staged in shared memory (smem) in the x_slot layout of V 16-byte units
// per weight chunk: FP32, or rounded to fp16 when the format multiplies in fp16 anyway (half the
// shared memory and half the shared-memory reads). Ends with __syncthreads().
// F::kStageLoads float4 of x (and gain) are in flight per thread at a time. Deeper is fewer round
// trips but more registers beside the first weight step, which can cost a block per SM; each
// format's depth is the one that measured best on the H200:
// qwen2-7b FP16 down 37.2 -> 35.5 us at 8 against 1.
// With a norm, x up to single_pass_loads() float4 per thread is read once: each thread keeps its
// x and gain while the block sums the squares, then normalises and stores them. A wider x is read
// twice (the sum of squares, then x and gain again to normalise): one more L2 round trip on the
// way to the first product. On the H200 one pass made qwen2-0.5b 3-8 % faster with the default
// variants and INT8-WO / NF4 2.5-3.5 % faster tuned. Both sum each
// thread's squares in the same order, so the results are the same bit for bit.
template <class F, int V>
__device__ inline void stage_x(const float* __restrict x, const float* __restrict norm, double eps,
                               int cols, unsigned char* __restrict smem) {
  constexpr int kLoads = F::kStageLoads;
  static_assert(kLoads >= 1);
  const auto* x4 = reinterpret_cast<const float4*>(x);
  const int count = cols / 4;
  const int stride = static_cast<int>(blockDim.x);
  if (constexpr int kHeld = single_pass_loads<F>(); norm != nullptr && count <= kHeld * stride) {
    XAndGain v[kHeld];
    double ss = 0.0;
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int i = static_cast<int>(threadIdx.x) + k * stride;
      if (i < count) v[k] = load_x_and_gain(x, norm, i);
    }
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      if (static_cast<int>(threadIdx.x) + k * stride < count) ss += sum_squares(v[k].x);
    }
    const float scale = block_rms_scale(ss, eps, cols);
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int i = static_cast<int>(threadIdx.x) + k * stride;
      if (i < count) store_x4<F, V>(smem, i, normalised(v[k], scale));
    }
  } else if constexpr (F::kXHalf) {
    const auto slot = [smem](int i) { return staged_unit<F, V>(smem, i); };
    // Unit i is x features 8i..8i+7: two float4 in, one uint4 of fp16 out.
    if (norm == nullptr) {
      using Pair = std::array<float4, 2>;
      swept<std::max(1, kLoads / 2)>(
          cols / 8,
          [&](int i) {
            return Pair{x4[2 * i], x4[2 * i + 1]};
          },
          [&](int i, const Pair& v) { *reinterpret_cast<uint4*>(slot(i)) = to_half8(v[0], v[1]); });
    } else {
      const float scale = rms_inverse<kLoads>(x, eps, cols);
      using Pair = std::array<XAndGain, 2>;
      swept<std::max(1, kLoads / 4)>(
          cols / 8,
          [&](int i) {
            return Pair{load_x_and_gain(x, norm, 2 * i), load_x_and_gain(x, norm, 2 * i + 1)};
          },
          [&](int i, const Pair& v) {
            *reinterpret_cast<uint4*>(slot(i)) =
                to_half8(normalised(v[0], scale), normalised(v[1], scale));
          });
    }
  } else if (norm == nullptr) {
    swept<kLoads>(
        count, [&](int i) { return x4[i]; }, [&](int i, float4 v) { store_x4<F, V>(smem, i, v); });
  } else {
    const float scale = rms_inverse<kLoads>(x, eps, cols);
    swept<std::max(1, kLoads / 2)>(
        count, [&](int i) { return load_x_and_gain(x, norm, i); },
        [&](int i, const XAndGain& v) { store_x4<F, V>(smem, i, normalised(v, scale)); });
  }
  __syncthreads();
}

// x given in fp16 (x_half: 16-byte units of eight features), copied into the x_slot layout that
// stage_x fills from fp32: the bits stage_x would store for the same values rounded once. N units
// in flight per thread. Ends with __syncthreads().
template <class F, int V, int N>
__device__ inline void stage_x_half(const uint16_t* __restrict x, int cols,
                                    unsigned char* __restrict smem) {
  static_assert(F::kXHalf, "x_half is for the formats that stage x in fp16");
  const auto* x8 = reinterpret_cast<const uint4*>(x);
  swept<N>(
      cols / 8, [&](int i) { return x8[i]; },
      [&](int i, uint4 v) { *reinterpret_cast<uint4*>(staged_unit<F, V>(smem, i)) = v; });
  __syncthreads();
}

// The block's staging of x for format F: the format's own (F::stage_token: LLM.int8() quantizes
// the token itself), else x given in fp16 copied where the format takes it (stage_x_half,
// F::kXHalfLoads units in flight, or F::kXHalfLoadsBulk in the bulk-copy kernel, whose weights
// wait in shared memory rather than in registers), or stage_x. Ends with __syncthreads().
template <class F, int V, bool kBulk = false>
__device__ __forceinline__ void stage(const GemvArgs& a, unsigned char* __restrict smem) {
  if constexpr (requires { F::stage_token(a, smem); }) {
    F::stage_token(a, smem);
  } else {
    if constexpr (requires { F::kXHalfLoads; }) {
      if (a.x_half != nullptr) {  // gemv() allows it only without a norm
        stage_x_half<F, V, kBulk ? F::kXHalfLoadsBulk : F::kXHalfLoads>(a.x_half, a.cols, smem);
        return;
      }
    }
    stage_x<F, V>(a.x, a.norm, a.norm_eps, a.cols, smem);
  }
}

// What every row kernel does once its first weights are on their way: the format's constant
// tables (built before waiting, like those loads), the wait for the kernel before (PDL: x is its
// output), the go-ahead to the kernel after, and x staged. Ends with stage's __syncthreads(), which
// also covers init_shared.
template <class F, int V, bool kBulk = false>
__device__ __forceinline__ void start_after_first_loads(const GemvArgs& a,
                                                        unsigned char* __restrict smem) {
  F::init_shared(a, smem);
  pdl_wait();
  pdl_trigger();
  stage<F, V, kBulk>(a, smem);
}

__host__ __device__ inline int outputs(const GemvArgs& a) {
  if (a.swiglu) return a.seg[0].rows;
  int total = 0;
  for (int i = 0; i < a.n_seg; ++i) total += a.seg[i].rows;
  return total;
}

// The index of the segment holding concatenated row `row`, with `row` made local to it.
__device__ __forceinline__ int segment_of(const GemvArgs& a, int& row) {
  if (row < a.seg[0].rows || a.n_seg == 1) return 0;
  row -= a.seg[0].rows;
  if (row < a.seg[1].rows || a.n_seg == 2) return 1;
  row -= a.seg[1].rows;
  return 2;
}

// The segment holding concatenated row `row`, with `row` made local to it.
__device__ __forceinline__ GemvSegment pick_segment(const GemvArgs& a, int& row) {
  return a.seg[segment_of(a, row)];
}

// The rows warp `warp` owns in row group g: weight row pointers, segments, local rows, validity.
template <class F, int R>
struct WarpRows {
  const unsigned char* wrow[R];
  GemvSegment seg[R];
  int local[R];
  bool valid[R];
  int first;  // first output of this warp; >= total when it has none

  __device__ WarpRows(const GemvArgs& a, int g, int warp, int total) {
    const int per_warp = a.swiglu ? R / 2 : R;
    first = (g * kGemvWarps + warp) * per_warp;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      int out = a.swiglu ? first + r / 2 : first + r;
      valid[r] = out < total;
      out = valid[r] ? out : (first < total ? first : 0);
      local[r] = out;
      if (a.swiglu) {
        seg[r] = (r % 2 == 0) ? a.seg[0] : a.seg[1];
      } else {
        seg[r] = pick_segment(a, local[r]);
      }
      wrow[r] = static_cast<const unsigned char*>(seg[r].w) +
                static_cast<int64_t>(local[r]) * a.cols * F::kBitsPerWeight / 8;
    }
  }
};

// The weights (and raw chunk scales) of one unrolled step: U chunks of R rows.
// Asks L2 to fetch the 16 bytes at p (and their sector) without holding a register for them.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// The L2 prefetch of the step at c0: what Step::load will read there.
template <class F, int R, int U>
__device__ __forceinline__ void prefetch_step(const WarpRows<F, R>& rows, int c0, int chunks) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int c = c0 + u * 32;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (c < chunks) prefetch_l2(rows.wrow[r] + static_cast<int64_t>(c) * 16);
    }
  }
}

template <class F, int R, int U>
struct Step {
  uint4 w[U][R];
  float2 raw[U][R];

  __device__ void load(const WarpRows<F, R>& rows, int c0, int chunks, int cols) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      // Past the row's end a lane loads the last chunk again instead of branching and zeroing
      // (accumulate_step never uses it): the warp reads that chunk in the same request anyway.
      const int c = min(c0 + u * 32, chunks - 1);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        w[u][r] = ld_stream(rows.wrow[r] + static_cast<int64_t>(c) * 16);
        raw[u][r] = F::raw(rows.seg[r], rows.local[r], cols, c);
      }
    }
  }
};

// acc[r] += the step at c0 (its U chunks that exist) dotted with the staged x, for each row.
template <class F, int R, int U, int V>
__device__ __forceinline__ void accumulate_step(const Step<F, R, U>& step,
                                                const WarpRows<F, R>& rows, int c0, int chunks,
                                                const unsigned char* smem, int lane,
                                                Acc<F> (&acc)[R]) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int c = c0 + u * 32;
    if (c < chunks) {
      const float4* xc = x_unit<F>(smem, c * V);
      const int rot = x_rot<V>(c);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if constexpr (std::is_same_v<Acc<F>, float>) {
          const float sc = F::scale(step.raw[u][r], rows.seg[r], smem);
          acc[r] = fmaf(sc, F::dot(step.w[u][r], xc, rot, smem, lane), acc[r]);
        } else {
          acc[r] += F::dot(step.w[u][r], xc, rot, smem, lane);  // exact: no scale per chunk
        }
      }
    }
  }
}

// What a format's epilogue reads from global memory for a row, loaded into registers when the
// warp takes up the row group (F::RowLoads, F::load_row; nothing for the other formats), so that
// its latency passes while the rows stream instead of after them. LLM.int8()'s row scale and
// outlier weights cost it two dependent round trips per row group otherwise.
template <class F>
struct RowLoadsOf {
  struct type {};
};
template <class F>
requires requires {
  typename F::RowLoads;
}
struct RowLoadsOf<F> {
  using type = typename F::RowLoads;
};

template <class F, int R>
struct EpilogueLoads {
  typename RowLoadsOf<F>::type row[R];
};

// A format whose epilogue works across the warp (F::WarpEpilogue: LLM.int8() spreads a row's
// outlier weights over the lanes and gathers them by shuffles) loads and finishes every row in
// every lane; the others in the lane that writes the row's output only.
template <class F>
concept WarpEpilogue = requires {
  typename F::WarpEpilogue;
};

// Whether `lane` loads and finishes a row whose output lane `writer` writes.
template <class F>
__device__ __forceinline__ bool finishes_row(int lane, int writer) {
  return WarpEpilogue<F> || lane == writer;
}

template <class F, int R>
__device__ __forceinline__ EpilogueLoads<F, R> load_epilogue(const GemvArgs& a,
                                                             const WarpRows<F, R>& rows, int lane,
                                                             const unsigned char* smem) {
  EpilogueLoads<F, R> e{};
  if constexpr (requires { typename F::RowLoads; }) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int writer = a.swiglu ? (r & ~1) : r;
      if (finishes_row<F>(lane, writer) && rows.valid[r]) {
        e.row[r] = F::load_row(a, rows.seg[r], rows.local[r], smem, lane);
      }
    }
  }
  return e;
}

// Row `row` of segment s from its warp-reduced sum: F::finish, or F::finish_staged where the
// format's epilogue reads what it staged (LLM.int8(): the token's absmax and outlier columns)
// and what load_epilogue fetched.
template <class F, class Loads>
__device__ __forceinline__ float finish_row(const GemvArgs& a, const GemvSegment& s, int row,
                                            Acc<F> acc, const unsigned char* smem,
                                            const Loads& loads) {
  if constexpr (requires { F::finish_staged(a, s, row, acc, smem, loads); }) {
    return F::finish_staged(a, s, row, acc, smem, loads);
  } else {
    return F::finish(s, row, acc);
  }
}

// The outputs of a GEMV's rows, from their finished values: SwiGLU's silu(gate)·up (the CPU
// twin's g / (1 + exp(-g)) · u) at output o, or a row's value plus the residual where there is one.
// Every kernel of the GEMV writes its outputs through these.
// With y_half (the formats that take x in fp16, F::kXHalfLoads) the output is rounded to fp16
// here, once, as the next GEMV's fp16 staging would round it.
template <class F>
__device__ __forceinline__ void write_swiglu(const GemvArgs& a, int o, float gate, float up) {
  const float v = gate / (1.0f + expf(-gate)) * up;
  if constexpr (requires { F::kXHalfLoads; }) {
    if (a.y_half != nullptr) {
      a.y_half[o] = __half_as_ushort(__float2half_rn(v));
      return;
    }
  }
  a.y[o] = v;
}
__device__ __forceinline__ void write_row(const GemvArgs& a, int o, float v) {
  if (a.residual != nullptr) v += a.residual[o];
  a.y[o] = v;
}

// The epilogue of one warp's rows (acc already warp-reduced): SwiGLU pairs, or bias/residual.
// Row r's output is written by lane r (SwiGLU: the gate's).
template <class F, int R>
__device__ __forceinline__ void write_outputs(const GemvArgs& a, const WarpRows<F, R>& rows,
                                              int lane, const Acc<F> (&acc)[R],
                                              const unsigned char* smem,
                                              const EpilogueLoads<F, R>& e) {
  const int first = rows.first;
  const auto finished = [&](int r) {
    return finish_row<F>(a, rows.seg[r], rows.local[r], acc[r], smem, e.row[r]);
  };
  [[maybe_unused]] float warp_done[R];
  if constexpr (WarpEpilogue<F>) {
#pragma unroll
    for (int r = 0; r < R; ++r) warp_done[r] = finished(r);
  }
  const auto value = [&](int r) {
    if constexpr (WarpEpilogue<F>) {
      return warp_done[r];
    } else {
      return finished(r);
    }
  };
  if (a.swiglu) {
#pragma unroll
    for (int r = 0; r < R; r += 2) {
      if (lane == r && rows.valid[r]) write_swiglu<F>(a, first + r / 2, value(r), value(r + 1));
    }
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (lane == r && rows.valid[r]) write_row(a, first + r, value(r));
    }
  }
}

template <class F, int R, GemvPipeline P, int U>
__global__ void __launch_bounds__(kGemvThreads) gemv_kernel(const GemvArgs a) {
  // The format's tables and the staged x (x_unit).
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int V = F::kElems * x_bytes<F>() / 16;  // 16-byte units of x per weight chunk
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int total = outputs(a);
  const int per_group = kGemvWarps * (a.swiglu ? R / 2 : R);
  const int groups = (total + per_group - 1) / per_group;
  const int chunks = a.cols / F::kElems;

  if constexpr (P == GemvPipeline::none) {
    // Load a step, then compute it. The first step of the first group is loaded before waiting
    // (PDL) and before x is staged: the weights depend on neither, so their latency overlaps both.
    Step<F, R, U> step;
    const bool preloaded = static_cast<int>(blockIdx.x) < groups;
    if (preloaded) {
      const WarpRows<F, R> rows(a, blockIdx.x, warp, total);
      step.load(rows, lane, chunks, a.cols);
    }
    start_after_first_loads<F, V>(a, smem);

    for (int g = blockIdx.x; g < groups; g += gridDim.x) {
      const WarpRows<F, R> rows(a, g, warp, total);
      if (rows.first >= total) continue;
      const EpilogueLoads<F, R> epilogue = load_epilogue<F, R>(a, rows, lane, smem);
      Acc<F> acc[R];
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r] = 0;
      for (int c0 = lane; c0 < chunks; c0 += 32 * U) {
        if (!(preloaded && g == static_cast<int>(blockIdx.x) && c0 == lane)) {
          step.load(rows, c0, chunks, a.cols);
        }
        accumulate_step<F, R, U, V>(step, rows, c0, chunks, smem, lane, acc);
      }
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r] = warp_sum(acc[r]);
      write_outputs<F, R>(a, rows, lane, acc, smem, epilogue);
    }
  } else {
    // Each warp walks its (row group, step) sequence and starts fetching the next step before it
    // computes the current one (the quantized formats spend as long decoding and dotting a step
    // as loading it). The first step is loaded before waiting (PDL) and staging x, as above.
    const int steps_per_group = (chunks + 32 * U - 1) / (32 * U);
    int g = blockIdx.x;
    if (g >= groups) {  // no row group for this block (never with the grids launch_gemv sizes)
      pdl_wait();
      pdl_trigger();
      return;
    }
    WarpRows<F, R> rows(a, g, warp, total);
    Step<F, R, U> cur;
    cur.load(rows, lane, chunks, a.cols);
    start_after_first_loads<F, V>(a, smem);
    EpilogueLoads<F, R> epilogue = load_epilogue<F, R>(a, rows, lane, smem);

    Acc<F> acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = 0;
    for (int s = 0;;) {
      int next_s = s + 1, next_g = g;
      if (next_s == steps_per_group) {
        next_s = 0;
        next_g = g + gridDim.x;
      }
      const bool more = next_g < groups;
      WarpRows<F, R> next_rows = rows;
      if (more && next_g != g) next_rows = WarpRows<F, R>(a, next_g, warp, total);
      const int next_c0 = next_s * 32 * U + lane;
      Step<F, R, U> next;
      if constexpr (P == GemvPipeline::registers) {
        if (more) next.load(next_rows, next_c0, chunks, a.cols);
      } else {
        if (more) prefetch_step<F, R, U>(next_rows, next_c0, chunks);
      }
      if (rows.first < total) {
        accumulate_step<F, R, U, V>(cur, rows, s * 32 * U + lane, chunks, smem, lane, acc);
        if (next_s == 0) {  // the group's last step: reduce and write its outputs
#pragma unroll
          for (int r = 0; r < R; ++r) acc[r] = warp_sum(acc[r]);
          write_outputs<F, R>(a, rows, lane, acc, smem, epilogue);
#pragma unroll
          for (int r = 0; r < R; ++r) acc[r] = 0;
        }
      }
      if (!more) break;
      if constexpr (P == GemvPipeline::registers) {
        cur = next;
      } else {
        cur.load(next_rows, next_c0, chunks, a.cols);
      }
      if (next_g != g) epilogue = load_epilogue<F, R>(a, next_rows, lane, smem);
      rows = next_rows;
      g = next_g;
      s = next_s;
    }
  }
}

// kernel<<<grid, kGemvThreads, smem, stream>>>(args), with the programmatic-serialization
// attribute when pdl (the kernel then overlaps the end of its predecessor).
template <class Kernel>
void launch_maybe_pdl(Kernel kernel, dim3 grid, size_t smem, bool pdl, cudaStream_t stream,
                      const GemvArgs& args) {
  launch_pdl(kernel, LaunchShape{grid, dim3(kGemvThreads), smem}, stream, pdl, args);
}

// Raises `kernel`'s dynamic shared-memory limit to `smem` where that is past what `configured`
// (the launching instantiation's own record, 48 KB at first) already allows.
template <class Kernel>
void allow_shared(Kernel kernel, size_t smem, size_t& configured) {
  if (smem <= configured) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(smem)));
  configured = smem;
}

// The blocks to launch `kernel` with for these arguments: one per row group (kGemvWarps warps of
// R rows, or R / 2 outputs with swiglu), or in a resident grid at most as many as fit at once.
template <class Kernel>
int gemv_grid(Kernel kernel, const GemvArgs& a, int R, bool persistent, size_t smem) {
  const int total = outputs(a);
  const int per_group = kGemvWarps * (a.swiglu ? R / 2 : R);
  int grid = (total + per_group - 1) / per_group;
  if (persistent) {
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kGemvThreads, smem));
    grid = std::min(grid, std::max(1, sms * per_sm));
  }
  return grid;
}

// Launches a row kernel (R rows per warp) with `smem` bytes of shared memory: one block per row
// group or a resident grid looping over them, with PDL as the config says. `configured` is the
// calling instantiation's record of its dynamic shared-memory limit (allow_shared).
template <class Kernel>
void launch_rows(Kernel kernel, const GemvArgs& a, const GemvConfig& config, int R, size_t smem,
                 size_t& configured, cudaStream_t stream) {
  allow_shared(kernel, smem, configured);
  const int grid = gemv_grid(kernel, a, R, config.persistent, smem);
  if (grid <= 0) return;
  launch_maybe_pdl(kernel, dim3(static_cast<unsigned>(grid)), smem, config.pdl, stream, a);
}

// Launches Kernel, a row kernel with R rows a warp, with smem bytes of dynamic shared memory.
template <auto Kernel>
void launch_row_kernel(const GemvArgs& a, const GemvConfig& config, int R, size_t smem,
                       cudaStream_t stream) {
  static size_t configured = 48 * 1024;  // per kernel: the dynamic limit already set
  launch_rows(Kernel, a, config, R, smem, configured, stream);
}

// Launches Kernel, a row kernel of format F with R rows a warp, with the shared memory its staged
// x needs.
template <auto Kernel, class F>
void launch_row_kernel(const GemvArgs& a, const GemvConfig& config, int R, cudaStream_t stream) {
  launch_row_kernel<Kernel>(a, config, R, gemv_shared_bytes<F>(a.cols), stream);
}

template <class F, int R, GemvPipeline P, int U>
void launch_gemv(const GemvArgs& a, const GemvConfig& config, cudaStream_t stream) {
  launch_row_kernel<gemv_kernel<F, R, P, U>, F>(a, config, R, stream);
}

}  // namespace ec::engine::cuda::detail
