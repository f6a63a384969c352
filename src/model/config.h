// Model hyper-parameters: parsed from a Hugging Face config.json (Llama, Qwen2) or taken from a
// preset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace ec::model {

enum class Arch { llama, qwen2 };

struct ModelConfig {
  std::string name;  // preset name, or the checkpoint directory
  Arch arch = Arch::llama;
  int vocab_size = 0;
  int hidden_size = 0;
  int intermediate_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;  // hidden_size / num_heads unless the config says otherwise
  int max_position_embeddings = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  bool tie_word_embeddings = false;
  bool attention_bias = false;  // Qwen2: q/k/v projections carry a bias
  int bos_token_id = -1;        // -1 when the config has none
  int eos_token_id = -1;
  // Which tokenizer a preset pairs with: "qwen2", "llama2" or "bytes" (one token per byte).
  // Empty for checkpoints, which bring their own tokenizer.json.
  std::string tokenizer_family;

  // Number of parameters (embedding and lm_head counted once when tied), and in billions.
  int64_t parameter_count() const;
  double params_b() const { return static_cast<double>(parameter_count()) / 1e9; }
};

std::string_view arch_name(Arch a);  // "llama", "qwen2"

// Parses config.json; every missing or mistyped field is an ec::Error naming the file and the
// field.
ModelConfig parse_hf_config(const std::filesystem::path& config_json);
ModelConfig parse_hf_config(const nlohmann::json& config, const std::string& source_name);

// The config.json a Hugging Face library would write for this config (used by the safetensors
// writer and by tests that build checkpoints).
nlohmann::json to_hf_config(const ModelConfig& config);

}  // namespace ec::model
