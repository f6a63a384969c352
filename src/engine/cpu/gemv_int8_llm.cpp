// LLM.int8() GEMV/GEMM on the CPU, following quant::int8_llm_matmul_reference operation by
// operation (same rounding points, same summation order), so the two agree bit for bit.
#include "engine/cpu/gemv_int8_llm.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/half.h"
#include "engine/cpu/quant_linear.h"
#include "engine/cpu/tensor_convert.h"
#include "quant/int8_llm.h"

namespace ec::engine::cpu {
namespace {

inline float round_f16(float v) {
  return half_to_float(float_to_half(v));
}

// Integer dot products are exact in any order: the compiler may vectorise freely.
inline int32_t dot_i8(const int8_t* __restrict a, const int8_t* __restrict b, int64_t n) {
  int32_t acc = 0;
  for (int64_t k = 0; k < n; ++k) acc += int32_t{a[k]} * int32_t{b[k]};
  return acc;
}

void rows_int8_llm(const quant::Int8RowwiseTensor& w, const quant::Int8Activations& a,
                   const float* bias16, float* y, int64_t r0, int64_t r1) {
  const int64_t cols = w.cols;
  const auto& outliers = a.outlier_cols;
  for (int64_t j = r0; j < r1; ++j) {
    const int8_t* cb = w.codes.data() + j * cols;
    const float scb = w.scales[j];
    const float b = bias16 != nullptr ? bias16[j] : 0.0f;
    for (int64_t t = 0; t < a.rows; ++t) {
      const int32_t acc = dot_i8(a.codes.data() + t * cols, cb, cols);
      const float main =
          std::fma(static_cast<float>(acc) * a.row_absmax[t] * scb, quant::kMmDequantConst, b);
      float out = round_f16(main);
      if (!outliers.empty()) {
        // X[:, outliers] @ fp16(dequant(CB[:, outliers]))ᵀ added to the fp16 result, fp32 sum.
        float sum = out;
        for (int64_t k : outliers) {
          sum += half_to_float(a.x_f16[t * cols + k]) *
                 round_f16(quant::int8_dequant_value(cb[k], scb));
        }
        out = round_f16(sum);
      }
      y[t * w.rows + j] = out;
    }
  }
}

}  // namespace

void gemv_int8_llm(const quant::Int8RowwiseTensor& w, const float* x, int n_tokens,
                   const float* bias16, float* y, ThreadPool& pool) {
  if (w.rows <= 0 || n_tokens <= 0) return;
  const quant::Int8Activations a = quant::quantize_activations_llm_int8(
      std::span<const float>(x, static_cast<size_t>(n_tokens * w.cols)), n_tokens, w.cols,
      quant::kLlmInt8Threshold, w.name + " (input)");
  pool.parallel_for(w.rows, gemv_row_grain(w.cols, n_tokens),
                    [&](int64_t r0, int64_t r1) { rows_int8_llm(w, a, bias16, y, r0, r1); });
}

std::unique_ptr<CpuLinear> make_gemv_int8_llm(const model::Tensor& weight, std::vector<float> bias,
                                              ThreadPool& pool) {
  check_linear_shape(weight, bias);
  for (float& b : bias) b = round_f16(b);  // the model's bias is fp16 in bnb's fused dequant
  const std::vector<float> w16 = tensor_to_f32(convert_tensor(weight, DType::f16));
  return std::make_unique<QuantLinear<quant::Int8RowwiseTensor, gemv_int8_llm>>(
      quant::quantize_int8_rowwise(w16, weight.shape[0], weight.shape[1], weight.name,
                                   quant::Format::int8_llm),
      std::move(bias), pool, "int8-llm-i32acc-f16outliers");
}

}  // namespace ec::engine::cpu
