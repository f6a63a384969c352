// The quantized weight formats by name, and the input check every quantizer runs first.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ec::quant {

// int8-llm and int8-wo share one weight layout (Int8RowwiseTensor); the name records which kernel
// reads it. nf4 and nf4-dq share the packed codes and differ in how the block absmax is stored.
enum class Format { int8_llm, int8_wo, nf4, nf4_dq };

// "int8-llm", "int8-wo", "nf4", "nf4-dq" (the names reports carry as weight_format).
std::string_view format_name(Format format);

// Throws ec::Error naming `tensor_name` and the first non-finite element (index, and row/column
// when cols > 0) when any value is NaN or ±Inf: no format can represent them, and one NaN would
// poison a whole block's or row's scale.
void require_finite(std::span<const float> values, int64_t cols, std::string_view tensor_name);

}  // namespace ec::quant
