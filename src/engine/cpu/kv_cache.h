// The FP32 key/value cache of the CPU engine: per layer and KV head, positions are contiguous so
// one head's attention streams its keys and values in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ec::engine::cpu {

class KvCache {
 public:
  KvCache(int layers, int kv_heads, int head_dim, int capacity);

  int capacity() const { return capacity_; }
  int kv_heads() const { return kv_heads_; }
  int head_dim() const { return head_dim_; }

  // Stores n tokens' keys and values ([n, kv_heads * head_dim] each) at positions [start, start+n).
  void store(int layer, int start, int n, const float* k, const float* v);

  // [capacity, head_dim] of one layer and KV head.
  const float* keys(int layer, int kv_head) const { return k_.data() + offset(layer, kv_head); }
  const float* values(int layer, int kv_head) const { return v_.data() + offset(layer, kv_head); }

  int64_t bytes() const { return static_cast<int64_t>((k_.size() + v_.size()) * sizeof(float)); }

 private:
  size_t offset(int layer, int kv_head) const {
    return (static_cast<size_t>(layer) * kv_heads_ + kv_head) * capacity_ * head_dim_;
  }
  int layers_, kv_heads_, head_dim_, capacity_;
  std::vector<float> k_, v_;
};

}  // namespace ec::engine::cpu
