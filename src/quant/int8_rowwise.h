// Row-wise (per output channel) absmax int8 weights: the layout LLM.int8() (int8-llm) and
// weight-only INT8 (int8-wo) share, byte for byte as docs/formats.md describes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quant/format.h"

namespace ec::quant {

// 1/127 as bnb's int8_vectorwise_dequant writes it (7.874015718698502e-3), rounded to float.
inline constexpr float kInv127 = 7.874015718698502e-3f;

struct Int8RowwiseTensor {
  Format format = Format::int8_llm;  // int8_llm or int8_wo
  std::string name;                  // the source tensor, for error messages
  int64_t rows = 0;                  // output features
  int64_t cols = 0;                  // input features
  std::vector<int8_t> codes;         // CB [rows, cols] row-major, in [-127, 127]
  std::vector<float> scales;         // SCB [rows]: absmax of each row (0 for an all-zero row)

  int64_t numel() const { return rows * cols; }
  // codes + scales, the bytes a kernel reads.
  int64_t storage_bytes() const { return rows * cols + 4 * rows; }
  double bits_per_weight() const;
};

// CB = round_half_even(w · (127 / absmax_row)), SCB = absmax_row, as bnb's kInt8VectorQuant.
// An all-zero row gets SCB = 0 and codes 0 (no division happens). `w` is [rows, cols] row-major;
// NaN/Inf (or |w| > kMaxQuantizableMagnitude) → ec::Error naming `name`. `format` must be
// int8_llm or int8_wo.
Int8RowwiseTensor quantize_int8_rowwise(std::span<const float> w, int64_t rows, int64_t cols,
                                        std::string_view name, Format format = Format::int8_llm);

// One weight back in float: (q · SCB) · (1/127), the order bnb's int8_vectorwise_dequant uses.
inline float int8_dequant_value(int8_t q, float scale) {
  return static_cast<float>(q) * scale * kInv127;
}

// The whole tensor back, [rows, cols] row-major.
std::vector<float> dequantize_int8_rowwise(const Int8RowwiseTensor& tensor);

// Quantizes one row of `n` values with the given absmax (> 0) into `out`; shared with the
// activation side of LLM.int8(), which excludes outliers from the absmax.
void quantize_int8_row(const float* x, int64_t n, float absmax, int8_t* out);

}  // namespace ec::quant
