// Fuzz entry point for config.json: parse_hf_config from a file, then what callers rely on.
#pragma once

#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "fuzz_support.h"
#include "model/config.h"

namespace ec::fuzz {

// An accepted config has the invariants the engine assumes, a parameter count that does not
// overflow, and survives to_hf_config → parse_hf_config unchanged.
inline void config_one_input(std::span<const uint8_t> bytes) {
  const MemFile file(bytes);
  model::ModelConfig c;
  try {
    c = model::parse_hf_config(file.path());
  } catch (const ec::Error&) {
    return;
  }
  expect(c.vocab_size > 0 && c.hidden_size > 0 && c.intermediate_size > 0 && c.num_layers > 0 &&
             c.num_heads > 0 && c.num_kv_heads > 0 && c.head_dim > 0 &&
             c.max_position_embeddings > 0,
         "accepted a non-positive dimension");
  expect(c.num_heads % c.num_kv_heads == 0, "num_kv_heads does not divide num_heads");
  expect(c.head_dim % 2 == 0, "accepted an odd head_dim");
  expect(c.rms_norm_eps > 0 && c.rope_theta > 0, "accepted a non-positive eps or theta");
  expect(c.bos_token_id < c.vocab_size && c.eos_token_id < c.vocab_size,
         "special token id beyond the vocabulary");
  expect(c.parameter_count() > 0, "non-positive parameter count");

  const model::ModelConfig again = model::parse_hf_config(model::to_hf_config(c), c.name);
  expect(again.arch == c.arch && again.vocab_size == c.vocab_size &&
             again.hidden_size == c.hidden_size && again.intermediate_size == c.intermediate_size &&
             again.num_layers == c.num_layers && again.num_heads == c.num_heads &&
             again.num_kv_heads == c.num_kv_heads && again.head_dim == c.head_dim &&
             again.max_position_embeddings == c.max_position_embeddings &&
             again.rms_norm_eps == c.rms_norm_eps && again.rope_theta == c.rope_theta &&
             again.tie_word_embeddings == c.tie_word_embeddings &&
             again.attention_bias == c.attention_bias && again.bos_token_id == c.bos_token_id &&
             again.eos_token_id == c.eos_token_id,
         "to_hf_config → parse_hf_config changed the config");
}

}  // namespace ec::fuzz
