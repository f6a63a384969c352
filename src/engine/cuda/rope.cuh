// Rotary position embedding (Hugging Face rotate_half) fused with the KV-cache store: q and k
// rotated in place, k and v written to the layer's fp16 cache at their positions.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace ec::engine::cuda {

struct RopeStoreArgs {
  float* qkv = nullptr;  // [n_tokens, stride]: n_heads q heads, kv_heads k heads, kv_heads v heads
  int stride = 0;
  int n_tokens = 0;
  int n_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  const int* start = nullptr;  // device: the position of token 0
  const float* cos = nullptr;  // [max_positions, head_dim / 2]
  const float* sin = nullptr;
  uint16_t* k_cache = nullptr;  // this layer: [kv_heads, capacity, head_dim] fp16
  uint16_t* v_cache = nullptr;
  int capacity = 0;
};

void rope_store(const RopeStoreArgs& args, cudaStream_t stream);

// cos/sin of position · inv_freq for positions [0, max_positions), exactly as cpu::RopeTable
// computes them (inv_freq and the angle in FP32, cos/sin rounded once from double).
void rope_tables(int head_dim, double theta, int max_positions, std::vector<float>& cos,
                 std::vector<float>& sin);

}  // namespace ec::engine::cuda
