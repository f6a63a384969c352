// Backend-independent engine helpers: argmax, the default greedy decode step, greedy generation,
// the config check and the KV cache length.
#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "engine/engine.h"

namespace ec::engine {

int32_t argmax(std::span<const float> logits) {
  EC_CHECK(!logits.empty(), "argmax of an empty logits vector");
  size_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i) {
    // Strictly greater: the first maximum wins, as torch.argmax does.
    if (logits[i] > logits[best]) best = i;
  }
  return static_cast<int32_t>(best);
}

int32_t Engine::decode_greedy(int32_t token) {
  const int32_t one[1] = {token};
  return argmax(forward(one, false));
}

void Engine::decode_greedy_many(int32_t token, std::span<int32_t> out) {
  for (int32_t& next : out) {
    next = decode_greedy(token);
    token = next;
  }
}

std::vector<int32_t> generate_greedy(Engine& engine, std::span<const int32_t> prompt,
                                     int max_new_tokens, int32_t stop_token) {
  EC_CHECK(!prompt.empty(), "greedy generation needs a non-empty prompt");
  EC_CHECK(max_new_tokens >= 0, "max_new_tokens must be >= 0, got {}", max_new_tokens);
  std::vector<int32_t> generated;
  if (max_new_tokens == 0) return generated;
  generated.reserve(static_cast<size_t>(max_new_tokens));
  int32_t next = argmax(engine.forward(prompt, false));
  generated.push_back(next);
  while (static_cast<int>(generated.size()) < max_new_tokens && next != stop_token) {
    next = engine.decode_greedy(next);
    generated.push_back(next);
  }
  return generated;
}

const model::ModelConfig& checked_engine_config(
    const std::shared_ptr<const model::ModelWeights>& w) {
  EC_CHECK(w != nullptr, "make_engine: no weights");
  const auto& c = w->config;
  EC_CHECK(c.hidden_size > 0 && c.num_heads > 0 && c.num_kv_heads > 0 && c.head_dim > 0 &&
               c.intermediate_size > 0 && c.vocab_size > 0 && c.num_layers > 0,
           "model {}: hidden_size, heads, head_dim, intermediate_size, vocab_size and num_layers "
           "must all be positive",
           c.name);
  EC_CHECK(c.num_heads % c.num_kv_heads == 0,
           "model {}: num_attention_heads {} is not a multiple of num_key_value_heads {}", c.name,
           c.num_heads, c.num_kv_heads);
  EC_CHECK(static_cast<int>(w->layers.size()) == c.num_layers,
           "model {}: {} layers of weights, config says {}", c.name, w->layers.size(),
           c.num_layers);
  return c;
}

int kv_cache_length(const model::ModelConfig& c, const EngineOptions& options) {
  constexpr int kDefaultContextCap = 4096;
  EC_CHECK(c.max_position_embeddings > 0, "model {}: max_position_embeddings must be positive",
           c.name);
  EC_CHECK(options.max_context >= 0, "max_context must be >= 0, got {}", options.max_context);
  if (options.max_context == 0) return std::min(c.max_position_embeddings, kDefaultContextCap);
  EC_CHECK(options.max_context <= c.max_position_embeddings,
           "max_context {} exceeds the model's max_position_embeddings {} ({})",
           options.max_context, c.max_position_embeddings, c.name);
  return options.max_context;
}

}  // namespace ec::engine
