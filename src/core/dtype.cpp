// Names of element types as safetensors spells them.
#include "core/dtype.h"

namespace ec {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "F32";
    case DType::f16:
      return "F16";
    case DType::bf16:
      return "BF16";
    case DType::i8:
      return "I8";
    case DType::u8:
      return "U8";
    case DType::i32:
      return "I32";
  }
  return "?";
}

}  // namespace ec
