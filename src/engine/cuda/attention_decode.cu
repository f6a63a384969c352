// Decode attention fused with RoPE and the KV-cache store. A block owns one (query head, slice of
// the KV length): it copies the slice's cached keys and values into shared memory in tiles
// (cp.async, before waiting for its predecessor: the cache is not the predecessor's output),
// rotates q and the new key itself, scores each tile with a few threads per position, and keeps a
// block-wide online softmax over the tiles. The slices of a head form one cluster; they hand their
// (max, sum, weighted values) to block 0's shared memory, which merges them in slice order.
//
// Why not the split kernel of attention.cu: there, a decode step was RoPE, attention and a merge
// through global memory (write, fence, atomic counter, read back): about 13 µs per layer at 7B,
// pure latency. Here the merge is one cluster barrier and the RoPE launch is gone.
#include <cooperative_groups.h>
#include <cuda_fp16.h>

#include <cmath>

#include "engine/cuda/attention_decode.cuh"
#include "engine/cuda/cp_async.cuh"
#include "engine/cuda/cuda_check.cuh"
#include "engine/cuda/pdl.cuh"
#include "engine/cuda/rope_rotate.cuh"

namespace ec::engine::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kTile = 64;  // positions per shared-memory tile (two tiles in flight)

template <int D>
struct Shape {
  static constexpr int kParts = D >= 32 ? 4 : D / 8;  // threads scoring one position
  static constexpr int kDimsPerPart = D / kParts;
  static constexpr int kChunks = kDimsPerPart / 8;    // 16-byte chunks of a key per thread
  static constexpr int kPerPass = kThreads / kParts;  // positions scored at once
  static constexpr int kPairs = D / 2;                // threads per value row (a half2 each)
  static constexpr int kGroups = kThreads / kPairs;   // position groups of the weighted sum
  static constexpr int kRowChunks = D / 8;            // 16-byte chunks per cached row
  static constexpr size_t kTileBytes = size_t{2} * kTile * D * sizeof(uint16_t);  // keys, values
  static_assert(kTile % kPerPass == 0 && kThreads % kPairs == 0 && kChunks >= 1);
};

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <int D>
__global__ void __launch_bounds__(kThreads) decode_attention_kernel(DecodeAttentionArgs a) {
  pdl_trigger();  // let the o GEMV start loading its weights
  using S = Shape<D>;
  extern __shared__ __align__(16) uint16_t s_tiles[];  // [2 buffers][keys, values][kTile][D]
  __shared__ float s_q[D];
  __shared__ __align__(16) uint16_t s_knew[D];
  __shared__ __align__(16) uint16_t s_vnew[D];
  __shared__ float s_score[kTile];
  __shared__ float s_red[S::kGroups][D];

  const int h = static_cast<int>(blockIdx.x);
  const int split = static_cast<int>(blockIdx.y), splits = static_cast<int>(gridDim.y);
  const int group = a.n_heads / a.kv_heads;
  const int kvh = h / group;
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31;
  // The position counter is bumped only by the argmax at the end of the previous step, so it may
  // be read before pdl_wait(), as may the cache rows of earlier positions.
  const int pos = *a.start;
  const int len = pos + 1;
  const int chunk = (len + splits - 1) / splits;
  const int p0 = min(len, split * chunk), p1 = min(len, p0 + chunk);
  const int n_tiles = (p1 - p0 + kTile - 1) / kTile;
  const uint16_t* kc = a.k_cache + static_cast<int64_t>(kvh) * a.capacity * D;
  const uint16_t* vc = a.v_cache + static_cast<int64_t>(kvh) * a.capacity * D;

  const auto issue = [&](int tile) {
    const int t0 = p0 + tile * kTile;
    const int rows = min(kTile, p1 - t0);
    uint16_t* kt = s_tiles + (tile & 1) * 2 * kTile * D;
    uint16_t* vt = kt + kTile * D;
    for (int i = tid; i < rows * S::kRowChunks; i += kThreads) {
      const int r = i / S::kRowChunks, c = i % S::kRowChunks;
      if (t0 + r == pos) continue;  // the new row comes from qkv: the cache holds a stale one
      const int64_t at = static_cast<int64_t>(t0 + r) * D + c * 8;
      cp_async16(kt + r * D + c * 8, kc + at);
      cp_async16(vt + r * D + c * 8, vc + at);
    }
    cp_async_commit();
  };
  if (n_tiles > 0) issue(0);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Arrive at the cluster barrier now and wait on it just before writing to block 0's shared
  // memory: no block touches another's shared memory before every block of the cluster has
  // started (the CUDA guide's rule for distributed shared memory). The arrival is free here and
  // the wait comes long after.
  if (splits > 1) (void)cooperative_groups::this_cluster().barrier_arrive();
#endif
  pdl_wait();  // qkv is the predecessor's output

  // RoPE of q, and of the new key where this slice holds the new position. The first query head
  // of the group writes the new key and value to the cache for later steps.
  const bool holds_new = p0 <= pos && pos < p1;
  const bool writes_cache = holds_new && h % group == 0;
  const int half = D / 2;
  const float* cs = a.cos + static_cast<int64_t>(pos) * half;
  const float* sn = a.sin + static_cast<int64_t>(pos) * half;
  const float* qh = a.qkv + h * D;
  const float* kh = a.qkv + (a.n_heads + kvh) * D;
  const float* vh = a.qkv + (a.n_heads + a.kv_heads + kvh) * D;
  uint16_t* k_row = a.k_cache + (static_cast<int64_t>(kvh) * a.capacity + pos) * D;
  uint16_t* v_row = a.v_cache + (static_cast<int64_t>(kvh) * a.capacity + pos) * D;
  for (int i = tid; i < half; i += kThreads) {
    const float2 q = rope_rotate(qh[i], qh[i + half], cs[i], sn[i]);
    s_q[i] = q.x;
    s_q[i + half] = q.y;
    if (holds_new) {
      const float2 k = rope_rotate(kh[i], kh[i + half], cs[i], sn[i]);
      const uint16_t k1 = __half_as_ushort(__float2half_rn(k.x));
      const uint16_t k2 = __half_as_ushort(__float2half_rn(k.y));
      s_knew[i] = k1;
      s_knew[i + half] = k2;
      if (writes_cache) {
        k_row[i] = k1;
        k_row[i + half] = k2;
      }
    }
  }
  if (holds_new) {
    for (int i = tid; i < D; i += kThreads) {
      const uint16_t v = __half_as_ushort(__float2half_rn(vh[i]));
      s_vnew[i] = v;
      if (writes_cache) v_row[i] = v;
    }
  }
  __syncthreads();

  const int part = tid % S::kParts;
  float q[S::kDimsPerPart];
#pragma unroll
  for (int i = 0; i < S::kDimsPerPart; ++i) q[i] = s_q[part * S::kDimsPerPart + i];
  const int pair = tid % S::kPairs, grp = tid / S::kPairs;
  float m_run = -INFINITY, l_run = 0.0f;
  float2 acc = make_float2(0.0f, 0.0f);

  for (int tile = 0; tile < n_tiles; ++tile) {
    if (tile + 1 < n_tiles) {
      issue(tile + 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const uint16_t* kt = s_tiles + (tile & 1) * 2 * kTile * D;
    const uint16_t* vt = kt + kTile * D;
    const int t0 = p0 + tile * kTile;
    const int rows = min(kTile, p1 - t0);

    // Scores: kParts threads per position, each a kDimsPerPart-long stretch of the dot product.
#pragma unroll
    for (int pass = 0; pass < kTile / S::kPerPass; ++pass) {
      const int r = pass * S::kPerPass + tid / S::kParts;
      float dot = 0.0f;
      if (r < rows) {
        const uint16_t* k_src = t0 + r == pos ? s_knew : kt + r * D;
        const uint4* kp = reinterpret_cast<const uint4*>(k_src + part * S::kDimsPerPart);
#pragma unroll
        for (int j = 0; j < S::kChunks; ++j) {
          const uint4 c = kp[j];
          const uint32_t w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&w[e]));
            dot = fmaf(q[j * 8 + 2 * e], f.x, dot);
            dot = fmaf(q[j * 8 + 2 * e + 1], f.y, dot);
          }
        }
      }
#pragma unroll
      for (int o = 1; o < S::kParts; o <<= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
      if (part == 0) s_score[r] = r < rows ? dot * a.scale : -INFINITY;
    }
    __syncthreads();

    // The tile's maximum and sum, computed alike by every warp (no further barrier).
    float mx = -INFINITY;
    for (int i = lane; i < kTile; i += 32) mx = fmaxf(mx, s_score[i]);
    const float m_new = fmaxf(m_run, warp_max(mx));
    float e = 0.0f;
    for (int i = lane; i < kTile; i += 32) e += expf(s_score[i] - m_new);
    const float corr = m_run == -INFINITY ? 0.0f : expf(m_run - m_new);
    l_run = l_run * corr + warp_sum(e);
    m_run = m_new;

    // Weighted values: thread (grp, pair) sums dims 2·pair, 2·pair + 1 over positions grp +
    // k·kGroups.
    acc.x *= corr;
    acc.y *= corr;
    for (int r = grp; r < rows; r += S::kGroups) {
      const float p = expf(s_score[r] - m_new);
      const uint16_t* v_src = t0 + r == pos ? s_vnew : vt + r * D;
      const float2 v = __half22float2(*reinterpret_cast<const __half2*>(v_src + 2 * pair));
      acc.x = fmaf(p, v.x, acc.x);
      acc.y = fmaf(p, v.y, acc.y);
    }
    __syncthreads();  // the buffer and the scores are rewritten by the next tile
  }

  s_red[grp][2 * pair] = acc.x;
  s_red[grp][2 * pair + 1] = acc.y;
  __syncthreads();
  float* out = a.out + h * D;
  if (splits == 1) {
    for (int d = tid; d < D; d += kThreads) {
      float v = 0.0f;
#pragma unroll
      for (int g = 0; g < S::kGroups; ++g) v += s_red[g][d];
      out[d] = v / l_run;
    }
    return;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ float s_parts[kDecodeAttentionMaxSplits][D + 2];  // block 0: every slice's result
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const auto rank = static_cast<int>(cluster.block_rank());
  cluster.barrier_wait();  // every block of the cluster has started (arrived at the top)
  float* slot = cluster.map_shared_rank(&s_parts[0][0], 0) + rank * (D + 2);
  for (int d = tid; d < D; d += kThreads) {
    float v = 0.0f;
#pragma unroll
    for (int g = 0; g < S::kGroups; ++g) v += s_red[g][d];
    slot[d] = v;
  }
  if (tid == 0) {
    slot[D] = m_run;
    slot[D + 1] = l_run;
  }
  cluster.sync();  // release the slots to block 0, acquire them there
  if (rank != 0) return;
  float mx = -INFINITY;
  for (int s = 0; s < splits; ++s) mx = fmaxf(mx, s_parts[s][D]);
  for (int d = tid; d < D; d += kThreads) {
    float v = 0.0f, l = 0.0f;
    for (int s = 0; s < splits; ++s) {
      const float f = s_parts[s][D] == -INFINITY ? 0.0f : expf(s_parts[s][D] - mx);
      v += s_parts[s][d] * f;
      l += s_parts[s][D + 1] * f;
    }
    out[d] = v / l;
  }
#else
  __trap();  // the host launches several slices only where clusters exist
#endif
}

template <int D>
void launch(const DecodeAttentionArgs& a, bool pdl, cudaStream_t stream) {
  auto kernel = decode_attention_kernel<D>;
  constexpr size_t smem = 2 * Shape<D>::kTileBytes;
  static bool configured = false;  // per instantiation
  if (!configured) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)));
    configured = true;
  }
  // The slices of one head form a cluster: they merge their partial results in shared memory.
  const unsigned splits = static_cast<unsigned>(a.splits);
  launch_pdl(kernel,
             LaunchShape{dim3(static_cast<unsigned>(a.n_heads), splits), dim3(kThreads), smem,
                         dim3(1, splits, 1)},
             stream, pdl, a);
}

}  // namespace

bool decode_attention_supported(int head_dim, int splits, int compute_major) {
  const bool dim_ok =
      head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 128 || head_dim == 256;
  const bool splits_ok =
      splits == 1 || (splits > 1 && splits <= kDecodeAttentionMaxSplits && compute_major >= 9);
  return dim_ok && splits_ok;
}

void decode_attention(const DecodeAttentionArgs& a, bool pdl, cudaStream_t stream) {
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (!decode_attention_supported(a.head_dim, a.splits, major) || a.kv_heads <= 0 ||
      a.n_heads <= 0 || a.n_heads % a.kv_heads != 0 || a.capacity <= 0 || a.qkv == nullptr ||
      a.start == nullptr || a.cos == nullptr || a.sin == nullptr || a.k_cache == nullptr ||
      a.v_cache == nullptr || a.out == nullptr) {
    cuda_invalid(
        "decode_attention: needs head_dim 16, 32, 64, 128 or 256, n_heads a positive multiple of "
        "kv_heads, every buffer, and splits 1, or up to 8 on a GPU with thread-block clusters "
        "(compute capability 9.0+)");
  }
  switch (a.head_dim) {
    case 16:
      launch<16>(a, pdl, stream);
      break;
    case 32:
      launch<32>(a, pdl, stream);
      break;
    case 64:
      launch<64>(a, pdl, stream);
      break;
    case 128:
      launch<128>(a, pdl, stream);
      break;
    default:
      launch<256>(a, pdl, stream);
      break;
  }
}

}  // namespace ec::engine::cuda
