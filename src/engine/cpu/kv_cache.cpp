// The FP32 key/value cache of the CPU engine, laid out [layer, kv_head, position, head_dim].
#include "engine/cpu/kv_cache.h"

#include <algorithm>

#include "core/error.h"

namespace ec::engine::cpu {

KvCache::KvCache(int layers, int kv_heads, int head_dim, int capacity)
    : layers_(layers), kv_heads_(kv_heads), head_dim_(head_dim), capacity_(capacity) {
  EC_CHECK(layers > 0 && kv_heads > 0 && head_dim > 0 && capacity > 0,
           "KV cache: layers {}, kv_heads {}, head_dim {}, capacity {} must all be positive",
           layers, kv_heads, head_dim, capacity);
  const size_t n = static_cast<size_t>(layers) * kv_heads * capacity * head_dim;
  k_.assign(n, 0.0f);
  v_.assign(n, 0.0f);
}

void KvCache::store(int layer, int start, int n, const float* k, const float* v) {
  EC_CHECK(layer >= 0 && layer < layers_, "KV cache: layer {} outside [0, {})", layer, layers_);
  EC_CHECK(start >= 0 && n >= 0 && start + n <= capacity_,
           "KV cache: positions [{}, {}) exceed its capacity of {} tokens", start, start + n,
           capacity_);
  const int row = kv_heads_ * head_dim_;
  for (int t = 0; t < n; ++t) {
    for (int h = 0; h < kv_heads_; ++h) {
      const size_t dst = offset(layer, h) + static_cast<size_t>(start + t) * head_dim_;
      const float* ks = k + static_cast<size_t>(t) * row + static_cast<size_t>(h) * head_dim_;
      const float* vs = v + static_cast<size_t>(t) * row + static_cast<size_t>(h) * head_dim_;
      std::copy(ks, ks + head_dim_, k_.begin() + static_cast<std::ptrdiff_t>(dst));
      std::copy(vs, vs + head_dim_, v_.begin() + static_cast<std::ptrdiff_t>(dst));
    }
  }
}

}  // namespace ec::engine::cpu
