// The model name a tuning table's entries are keyed by: a preset's, or a checkpoint's preset of
// the same architecture.
#include "engine/tuning_model.h"

#include <tuple>

#include "model/presets.h"

namespace ec::engine {
namespace {

auto architecture(const model::ModelConfig& c) {
  return std::tie(c.arch, c.vocab_size, c.hidden_size, c.intermediate_size, c.num_layers,
                  c.num_heads, c.num_kv_heads, c.head_dim, c.tie_word_embeddings, c.attention_bias);
}

}  // namespace

std::string tuning_model_name(const model::ModelConfig& config) {
  if (model::find_preset(config.name) != nullptr) return config.name;
  for (const model::Preset& p : model::all_presets()) {
    if (architecture(p.config) == architecture(config)) return p.config.name;
  }
  return config.name;
}

}  // namespace ec::engine
