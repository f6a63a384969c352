// The CPU reference engine: a Llama/Qwen2 forward pass over FP32 activations, an FP32 KV cache and
// CpuLinear weight matrices (whatever format make_cpu_linear picked).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "engine/cpu/kv_cache.h"
#include "engine/cpu/linear.h"
#include "engine/cpu/rope.h"
#include "engine/cpu/thread_pool.h"
#include "engine/engine.h"

namespace ec::engine::cpu {

class CpuEngine final : public Engine {
 public:
  CpuEngine(std::shared_ptr<const model::ModelWeights> weights, const EngineOptions& options);

  const EngineInfo& info() const override { return info_; }
  const model::ModelConfig& config() const override { return config_; }
  void reset() override { position_ = 0; }
  int position() const override { return position_; }
  std::span<const float> forward(std::span<const int32_t> tokens, bool all_logits) override;

 private:
  struct Layer {
    std::vector<float> attn_norm, ffn_norm;
    std::unique_ptr<CpuLinear> wq, wk, wv, wo, w_gate, w_up, w_down;
  };

  // Runs tokens at positions [position_, position_ + n) through every layer; the final-normed
  // hidden states of the tokens whose logits are wanted end up in hidden_.
  void run_chunk(std::span<const int32_t> tokens);
  void run_layer(int index, int n);

  std::shared_ptr<const model::ModelWeights> weights_;  // keeps in-place weight bytes alive
  model::ModelConfig config_;
  EngineInfo info_;
  ThreadPool pool_;
  model::Tensor embed_;  // in the dense 16-bit format; the tied lm_head reads the same bytes
  std::vector<float> final_norm_;
  std::unique_ptr<CpuLinear> lm_head_;
  std::vector<Layer> layers_;
  RopeTable rope_;
  KvCache cache_;
  int position_ = 0;

  // Activations of one chunk of tokens, FP32, reused between calls.
  std::vector<float> x_, h_, q_, k_, v_, attn_, proj_, gate_, up_;
  std::vector<float> logits_;
};

}  // namespace ec::engine::cpu
