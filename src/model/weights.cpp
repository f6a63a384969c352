// Tensor helpers: element count and a slow, type-converting element read.
#include "model/weights.h"

#include <cstring>

#include "core/error.h"
#include "core/half.h"

namespace ec::model {

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

float Tensor::at(int64_t i) const {
  EC_CHECK(i >= 0 && static_cast<size_t>(i) < nbytes / dtype_size(dtype),
           "tensor '{}': element {} out of range ({} elements)", name, i,
           nbytes / dtype_size(dtype));
  // memcpy: tensors inside a safetensors file need not be aligned to their element size.
  const std::byte* p = data + static_cast<size_t>(i) * dtype_size(dtype);
  switch (dtype) {
    case DType::f32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::f16:
    case DType::bf16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return dtype == DType::f16 ? half_to_float(v) : bf16_to_float(v);
    }
    default:
      fail("tensor '{}': at() reads f32/f16/bf16 only, not {}", name, dtype_name(dtype));
  }
}

}  // namespace ec::model
