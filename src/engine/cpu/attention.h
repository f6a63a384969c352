// Causal grouped-query attention of new tokens against the KV cache (prefill and one-token decode).
#pragma once

#include "engine/cpu/kv_cache.h"
#include "engine/cpu/thread_pool.h"

namespace ec::engine::cpu {

// q and out are [n_tokens, n_heads * head_dim]; token i sits at position start + i and attends to
// cache positions [0, start + i], which must already be stored. Query head h reads KV head
// h / (n_heads / kv_heads), as transformers' repeat_kv does. Scores are scaled by 1/sqrt(head_dim).
void attention(const float* q, const KvCache& cache, int layer, int n_heads, int start,
               int n_tokens, float* out, ThreadPool& pool);

}  // namespace ec::engine::cpu
