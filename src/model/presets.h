// Named architectures: the five seed models with their exact Hugging Face hyper-parameters, tiny
// ones for tests, and "default", the small embedded model `make run` uses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"

namespace ec::model {

struct Preset {
  ModelConfig config;       // config.name is the preset name; config.tokenizer_family is set
  std::string source;       // the Hugging Face repo whose config.json it copies, or "synthetic"
  std::string description;  // one line for `--help` style listings
};

// nullptr when no preset has that name.
const ModelConfig* find_preset(std::string_view name);
const Preset* find_preset_entry(std::string_view name);
// All presets, in a stable order (seed models by size, then tiny ones, then "default").
const std::vector<Preset>& all_presets();
std::vector<std::string> preset_names();
// Unknown name → ec::UsageError listing the known names.
const ModelConfig& preset_or_throw(std::string_view name);

}  // namespace ec::model
