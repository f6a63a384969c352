// The weight formats by name (one enum for quant, the engine's precisions and the kernels), and the
// input check every quantizer runs first.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ec::quant {

// fp16 and bf16 are the 16-bit weights as loaded. int8-llm and int8-wo share one weight layout
// (Int8RowwiseTensor); the name records which kernel reads it. nf4 and nf4-dq share the packed
// codes and differ in how the block absmax is stored. engine::Precision is this enum.
enum class Format { fp16, bf16, int8_llm, int8_wo, nf4, nf4_dq };

// "fp16", "bf16", "int8-llm", "int8-wo", "nf4", "nf4-dq" (the names reports carry as
// weight_format).
std::string_view format_name(Format format);

// True for the formats a quantizer produces (int8-llm, int8-wo, nf4, nf4-dq).
constexpr bool is_quantized(Format format) {
  return format != Format::fp16 && format != Format::bf16;
}

// Largest magnitude a quantizer takes. Dequantization overflows float near FLT_MAX (int8 computes
// q · absmax before the 1/127, nf4-dq code · scale + offset); real fp16/bf16 weights are far below.
inline constexpr float kMaxQuantizableMagnitude = 1e36f;

// Throws ec::Error naming `tensor_name` and the first offending element (index, and row/column
// when cols > 0) when any value is NaN or ±Inf: no format can represent them, and one NaN would
// poison a whole block's or row's scale. Finite values above kMaxQuantizableMagnitude likewise.
void require_finite(std::span<const float> values, int64_t cols, std::string_view tensor_name);

// Largest rows or cols a quantizer takes (the largest real dimension, a vocabulary, is ~256k):
// per-row and per-column tables are sized by them, even for an empty [rows, 0] tensor.
inline constexpr int64_t kMaxQuantizedDim = int64_t{1} << 24;

// True when 0 <= rows, cols <= kMaxQuantizedDim and rows × cols == count, computed without
// overflow: a hostile [rows, cols] pair must not wrap around to the count (signed overflow is
// undefined behaviour) nor size a table of 10^16 scales for no data.
bool shape_has_count(int64_t rows, int64_t cols, size_t count);

}  // namespace ec::quant
