// LLM.int8(): outlier-aware activation quantization and the reference int8 + fp16 matmul.
#include "quant/int8_llm.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/half.h"

namespace ec::quant {

// References: bitsandbytes backends/cuda/ops.py (int8_vectorwise_quant: outlier_cols from
// A.abs() >= threshold, then out_row[:, outlier_cols] = 0), csrc int8.cu (kInt8VectorQuant with
// SPARSE_DECOMP: absmax over |x| < threshold, outliers written as 0; kdequant_mm_int32_fp16),
// backends/default/ops.py (int8_mixed_scaled_mm: output.addmm(A[:, cols], dequant(CB[:, cols])ᵀ)).
Int8Activations quantize_activations_llm_int8(std::span<const float> x, int64_t rows, int64_t cols,
                                              float threshold, std::string_view name) {
  EC_CHECK(shape_has_count(rows, cols, x.size()), "tensor '{}': {} values given for shape [{}, {}]",
           name, x.size(), rows, cols);
  EC_CHECK(cols <= kLlmInt8MaxFeatures,
           "tensor '{}': {} input features; LLM.int8() sums int8 products in int32, which holds at "
           "most {} features",
           name, cols, kLlmInt8MaxFeatures);
  EC_CHECK(std::isfinite(threshold) && threshold >= 0.0f,
           "tensor '{}': LLM.int8() threshold must be finite and >= 0, got {}", name, threshold);
  require_finite(x, cols, name);

  Int8Activations a;
  a.rows = rows;
  a.cols = cols;
  a.threshold = half_to_float(float_to_half(threshold));
  const bool decompose = a.threshold > 0.0f;
  a.x_f16.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) a.x_f16[i] = float_to_half(x[i]);
  EC_CHECK(std::none_of(a.x_f16.begin(), a.x_f16.end(),
                        [](uint16_t h) { return (h & 0x7fffu) == 0x7c00u; }),
           "tensor '{}': a value overflows fp16 (|x| > 65504); LLM.int8() runs on fp16 activations",
           name);

  std::vector<bool> is_outlier_col(static_cast<size_t>(cols), false);
  a.codes.assign(x.size(), 0);
  a.row_absmax.assign(static_cast<size_t>(rows), 0.0f);
  std::vector<float> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    float absmax = 0.0f;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = half_to_float(a.x_f16[r * cols + c]);
      const float mag = std::fabs(v);
      if (decompose && mag >= a.threshold) {
        is_outlier_col[c] = true;
        row[c] = 0.0f;  // outliers are written as 0 and kept out of the absmax
      } else {
        row[c] = v;
        absmax = std::max(absmax, mag);
      }
    }
    a.row_absmax[r] = absmax;
    // A row with nothing below the threshold (or all zeros) keeps absmax 0 and codes 0; bnb would
    // produce the same zeros through a NaN scale, we never divide by zero.
    if (absmax > 0.0f) quantize_int8_row(row.data(), cols, absmax, a.codes.data() + r * cols);
  }
  for (int64_t c = 0; c < cols; ++c) {
    if (!is_outlier_col[c]) continue;
    a.outlier_cols.push_back(c);
    // The whole column goes through fp16, so its int8 part must be 0 in every row.
    for (int64_t r = 0; r < rows; ++r) a.codes[r * cols + c] = 0;
  }
  return a;
}

std::vector<float> int8_llm_matmul_reference(std::span<const float> x, int64_t n_tokens,
                                             const Int8RowwiseTensor& w,
                                             std::span<const float> bias, float threshold) {
  EC_CHECK(bias.empty() || static_cast<int64_t>(bias.size()) == w.rows,
           "tensor '{}': bias has {} values, expected {}", w.name, bias.size(), w.rows);
  const Int8Activations a =
      quantize_activations_llm_int8(x, n_tokens, w.cols, threshold, w.name + " (input)");

  // The outlier weights, rebuilt as bnb does: int8_vectorwise_dequant(CB[:, cols], SCB).to(fp16).
  const auto n_out_cols = static_cast<int64_t>(a.outlier_cols.size());
  std::vector<float> w16(static_cast<size_t>(w.rows * n_out_cols));
  for (int64_t j = 0; j < w.rows; ++j) {
    for (int64_t o = 0; o < n_out_cols; ++o) {
      const float v = int8_dequant_value(w.codes[j * w.cols + a.outlier_cols[o]], w.scales[j]);
      w16[j * n_out_cols + o] = half_to_float(float_to_half(v));
    }
  }

  std::vector<float> y(static_cast<size_t>(n_tokens * w.rows));
  for (int64_t t = 0; t < n_tokens; ++t) {
    const int8_t* ca = a.codes.data() + t * w.cols;
    for (int64_t j = 0; j < w.rows; ++j) {
      const int8_t* cb = w.codes.data() + j * w.cols;
      int32_t acc = 0;
      for (int64_t k = 0; k < w.cols; ++k) acc += int32_t{ca[k]} * int32_t{cb[k]};
      const float b = bias.empty() ? 0.0f : half_to_float(float_to_half(bias[j]));
      const float main =
          std::fma(static_cast<float>(acc) * a.row_absmax[t] * w.scales[j], kMmDequantConst, b);
      float out = half_to_float(float_to_half(main));
      if (n_out_cols > 0) {
        float sum = out;
        for (int64_t o = 0; o < n_out_cols; ++o) {
          sum += half_to_float(a.x_f16[t * w.cols + a.outlier_cols[o]]) * w16[j * n_out_cols + o];
        }
        out = half_to_float(float_to_half(sum));
      }
      y[t * w.rows + j] = out;
    }
  }
  return y;
}

}  // namespace ec::quant
