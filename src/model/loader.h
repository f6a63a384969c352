// One entry point for "which model": a checkpoint directory or a preset name (synthetic weights).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "core/dtype.h"
#include "model/weights.h"

namespace ec::model {

// An existing directory → load_checkpoint; else a preset name → make_synthetic_weights(seed);
// else ec::UsageError naming the argument and listing the presets.
std::shared_ptr<const ModelWeights> load_model(std::string_view preset_or_dir, uint64_t seed,
                                               DType synthetic_dtype = DType::f16);

// What load_model would load, checked in well under a second without reading weights: a preset's
// configuration, or a checkpoint directory's parsed config.json once its weights file (or shard
// index) is known to exist. Throws what load_model throws for a name that is neither.
ModelConfig check_model(std::string_view preset_or_dir);

}  // namespace ec::model
