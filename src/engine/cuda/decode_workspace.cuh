// What the engine computes in, besides the weights: the fp16 KV cache, the RoPE tables, FP32
// activations for one prefill chunk (a decode step uses their first row), the token and position
// the decode graph reads from device memory, the argmax scratch, and the mapped host memory the
// host exchanges tokens through without copies.
#pragma once

#include <cstdint>

#include "engine/cuda/attention.cuh"
#include "engine/cuda/attention_decode.cuh"
#include "engine/cuda/device_buffer.cuh"
#include "engine/cuda/linear.cuh"
#include "engine/cuda/mapped_host_buffer.cuh"
#include "engine/cuda/rope.cuh"
#include "model/config.h"
#include "quant/format.h"

namespace ec::engine::cuda {

inline constexpr int kPrefillChunk = 256;   // tokens per prefill pass
inline constexpr int kPartialSlots = 1024;  // ≥ tokens × splits of any attention launch

struct DecodeWorkspace {
  // Allocates for `capacity` KV positions; `max_segment_weights` sizes the dequantization scratch
  // of the quantized formats' prefill.
  DecodeWorkspace(const model::ModelConfig& config, int capacity, quant::Format format,
                  int64_t max_segment_weights);

  // The RoPE + KV-store and attention arguments of layer l for n_tokens tokens at *pos.
  RopeStoreArgs rope_store_args(int l, int n_tokens);
  AttentionArgs attention_args(int l, int n_tokens, int splits);
  DecodeAttentionArgs decode_attention_args(int l, int splits);
  uint16_t* k_layer(int l);
  uint16_t* v_layer(int l);

  const model::ModelConfig& config;
  int capacity = 0;
  int q_dim = 0, kv_dim = 0, qkv_dim = 0;
  float attn_scale = 0.0f;
  DeviceBuffer<float> rope_cos, rope_sin;
  DeviceBuffer<uint16_t> k_cache, v_cache;
  DeviceBuffer<float> x, h, qkv, attn, act, logits;
  // A decode step's SwiGLU activation as fp16 bits, where down_proj's format takes x in fp16
  // (INT8-WO: gate_up writes it rounded, down_proj copies it; GemvArgs::x_half).
  DeviceBuffer<uint16_t> act_half;
  DeviceBuffer<float> attn_partial;
  DeviceBuffer<unsigned> attn_counters;
  DeviceBuffer<int32_t> tokens;  // prefill's tokens; [0] is a decode step's input and output
  DeviceBuffer<int> pos;         // the next position to write
  DeviceBuffer<float> arg_value;
  DeviceBuffer<int> arg_index;
  DeviceBuffer<unsigned> arg_counter;
  PrefillScratch scratch;
  MappedHostBuffer<int32_t> host_io;  // [0] a token the host feeds, [1] a position to set
  // host_log[p]: the argmax of the decode step that read position p, stored by the argmax kernel.
  MappedHostBuffer<int32_t> host_log;
};

}  // namespace ec::engine::cuda
