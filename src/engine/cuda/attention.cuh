// Causal grouped-query attention of new tokens against the fp16 KV cache (decode and prefill),
// split over the KV length (flash-decoding) so long contexts fill the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace ec::engine::cuda {

inline constexpr int kAttentionMaxGroup = 8;  // query heads per KV head
inline constexpr int kAttentionMaxHeadDim = 256;
inline constexpr int kAttentionMaxSplits = 32;  // slices of the KV length per (token, KV head)

struct AttentionArgs {
  const float* q = nullptr;  // [n_tokens, q_stride]; head h at h · head_dim (rotated)
  int q_stride = 0;
  const uint16_t* k_cache = nullptr;  // this layer: [kv_heads, capacity, head_dim] fp16
  const uint16_t* v_cache = nullptr;
  int capacity = 0;
  int n_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int n_tokens = 0;
  const int* start = nullptr;    // device: token i sits at start + i and sees [0, start + i]
  float scale = 0.0f;            // 1/sqrt(head_dim), as the CPU computes it
  float* out = nullptr;          // [n_tokens, n_heads · head_dim]
  float* partial = nullptr;      // scratch: attention_partial_floats(...)
  unsigned* counters = nullptr;  // [n_tokens · kv_heads], zeroed once; the last block resets it
  int splits = 1;
};

size_t attention_partial_floats(int n_tokens, int n_heads, int head_dim, int splits);

// Splits of the KV length that fill the GPU for this many (token, KV head) pairs.
int attention_splits(int n_tokens, int kv_heads, int max_length);

// Checks head_dim ≤ 256, n_heads/kv_heads ≤ 8 and 1 ≤ splits ≤ 32 (ec::Error otherwise), then
// launches.
void attention(const AttentionArgs& args, cudaStream_t stream);

}  // namespace ec::engine::cuda
