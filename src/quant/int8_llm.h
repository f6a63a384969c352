// LLM.int8() activation side and the reference mixed-precision matmul, following bitsandbytes'
// inference path (transformers load_in_8bit=True, threshold 6.0) operation by operation.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "quant/int8_rowwise.h"

namespace ec::quant {

// transformers' BitsAndBytesConfig default llm_int8_threshold.
inline constexpr float kLlmInt8Threshold = 6.0f;
// bnb's kdequant_mm_int32_fp16 constant, written as 1/(127·127) there.
inline constexpr float kMmDequantConst = 6.200012e-05f;
// The most input features an int8 x int8 -> int32 dot product can sum without overflow: every
// product is at most 127² = 16,129 in magnitude, and 133,144 · 16,129 ≤ 2³¹ − 1 < 133,145 · 16,129.
// bitsandbytes accumulates in int32 as well; wider layers are refused rather than wrapped.
inline constexpr int64_t kLlmInt8MaxFeatures = 133144;

// The activations X [rows, cols] as bnb's int8_vectorwise_quant returns them.
struct Int8Activations {
  int64_t rows = 0;
  int64_t cols = 0;
  float threshold = kLlmInt8Threshold;  // as compared: rounded to fp16 like the activations
  std::vector<uint16_t> x_f16;          // X rounded to fp16 (bits): what bnb receives
  std::vector<int8_t> codes;            // CA [rows, cols]; every element of an outlier column is 0
  std::vector<float> row_absmax;        // SCA [rows]: absmax over |x| < threshold (0 if none)
  std::vector<int64_t> outlier_cols;    // ascending; columns where any row has |x| ≥ threshold
};

// X is rounded to fp16 first (bnb runs on A.to(float16)), so every comparison below is on fp16
// values: 5.9999f becomes 6.0 and is an outlier; 5.99609375, the largest fp16 below 6, is not.
// threshold == 0 disables the decomposition (absmax over all elements, no outlier columns), as in
// bnb. NaN/Inf in X → ec::Error naming `name`.
Int8Activations quantize_activations_llm_int8(std::span<const float> x, int64_t rows, int64_t cols,
                                              float threshold, std::string_view name);

// Y [n_tokens, w.rows] = LLM.int8()(X, W) + bias, the values bnb's fp16 output holds (as floats):
//   main[t,j] = fp16( fma( C[t,j] · SCA[t] · SCB[j], 1/127², bias16[j] ) ),  C = Σ_k CA·CB in int32
//   y[t,j]    = fp16( main[t,j] + Σ_{k ∈ outlier cols} x16[t,k] · w16[j,k] )   (fp32 accumulation)
// with w16[j,k] = fp16((CB[j,k] · SCB[j]) · (1/127)): the outlier weights are rebuilt from the int8
// weights (there are no fp16 weights) and rounded to fp16, as bnb's int8_mixed_scaled_mm does.
// Outlier columns are found over the whole batch, as in bnb: a token's result can change when
// another token in the same call has an outlier in a column it does not.
// `bias` is empty or [w.rows] (rounded to fp16, as the model's bias is).
std::vector<float> int8_llm_matmul_reference(std::span<const float> x, int64_t n_tokens,
                                             const Int8RowwiseTensor& w,
                                             std::span<const float> bias = {},
                                             float threshold = kLlmInt8Threshold);

}  // namespace ec::quant
