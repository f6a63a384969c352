// Causal grouped-query attention against the FP32 KV cache, parallel over (token, head) pairs;
// each pair is computed the same way in prefill and decode, so both give the same numbers.
#include "engine/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"

namespace ec::engine::cpu {
namespace {

constexpr int kLanes = 8;

inline float dot(const float* __restrict a, const float* __restrict b, int n) {
  float acc[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] += a[i + j] * b[i + j];
  }
  for (int j = 0; i + j < n; ++j) acc[j] += a[i + j] * b[i + j];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

void attend_one(const float* __restrict q, const float* __restrict keys,
                const float* __restrict values, int length, int head_dim, float scale,
                float* __restrict scores, float* __restrict out) {
  float max_score = -INFINITY;
  for (int p = 0; p < length; ++p) {
    scores[p] = dot(q, keys + static_cast<size_t>(p) * head_dim, head_dim) * scale;
    max_score = std::max(max_score, scores[p]);
  }
  float sum = 0.0f;
  for (int p = 0; p < length; ++p) {
    scores[p] = std::exp(scores[p] - max_score);
    sum += scores[p];
  }
  const float inv_sum = 1.0f / sum;
  std::fill(out, out + head_dim, 0.0f);
  for (int p = 0; p < length; ++p) {
    const float w = scores[p] * inv_sum;
    const float* __restrict v = values + static_cast<size_t>(p) * head_dim;
    for (int d = 0; d < head_dim; ++d) out[d] += w * v[d];
  }
}

}  // namespace

void attention(const float* q, const KvCache& cache, int layer, int n_heads, int start,
               int n_tokens, float* out, ThreadPool& pool) {
  const int kv_heads = cache.kv_heads();
  const int head_dim = cache.head_dim();
  EC_CHECK(n_heads > 0 && n_heads % kv_heads == 0,
           "attention: {} query heads is not a multiple of {} KV heads", n_heads, kv_heads);
  EC_CHECK(start >= 0 && start + n_tokens <= cache.capacity(),
           "attention: positions [{}, {}) exceed the KV cache capacity {}", start, start + n_tokens,
           cache.capacity());
  const int group = n_heads / kv_heads;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
  const int64_t items = static_cast<int64_t>(n_tokens) * n_heads;
  // Roughly 32k multiply-adds per chunk before another thread is woken.
  const int64_t per_item = std::max<int64_t>(int64_t{2} * (start + n_tokens) * head_dim, 1);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / per_item);
  pool.parallel_for(items, grain, [&](int64_t begin, int64_t end) {
    thread_local std::vector<float> scores;
    scores.resize(static_cast<size_t>(cache.capacity()));
    for (int64_t item = begin; item < end; ++item) {
      const int t = static_cast<int>(item / n_heads);
      const int h = static_cast<int>(item % n_heads);
      const int kv = h / group;
      const size_t at = (static_cast<size_t>(t) * n_heads + h) * head_dim;
      attend_one(q + at, cache.keys(layer, kv), cache.values(layer, kv), start + t + 1, head_dim,
                 scale, scores.data(), out + at);
    }
  });
}

}  // namespace ec::engine::cpu
