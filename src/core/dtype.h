// Element types of stored tensors and their sizes.
#pragma once

#include <cstddef>
#include <string_view>

namespace ec {

enum class DType { f32, f16, bf16, i8, u8, i32 };

constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f16:
    case DType::bf16:
      return 2;
    case DType::i8:
    case DType::u8:
      return 1;
  }
  return 0;
}

// The safetensors spelling: "F32", "F16", "BF16", "I8", "U8", "I32".
std::string_view dtype_name(DType t);

}  // namespace ec
