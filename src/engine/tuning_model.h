// Which model a decode step's tuning-table entries are looked up and written under: a preset by
// its name, and a checkpoint by the name of the seed preset with its architecture, so that a
// checkpoint of TinyLlama runs TinyLlama's entries, not those of another model of the same shapes.
#pragma once

#include <string>

#include "model/config.h"

namespace ec::engine {

// config.name when it names a preset; else the name of the first preset whose architecture equals
// the config's (arch, vocabulary, hidden, intermediate and head sizes, layers, heads, KV heads,
// tied embeddings, attention bias); else config.name (the checkpoint directory).
std::string tuning_model_name(const model::ModelConfig& config);

}  // namespace ec::engine
