// Token embedding lookup: rows of the [vocab, hidden] table widened to FP32.
#include "engine/cpu/embedding.h"

#include <cstring>

#include "core/error.h"
#include "engine/cpu/half_convert.h"

namespace ec::engine::cpu {

void embedding_lookup(const model::Tensor& table, std::span<const int32_t> tokens, float* out) {
  EC_CHECK(table.shape.size() == 2, "tensor {}: an embedding table must be 2-D [vocab, hidden]",
           table.name);
  const int64_t vocab = table.shape[0];
  const int64_t hidden = table.shape[1];
  for (size_t t = 0; t < tokens.size(); ++t) {
    const int64_t id = tokens[t];
    EC_CHECK(id >= 0 && id < vocab, "token id {} at index {} is outside the vocabulary [0, {})", id,
             t, vocab);
    float* dst = out + static_cast<int64_t>(t) * hidden;
    const std::byte* row = table.data + id * hidden * static_cast<int64_t>(dtype_size(table.dtype));
    switch (table.dtype) {
      case DType::f32:
        std::memcpy(dst, row, static_cast<size_t>(hidden) * sizeof(float));
        break;
      case DType::f16:
        f16_to_f32_row(reinterpret_cast<const uint16_t*>(row), dst, hidden);
        break;
      case DType::bf16:
        bf16_to_f32_row(reinterpret_cast<const uint16_t*>(row), dst, hidden);
        break;
      default:
        fail("tensor {}: embedding dtype {} is not F32, F16 or BF16", table.name,
             dtype_name(table.dtype));
    }
  }
}

}  // namespace ec::engine::cpu
