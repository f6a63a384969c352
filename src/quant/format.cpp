// Format names and the finite-input check shared by every quantizer.
#include "quant/format.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace ec::quant {

std::string_view format_name(Format format) {
  switch (format) {
    case Format::fp16:
      return "fp16";
    case Format::bf16:
      return "bf16";
    case Format::int8_llm:
      return "int8-llm";
    case Format::int8_wo:
      return "int8-wo";
    case Format::nf4:
      return "nf4";
    case Format::nf4_dq:
      return "nf4-dq";
  }
  return "unknown";
}

bool shape_has_count(int64_t rows, int64_t cols, size_t count) {
  int64_t product = 0;
  return rows >= 0 && cols >= 0 && rows <= kMaxQuantizedDim && cols <= kMaxQuantizedDim &&
         !__builtin_mul_overflow(rows, cols, &product) && static_cast<uint64_t>(product) == count;
}

void require_finite(std::span<const float> values, int64_t cols, std::string_view tensor_name) {
  for (size_t i = 0; i < values.size(); ++i) {
    const float v = values[i];
    if (std::fabs(v) <= kMaxQuantizableMagnitude) continue;  // false for NaN
    const std::string what = std::isnan(v) ? "NaN"
                             : std::isinf(v)
                                 ? (v > 0 ? "+Inf" : "-Inf")
                                 : fmt::format("{} (above {})", v, kMaxQuantizableMagnitude);
    const auto index = static_cast<int64_t>(i);
    if (cols > 0) {
      fail("tensor '{}': element {} (row {}, column {}) is {}; quantization needs finite values",
           tensor_name, index, index / cols, index % cols, what);
    }
    fail("tensor '{}': element {} is {}; quantization needs finite values", tensor_name, index,
         what);
  }
}

}  // namespace ec::quant
