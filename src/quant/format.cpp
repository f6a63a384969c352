// Format names and the finite-input check shared by every quantizer.
#include "quant/format.h"

#include <cmath>

#include "core/error.h"

namespace ec::quant {

std::string_view format_name(Format format) {
  switch (format) {
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

void require_finite(std::span<const float> values, int64_t cols, std::string_view tensor_name) {
  for (size_t i = 0; i < values.size(); ++i) {
    const float v = values[i];
    if (std::isfinite(v)) continue;
    const char* what = std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf");
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
