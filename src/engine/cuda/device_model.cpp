// upload_model(): host weights to the device in the engine's format, shape-checked; role_args().
#include "engine/cuda/device_model.cuh"

#include <algorithm>
#include <span>

#include "core/error.h"
#include "engine/cuda/cuda_check.cuh"
#include "quant/dynamic_map.h"

namespace ec::engine::cuda {
namespace {

DeviceBuffer<float> norm_to_device(const model::Tensor& t, int64_t dim) {
  EC_CHECK(t.numel() == dim, "tensor {}: {} values, expected [{}]", t.name, t.numel(), dim);
  std::vector<float> v(static_cast<size_t>(dim));
  for (int64_t i = 0; i < dim; ++i) v[static_cast<size_t>(i)] = t.at(i);
  return to_device(std::span<const float>(v));
}

}  // namespace

DeviceModel upload_model(const model::ModelWeights& w, const model::ModelConfig& c,
                         quant::Format format, cudaStream_t stream) {
  DeviceModel m;
  m.format = format;
  m.dense = format == quant::Format::bf16 ? quant::Format::bf16 : quant::Format::fp16;
  const int64_t hidden = c.hidden_size, inter = c.intermediate_size, vocab = c.vocab_size;
  const int64_t q_dim = int64_t{c.num_heads} * c.head_dim;
  const int64_t qkv_dim = q_dim + 2 * int64_t{c.num_kv_heads} * c.head_dim;
  const quant::DynamicMap& map = quant::signed_dynamic_map();
  m.dynamic_map.upload(std::span<const float>(map.data(), map.size()));

  DeviceBuffer<uint8_t> staging;
  EC_CHECK(w.embed.shape == std::vector<int64_t>({vocab, hidden}),
           "tensor {}: embedding shape must be [{}, {}]", w.embed.name, vocab, hidden);
  {
    CudaLinear converted({&w.embed}, {}, m.dense, false, nullptr, staging, stream);
    // Keep the converted table as the embedding; a tied lm_head reads the same bytes.
    const GemvArgs a = converted.decode_args();
    m.embed.resize(static_cast<size_t>(vocab * hidden));
    CUDA_CHECK(cudaMemcpy(m.embed.get(), a.seg[0].w, m.embed.bytes(), cudaMemcpyDeviceToDevice));
  }
  m.final_norm = norm_to_device(w.final_norm, hidden);
  const bool tied =
      c.tie_word_embeddings || w.lm_head.data == nullptr || w.lm_head.data == w.embed.data;
  if (tied) {
    m.lm_head = CudaLinear::borrow(m.embed.get(), c.vocab_size, c.hidden_size, m.dense);
  } else {
    EC_CHECK(w.lm_head.shape == std::vector<int64_t>({vocab, hidden}),
             "tensor {}: lm_head shape must be [{}, {}]", w.lm_head.name, vocab, hidden);
    m.lm_head = CudaLinear({&w.lm_head}, {}, m.dense, false, nullptr, staging, stream);
  }

  m.layers.reserve(w.layers.size());
  const float* dyn = m.dynamic_map.get();
  for (const auto& lw : w.layers) {
    DeviceLayer L;
    L.attn_norm = norm_to_device(lw.attn_norm, hidden);
    L.ffn_norm = norm_to_device(lw.ffn_norm, hidden);
    L.qkv = CudaLinear({&lw.wq, &lw.wk, &lw.wv}, {&lw.bq, &lw.bk, &lw.bv}, format, false, dyn,
                       staging, stream);
    L.o = CudaLinear({&lw.wo}, {}, format, false, dyn, staging, stream);
    L.gate_up = CudaLinear({&lw.w_gate, &lw.w_up}, {}, format, true, dyn, staging, stream);
    L.down = CudaLinear({&lw.w_down}, {}, format, false, dyn, staging, stream);
    EC_CHECK(L.qkv.outputs() == qkv_dim && L.qkv.cols() == hidden && L.o.cols() == q_dim &&
                 L.o.outputs() == hidden && L.gate_up.outputs() == inter &&
                 L.gate_up.cols() == hidden && L.down.cols() == inter && L.down.outputs() == hidden,
             "model {}: a layer's projection shapes do not match the config", c.name);
    for (const CudaLinear* l : {&L.qkv, &L.o, &L.gate_up, &L.down}) {
      m.max_segment_weights =
          std::max(m.max_segment_weights, int64_t{l->max_segment_rows()} * l->cols());
    }
    m.layers.push_back(std::move(L));
  }
  return m;
}

int64_t DeviceModel::decode_weight_bytes() const {
  int64_t bytes = lm_head.weight_bytes() + lm_head.cols() * 2;  // + one embedding row
  for (const DeviceLayer& L : layers) {
    bytes += L.qkv.weight_bytes() + L.o.weight_bytes() + L.gate_up.weight_bytes() +
             L.down.weight_bytes();
  }
  return bytes;
}

GemvArgs DeviceModel::role_args(DecodeRole role, int layer, double rms_norm_eps) const {
  const DeviceLayer& L = layers[static_cast<size_t>(layer)];
  GemvArgs a;
  const float* norm = nullptr;
  switch (role) {
    case kQkv:
      a = L.qkv.decode_args();
      norm = L.attn_norm.get();
      break;
    case kO:
      a = L.o.decode_args();
      break;
    case kGateUp:
      a = L.gate_up.decode_args();
      norm = L.ffn_norm.get();
      break;
    case kDown:
      a = L.down.decode_args();
      break;
    default:
      a = lm_head.decode_args();
      norm = final_norm.get();
      break;
  }
  a.norm = norm;
  a.norm_eps = norm != nullptr ? rms_norm_eps : 0.0;
  return a;
}

}  // namespace ec::engine::cuda
