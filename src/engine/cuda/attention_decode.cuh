// Decode attention fused with RoPE and the KV-cache store, for one new token: a block per
// (query head, slice of the KV length), the slices of a head one thread-block cluster that merges
// them through distributed shared memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ec::engine::cuda {

// Slices per query head: one cluster of at most this many blocks (the portable cluster size).
inline constexpr int kDecodeAttentionMaxSplits = 8;

struct DecodeAttentionArgs {
  const float* qkv = nullptr;  // the qkv GEMV's output: n_heads q, kv_heads k, kv_heads v (raw)
  int n_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  const int* start = nullptr;  // device: the new token's position; it sees [0, *start]
  const float* cos = nullptr;  // [capacity, head_dim / 2], as rope_tables() builds them
  const float* sin = nullptr;
  uint16_t* k_cache = nullptr;  // this layer: [kv_heads, capacity, head_dim] fp16
  uint16_t* v_cache = nullptr;
  int capacity = 0;
  float scale = 0.0f;    // 1/sqrt(head_dim), as the CPU computes it
  float* out = nullptr;  // [n_heads · head_dim]
  int splits = 1;        // slices of the KV length, 1 to kDecodeAttentionMaxSplits
};

// Whether decode_attention() handles this head size on this device: head_dim 16, 32, 64, 128 or
// 256, and, for more than one slice, thread-block clusters (compute capability 9.0 and newer).
bool decode_attention_supported(int head_dim, int splits, int compute_major);

// Rotates q and the new k, writes the new k and v to the cache, and attends over positions
// [0, *start]. Throws ec::Error for shapes it does not handle. With pdl, the kernel starts loading
// the cached keys and values while its predecessor finishes (they are not the predecessor's
// output) and waits for it before reading qkv.
void decode_attention(const DecodeAttentionArgs& args, bool pdl, cudaStream_t stream);

}  // namespace ec::engine::cuda
