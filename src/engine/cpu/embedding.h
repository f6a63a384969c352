// Token embedding lookup: rows of the [vocab, hidden] table widened to FP32.
#pragma once

#include <cstdint>
#include <span>

#include "model/weights.h"

namespace ec::engine::cpu {

// out[t, :] = table[tokens[t], :] for every t; table is f32, f16 or bf16 (aligned). A token outside
// [0, vocab) → ec::Error naming the token, its index and the vocabulary size.
void embedding_lookup(const model::Tensor& table, std::span<const int32_t> tokens, float* out);

}  // namespace ec::engine::cpu
