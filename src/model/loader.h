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

}  // namespace ec::model
