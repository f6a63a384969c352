// The CPU reference engine: embedding → N × (RMSNorm, GQA attention with RoPE, RMSNorm, SwiGLU MLP)
// → RMSNorm → lm_head, over FP32 activations and an FP32 KV cache, tokens fed in chunks.
#include "engine/cpu/cpu_engine.h"

#include <algorithm>
#include <fstream>
#include <string>

#include "core/error.h"
#include "engine/cpu/attention.h"
#include "engine/cpu/embedding.h"
#include "engine/cpu/rmsnorm.h"
#include "engine/cpu/swiglu.h"
#include "engine/cpu/tensor_convert.h"

namespace ec::engine::cpu {
namespace {

// Tokens run through the layers together: enough to reuse each widened weight block many times,
// few enough that the activations stay small whatever the prompt length.
constexpr int kChunk = 128;

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        if (!name.empty()) return name;
      }
    }
  }
  return "unknown CPU";
}

std::vector<float> norm_weight(const model::Tensor& t, int64_t dim) {
  check_shape(t, {dim});
  return tensor_to_f32(t);
}

std::unique_ptr<CpuLinear> linear(const model::Tensor& w, const std::optional<model::Tensor>& b,
                                  int64_t out, int64_t in, Precision p, ThreadPool& pool) {
  check_shape(w, {out, in});
  return make_cpu_linear(w, b, p, pool);
}

}  // namespace

CpuEngine::CpuEngine(std::shared_ptr<const model::ModelWeights> weights,
                     const EngineOptions& options)
    : weights_(std::move(weights)),
      config_(checked_engine_config(weights_)),
      pool_(options.threads),
      rope_(config_.head_dim, config_.rope_theta, kv_cache_length(config_, options)),
      cache_(config_.num_layers, config_.num_kv_heads, config_.head_dim,
             kv_cache_length(config_, options)) {
  const auto& c = config_;
  const int64_t hidden = c.hidden_size;
  const int64_t q_dim = static_cast<int64_t>(c.num_heads) * c.head_dim;
  const int64_t kv_dim = static_cast<int64_t>(c.num_kv_heads) * c.head_dim;
  const int64_t inter = c.intermediate_size;
  const int64_t vocab = c.vocab_size;

  // Embedding and lm_head stay in the 16-bit format whatever the layers use, as bitsandbytes
  // leaves them: BF16 for BF16, FP16 for everything else.
  const Precision dense = options.precision == Precision::bf16 ? Precision::bf16 : Precision::fp16;
  const DType dense_dtype = dense == Precision::bf16 ? DType::bf16 : DType::f16;

  check_shape(weights_->embed, {vocab, hidden});
  embed_ = convert_tensor(weights_->embed, dense_dtype);
  final_norm_ = norm_weight(weights_->final_norm, hidden);
  const bool tied = c.tie_word_embeddings || weights_->lm_head.data == nullptr ||
                    weights_->lm_head.data == weights_->embed.data;
  // Tied: the lm_head reads the embedding's (converted) bytes; no second copy.
  lm_head_ = linear(tied ? embed_ : weights_->lm_head, std::nullopt, vocab, hidden, dense, pool_);

  layers_.reserve(static_cast<size_t>(c.num_layers));
  for (const auto& lw : weights_->layers) {
    Layer layer;
    const Precision p = options.precision;
    layer.attn_norm = norm_weight(lw.attn_norm, hidden);
    layer.ffn_norm = norm_weight(lw.ffn_norm, hidden);
    layer.wq = linear(lw.wq, lw.bq, q_dim, hidden, p, pool_);
    layer.wk = linear(lw.wk, lw.bk, kv_dim, hidden, p, pool_);
    layer.wv = linear(lw.wv, lw.bv, kv_dim, hidden, p, pool_);
    layer.wo = linear(lw.wo, std::nullopt, hidden, q_dim, p, pool_);
    layer.w_gate = linear(lw.w_gate, std::nullopt, inter, hidden, p, pool_);
    layer.w_up = linear(lw.w_up, std::nullopt, inter, hidden, p, pool_);
    layer.w_down = linear(lw.w_down, std::nullopt, hidden, inter, p, pool_);
    layers_.push_back(std::move(layer));
  }

  info_.backend = std::string(backend_name(Backend::cpu));
  info_.precision = std::string(precision_name(options.precision));
  info_.weight_format = std::string(weight_format(options.precision));
  info_.kernel_variant = "cpu-f32acc-" + std::string(layers_.front().wq->kernel_name());
  info_.kernel_variant_choice = "fixed";
  info_.compute_dtype = "fp32";
  info_.cuda_graph = false;
  int64_t bytes = lm_head_->weight_bytes() +
                  hidden * static_cast<int64_t>(dtype_size(embed_.dtype));  // one embedding row
  for (const auto& layer : layers_) {
    for (const auto* l : {layer.wq.get(), layer.wk.get(), layer.wv.get(), layer.wo.get(),
                          layer.w_gate.get(), layer.w_up.get(), layer.w_down.get()}) {
      bytes += l->weight_bytes();
    }
  }
  info_.weight_bytes = bytes;
  info_.max_context = cache_.capacity();
  info_.threads = pool_.size();
  info_.device_name = cpu_model_name();
  info_.device_arch = "cpu";
}

std::span<const float> CpuEngine::forward(std::span<const int32_t> tokens, bool all_logits) {
  const int n = static_cast<int>(tokens.size());
  EC_CHECK(n > 0, "forward: no tokens");
  if (static_cast<int64_t>(position_) + n > cache_.capacity()) {
    fail(
        "forward: {} new tokens at position {} exceed the KV cache of max_context {} tokens "
        "(reset() the engine or raise max_context)",
        n, position_, cache_.capacity());
  }
  for (int i = 0; i < n; ++i) {
    EC_CHECK(tokens[i] >= 0 && tokens[i] < config_.vocab_size,
             "forward: token id {} at index {} is outside the vocabulary [0, {})", tokens[i], i,
             config_.vocab_size);
  }
  const int64_t vocab = config_.vocab_size;
  const int64_t hidden = config_.hidden_size;
  logits_.resize(static_cast<size_t>(all_logits ? n * vocab : vocab));
  for (int c = 0; c < n; c += kChunk) {
    const int len = std::min(kChunk, n - c);
    run_chunk(tokens.subspan(c, len));
    if (all_logits) {
      lm_head_->forward(h_.data(), len, logits_.data() + c * vocab);
    } else if (c + len == n) {
      lm_head_->forward(h_.data() + (len - 1) * hidden, 1, logits_.data());
    }
  }
  return logits_;
}

void CpuEngine::run_chunk(std::span<const int32_t> tokens) {
  const auto& c = config_;
  const int n = static_cast<int>(tokens.size());
  const auto tokens_times = [n](int64_t width) { return static_cast<size_t>(n * width); };
  x_.resize(tokens_times(c.hidden_size));
  h_.resize(x_.size());
  proj_.resize(x_.size());
  q_.resize(tokens_times(int64_t{c.num_heads} * c.head_dim));
  attn_.resize(q_.size());
  k_.resize(tokens_times(int64_t{c.num_kv_heads} * c.head_dim));
  v_.resize(k_.size());
  gate_.resize(tokens_times(c.intermediate_size));
  up_.resize(gate_.size());

  embedding_lookup(embed_, tokens, x_.data());
  for (int l = 0; l < c.num_layers; ++l) run_layer(l, n);
  position_ += n;
  rmsnorm(x_.data(), final_norm_.data(), n, c.hidden_size, c.rms_norm_eps, h_.data());
}

void CpuEngine::run_layer(int index, int n) {
  const auto& c = config_;
  const Layer& L = layers_[static_cast<size_t>(index)];
  const int64_t hidden = c.hidden_size;
  const int64_t q_dim = int64_t{c.num_heads} * c.head_dim;
  const int64_t kv_dim = int64_t{c.num_kv_heads} * c.head_dim;

  rmsnorm(x_.data(), L.attn_norm.data(), n, hidden, c.rms_norm_eps, h_.data());
  L.wq->forward(h_.data(), n, q_.data());
  L.wk->forward(h_.data(), n, k_.data());
  L.wv->forward(h_.data(), n, v_.data());
  for (int t = 0; t < n; ++t) {
    // Position ids are cache positions: the chunk continues where the cache ends.
    rope_.apply(q_.data() + t * q_dim, c.num_heads, position_ + t);
    rope_.apply(k_.data() + t * kv_dim, c.num_kv_heads, position_ + t);
  }
  cache_.store(index, position_, n, k_.data(), v_.data());
  attention(q_.data(), cache_, index, c.num_heads, position_, n, attn_.data(), pool_);
  L.wo->forward(attn_.data(), n, proj_.data());
  for (size_t i = 0; i < x_.size(); ++i) x_[i] += proj_[i];

  rmsnorm(x_.data(), L.ffn_norm.data(), n, hidden, c.rms_norm_eps, h_.data());
  L.w_gate->forward(h_.data(), n, gate_.data());
  L.w_up->forward(h_.data(), n, up_.data());
  swiglu(gate_.data(), up_.data(), static_cast<int64_t>(gate_.size()), gate_.data());
  L.w_down->forward(gate_.data(), n, proj_.data());
  for (size_t i = 0; i < x_.size(); ++i) x_[i] += proj_[i];
}

}  // namespace ec::engine::cpu
