// Seeded synthetic weights for any architecture, scaled like trained weights (see synthetic.cpp).
#pragma once

#include <cstdint>
#include <memory>

#include "core/dtype.h"
#include "model/weights.h"

namespace ec::model {

// Deterministic for (config, seed, dtype) whatever the thread count; dtype is f32, f16 or bf16.
std::shared_ptr<const ModelWeights> make_synthetic_weights(const ModelConfig& config, uint64_t seed,
                                                           DType dtype = DType::f16);

}  // namespace ec::model
