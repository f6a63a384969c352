// Decode/prefill attention over the fp16 KV cache. A block owns one (token, KV head, KV slice):
// its warps take positions in turn, score all query heads of the group against each key (warp
// reduce), and keep an online softmax; the block writes (max, sum, weighted values) per head, and
// the last block of the (token, KV head) merges the slices into the output.
#include <cuda_fp16.h>

#include <cmath>
#include <type_traits>

#include "engine/cuda/attention.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/pdl.cuh"

namespace ec::engine::cuda {
namespace {

constexpr int G = kAttentionMaxGroup;
// Warps per block: 8, or 4 for head_dim > 128 so the per-warp partial sums fit in shared memory.
template <int DPL>
constexpr int kWarpsFor = DPL == 8 ? 4 : 8;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// DPL consecutive fp16 values as loaded (2·DPL bytes: head_dim % DPL == 0 keeps them aligned).
// Rows are kept raw between the load and their use so that several positions can be in flight
// in few registers.
template <int DPL>
using RawRow = std::conditional_t<
    DPL == 1, uint16_t,
    std::conditional_t<DPL == 2, uint32_t, std::conditional_t<DPL == 4, uint2, uint4>>>;

template <int DPL>
__device__ __forceinline__ RawRow<DPL> load_raw(const uint16_t* p) {
  return *reinterpret_cast<const RawRow<DPL>*>(p);
}

__device__ __forceinline__ void widen2(uint32_t bits, float* out) {
  const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&bits));
  out[0] = f.x;
  out[1] = f.y;
}

template <int DPL>
__device__ __forceinline__ void widen_row(RawRow<DPL> r, float (&out)[DPL]) {
  if constexpr (DPL == 1) {
    out[0] = __half2float(__ushort_as_half(r));
  } else if constexpr (DPL == 2) {
    widen2(r, out);
  } else if constexpr (DPL == 4) {
    widen2(r.x, out);
    widen2(r.y, out + 2);
  } else {
    widen2(r.x, out);
    widen2(r.y, out + 2);
    widen2(r.z, out + 4);
    widen2(r.w, out + 6);
  }
}

// Positions a warp loads at once before scoring them: one memory latency per batch instead of one
// per position (a decode slice gives each warp only a handful of positions).
template <int DPL>
constexpr int kAheadFor = DPL == 8 ? 2 : 4;

template <int DPL>  // lane owns head dims [lane·DPL, lane·DPL + DPL); head_dim ≤ 32·DPL
__global__ void __launch_bounds__(kWarpsFor<DPL> * 32) attention_kernel(AttentionArgs a) {
  pdl_trigger();  // let the next GEMV start loading its weights
  constexpr int kWarps = kWarpsFor<DPL>;
  constexpr int kThreads = kWarps * 32;
  __shared__ float s_acc[kWarps][G][32 * DPL];
  __shared__ float s_m[kWarps][G];
  __shared__ float s_l[kWarps][G];
  __shared__ float s_scale[kWarps][G];
  __shared__ float s_split_m[G][kAttentionMaxSplits];  // last block: per slice max, then factor
  __shared__ float s_split_l[G][kAttentionMaxSplits];
  __shared__ bool is_last;

  const int kvh = blockIdx.x, split = blockIdx.y, t = blockIdx.z;
  const int group = a.n_heads / a.kv_heads;
  const int D = a.head_dim;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const bool active = lane * DPL < D;
  const int len = *a.start + t + 1;
  const int chunk = (len + a.splits - 1) / a.splits;
  const int p0 = split * chunk;
  const int p1 = min(len, p0 + chunk);

  float q[G][DPL];
  float m[G], l[G], acc[G][DPL];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    m[g] = -INFINITY;
    l[g] = 0.0f;
    const float* qh =
        a.q + static_cast<int64_t>(t) * a.q_stride + (kvh * group + g) * D + lane * DPL;
#pragma unroll
    for (int i = 0; i < DPL; ++i) {
      q[g][i] = (g < group && active) ? qh[i] : 0.0f;
      acc[g][i] = 0.0f;
    }
  }
  const int64_t base = static_cast<int64_t>(kvh) * a.capacity * D + lane * DPL;
  // The keys/values of kAhead positions (p, p + kWarps, ...) are loaded together, then scored in
  // order: the online softmax sees positions in the same order as with one at a time.
  constexpr int kAhead = kAheadFor<DPL>;
  using Raw = RawRow<DPL>;
  for (int pb = p0 + warp; pb < p1; pb += kWarps * kAhead) {
    Raw kr[kAhead], vr[kAhead];
#pragma unroll
    for (int j = 0; j < kAhead; ++j) {
      const int p = pb + j * kWarps;
      if (p < p1 && active) {
        kr[j] = load_raw<DPL>(a.k_cache + base + static_cast<int64_t>(p) * D);
        vr[j] = load_raw<DPL>(a.v_cache + base + static_cast<int64_t>(p) * D);
      } else {
        kr[j] = Raw{};
        vr[j] = Raw{};
      }
    }
#pragma unroll
    for (int j = 0; j < kAhead; ++j) {
      if (pb + j * kWarps >= p1) break;  // warp-uniform
      float k[DPL], v[DPL];
      widen_row<DPL>(kr[j], k);
      widen_row<DPL>(vr[j], v);
#pragma unroll
      for (int g = 0; g < G; ++g) {
        if (g < group) {
          float s = 0.0f;
#pragma unroll
          for (int i = 0; i < DPL; ++i) s = fmaf(q[g][i], k[i], s);
          s = warp_sum(s) * a.scale;
          const float m_new = fmaxf(m[g], s);
          const float corr = expf(m[g] - m_new);
          const float e = expf(s - m_new);
          l[g] = l[g] * corr + e;
#pragma unroll
          for (int i = 0; i < DPL; ++i) acc[g][i] = acc[g][i] * corr + e * v[i];
          m[g] = m_new;
        }
      }
    }
  }

  // Merge the warps in a fixed order (deterministic): each warp's values rescaled to the block
  // maximum and summed warp by warp.
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int i = 0; i < DPL; ++i) s_acc[warp][g][lane * DPL + i] = acc[g][i];
  }
  if (lane == 0) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      s_m[warp][g] = m[g];
      s_l[warp][g] = l[g];
    }
  }
  __syncthreads();
  if (threadIdx.x < group) {
    const int g = threadIdx.x;
    float mx = -INFINITY;
    for (int w = 0; w < kWarps; ++w) mx = fmaxf(mx, s_m[w][g]);
    float sum = 0.0f;
    for (int w = 0; w < kWarps; ++w) {
      const float f = mx == -INFINITY ? 0.0f : expf(s_m[w][g] - mx);
      s_scale[w][g] = f;
      sum += s_l[w][g] * f;
    }
    s_m[0][g] = mx;  // warp 0's entries are no longer needed
    s_l[0][g] = sum;
  }
  __syncthreads();
  const auto merged = [&](int g, int d) {
    float v = 0.0f;
    for (int w = 0; w < kWarps; ++w) v += s_acc[w][g][d] * s_scale[w][g];
    return v;
  };

  if (a.splits == 1) {
    for (int i = threadIdx.x; i < group * D; i += kThreads) {
      const int g = i / D, d = i % D;
      a.out[static_cast<int64_t>(t) * a.n_heads * D + (kvh * group + g) * D + d] =
          merged(g, d) / s_l[0][g];
    }
    return;
  }

  // Partial layout [token][head][split][D + 2] = weighted values, max, sum.
  const int stride = D + 2;
  for (int i = threadIdx.x; i < group * D; i += kThreads) {
    const int g = i / D, d = i % D;
    const int h = kvh * group + g;
    float* part =
        a.partial + ((static_cast<int64_t>(t) * a.n_heads + h) * a.splits + split) * stride;
    part[d] = merged(g, d);
    if (d == 0) {
      part[D] = s_m[0][g];
      part[D + 1] = s_l[0][g];
    }
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned* counter = a.counters + t * a.kv_heads + kvh;
    is_last = atomicAdd(counter, 1u) == static_cast<unsigned>(a.splits) - 1;
    if (is_last) *counter = 0;
  }
  __syncthreads();
  if (!is_last) return;

  // Each slice's (max, sum) once into shared memory, in parallel, then the per-head rescale
  // factors; the weighted values are then read with many loads in flight per thread. (One thread
  // walking the slices for every output, two dependent L2 round trips per slice, made the merge
  // the slowest part of a short-context decode step.)
  for (int i = threadIdx.x; i < group * a.splits; i += kThreads) {
    const int g = i / a.splits, sp = i % a.splits;
    const float* part =
        a.partial +
        ((static_cast<int64_t>(t) * a.n_heads + kvh * group + g) * a.splits + sp) * stride;
    s_split_m[g][sp] = __ldcg(part + D);
    s_split_l[g][sp] = __ldcg(part + D + 1);
  }
  __syncthreads();
  if (threadIdx.x < group) {
    const int g = threadIdx.x;
    float mx = -INFINITY;
    for (int sp = 0; sp < a.splits; ++sp) mx = fmaxf(mx, s_split_m[g][sp]);
    float sum = 0.0f;
    for (int sp = 0; sp < a.splits; ++sp) {
      const float ms = s_split_m[g][sp];
      const float f = ms == -INFINITY ? 0.0f : expf(ms - mx);
      s_split_m[g][sp] = f;  // from here on: the slice's rescale factor
      sum += s_split_l[g][sp] * f;
    }
    s_l[0][g] = sum;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < group * D; i += kThreads) {
    const int g = i / D, d = i % D;
    const int h = kvh * group + g;
    const float* part0 = a.partial + (static_cast<int64_t>(t) * a.n_heads + h) * a.splits * stride;
    float val = 0.0f;
#pragma unroll 8
    for (int sp = 0; sp < a.splits; ++sp) val += __ldcg(part0 + sp * stride + d) * s_split_m[g][sp];
    a.out[static_cast<int64_t>(t) * a.n_heads * D + h * D + d] = val / s_l[0][g];
  }
}

}  // namespace

size_t attention_partial_floats(int n_tokens, int n_heads, int head_dim, int splits) {
  return static_cast<size_t>(n_tokens) * n_heads * splits * (head_dim + 2);
}

int attention_splits(int n_tokens, int kv_heads, int max_length) {
  // Slices of at least 64 positions (8 per warp), at most 32, and no more than needed to give a
  // large GPU about two blocks per SM.
  const int pairs = n_tokens * kv_heads > 0 ? n_tokens * kv_heads : 1;
  int splits = (max_length + 63) / 64;
  splits = splits > kAttentionMaxSplits ? kAttentionMaxSplits : splits;
  const int fill = (264 + pairs - 1) / pairs;
  splits = splits > fill ? fill : splits;
  return splits < 1 ? 1 : splits;
}

void attention(const AttentionArgs& a, cudaStream_t stream) {
  if (a.n_tokens <= 0) return;
  const int dpl = a.head_dim <= 32 ? 1 : a.head_dim <= 64 ? 2 : a.head_dim <= 128 ? 4 : 8;
  if (a.head_dim <= 0 || a.head_dim > kAttentionMaxHeadDim || a.head_dim % dpl != 0 ||
      a.kv_heads <= 0 || a.n_heads % a.kv_heads != 0 ||
      a.n_heads / a.kv_heads > kAttentionMaxGroup || a.splits < 1 ||
      a.splits > kAttentionMaxSplits) {
    cuda_invalid(
        "attention: needs head_dim in [1, 256] and a multiple of its per-lane width, n_heads a "
        "multiple of kv_heads with at most 8 query heads per KV head, and splits in [1, 32]");
  }
  const dim3 grid(static_cast<unsigned>(a.kv_heads), static_cast<unsigned>(a.splits),
                  static_cast<unsigned>(a.n_tokens));
  if (a.head_dim <= 32) {
    attention_kernel<1><<<grid, kWarpsFor<1> * 32, 0, stream>>>(a);
  } else if (a.head_dim <= 64) {
    attention_kernel<2><<<grid, kWarpsFor<2> * 32, 0, stream>>>(a);
  } else if (a.head_dim <= 128) {
    attention_kernel<4><<<grid, kWarpsFor<4> * 32, 0, stream>>>(a);
  } else {
    attention_kernel<8><<<grid, kWarpsFor<8> * 32, 0, stream>>>(a);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace ec::engine::cuda
