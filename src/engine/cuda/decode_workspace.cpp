// DecodeWorkspace: its allocation, and the attention kernels' arguments over it.
#include "engine/cuda/decode_workspace.cuh"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "engine/cuda/argmax.cuh"
#include "engine/cuda/cuda_check.cuh"

namespace ec::engine::cuda {
namespace {

size_t sz(int64_t n) {
  return static_cast<size_t>(n);
}

}  // namespace

DecodeWorkspace::DecodeWorkspace(const model::ModelConfig& c, int kv_capacity, quant::Format format,
                                 int64_t max_segment_weights)
    : config(c), capacity(kv_capacity) {
  q_dim = c.num_heads * c.head_dim;
  kv_dim = c.num_kv_heads * c.head_dim;
  qkv_dim = q_dim + 2 * kv_dim;
  attn_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
  const int64_t hidden = c.hidden_size, inter = c.intermediate_size, vocab = c.vocab_size;

  std::vector<float> cos, sin;
  rope_tables(c.head_dim, c.rope_theta, capacity, cos, sin);
  rope_cos.upload(std::span<const float>(cos));
  rope_sin.upload(std::span<const float>(sin));
  k_cache.resize(sz(c.num_layers) * sz(kv_dim) * sz(capacity));
  v_cache.resize(k_cache.size());

  const int64_t chunk = kPrefillChunk;
  x.resize(sz(chunk * hidden));
  h.resize(sz(chunk * hidden));
  qkv.resize(sz(chunk * qkv_dim));
  attn.resize(sz(chunk * q_dim));
  act.resize(sz(chunk * inter));
  act_half.resize(sz(inter));
  logits.resize(sz(chunk * vocab));
  attn_partial.resize(attention_partial_floats(kPartialSlots, c.num_heads, c.head_dim, 1));
  attn_counters.resize(sz(chunk * c.num_kv_heads));
  CUDA_CHECK(cudaMemset(attn_counters.get(), 0, attn_counters.bytes()));
  tokens.resize(sz(chunk));
  host_io = MappedHostBuffer<int32_t>(2);
  host_log = MappedHostBuffer<int32_t>(sz(capacity));
  pos.resize(1);
  arg_value.resize(kArgmaxBlocks);
  arg_index.resize(kArgmaxBlocks);
  arg_counter.resize(1);
  CUDA_CHECK(cudaMemset(arg_counter.get(), 0, arg_counter.bytes()));
  CUDA_CHECK(cudaMemset(pos.get(), 0, pos.bytes()));
  CUDA_CHECK(cudaMemset(tokens.get(), 0, tokens.bytes()));
  const int64_t widest = std::max({hidden, inter, int64_t{q_dim}});
  scratch.x16.resize(sz(chunk * widest));
  if (quant::is_quantized(format)) scratch.w16.resize(sz(max_segment_weights));
  scratch.gate.resize(sz(chunk * inter));
  scratch.up.resize(sz(chunk * inter));
  scratch.mask.resize(sz((widest + 31) / 32));
}

uint16_t* DecodeWorkspace::k_layer(int l) {
  return k_cache.get() + sz(l) * sz(kv_dim) * sz(capacity);
}

uint16_t* DecodeWorkspace::v_layer(int l) {
  return v_cache.get() + sz(l) * sz(kv_dim) * sz(capacity);
}

RopeStoreArgs DecodeWorkspace::rope_store_args(int l, int n_tokens) {
  RopeStoreArgs r;
  r.qkv = qkv.get();
  r.stride = qkv_dim;
  r.n_tokens = n_tokens;
  r.n_heads = config.num_heads;
  r.kv_heads = config.num_kv_heads;
  r.head_dim = config.head_dim;
  r.start = pos.get();
  r.cos = rope_cos.get();
  r.sin = rope_sin.get();
  r.k_cache = k_layer(l);
  r.v_cache = v_layer(l);
  r.capacity = capacity;
  return r;
}

AttentionArgs DecodeWorkspace::attention_args(int l, int n_tokens, int splits) {
  AttentionArgs at;
  at.q = qkv.get();
  at.q_stride = qkv_dim;
  at.k_cache = k_layer(l);
  at.v_cache = v_layer(l);
  at.capacity = capacity;
  at.n_heads = config.num_heads;
  at.kv_heads = config.num_kv_heads;
  at.head_dim = config.head_dim;
  at.n_tokens = n_tokens;
  at.start = pos.get();
  at.scale = attn_scale;
  at.out = attn.get();
  at.partial = attn_partial.get();
  at.counters = attn_counters.get();
  at.splits = splits;
  return at;
}

DecodeAttentionArgs DecodeWorkspace::decode_attention_args(int l, int splits) {
  DecodeAttentionArgs at;
  at.qkv = qkv.get();
  at.n_heads = config.num_heads;
  at.kv_heads = config.num_kv_heads;
  at.head_dim = config.head_dim;
  at.start = pos.get();
  at.cos = rope_cos.get();
  at.sin = rope_sin.get();
  at.k_cache = k_layer(l);
  at.v_cache = v_layer(l);
  at.capacity = capacity;
  at.scale = attn_scale;
  at.out = attn.get();
  at.splits = splits;
  return at;
}

}  // namespace ec::engine::cuda
