// Weight-only INT8 GEMV/GEMM on the CPU: int8 rows widened to FP32 a column block at a time and
// dotted with every token in 8 fixed lanes, then scaled once by SCB/127.
#include "engine/cpu/gemv_int8_wo.h"

#include <algorithm>
#include <string_view>

#include "core/error.h"
#include "engine/cpu/quant_linear.h"
#include "engine/cpu/tensor_convert.h"

namespace ec::engine::cpu {
namespace {

constexpr int64_t kBlock = 512;
constexpr int kLanes = 8;
constexpr int kMaxTokensPerPass = 64;  // per-token partial sums kept on the stack

inline float dot(const float* __restrict w, const float* __restrict x, int64_t n) {
  float a[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) a[j] += w[i + j] * x[i + j];
  }
  for (int j = 0; i + j < n; ++j) a[j] += w[i + j] * x[i + j];
  return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

void rows_int8_wo(const quant::Int8RowwiseTensor& w, const float* x, int n_tokens,
                  const float* bias, float* y, int64_t r0, int64_t r1) {
  alignas(64) float buf[kBlock];
  float acc[kMaxTokensPerPass];
  const int64_t cols = w.cols;
  for (int64_t r = r0; r < r1; ++r) {
    const float scale = w.scales[r] * quant::kInv127;
    for (int t0 = 0; t0 < n_tokens; t0 += kMaxTokensPerPass) {
      const int nt = std::min(kMaxTokensPerPass, n_tokens - t0);
      std::fill(acc, acc + nt, 0.0f);
      for (int64_t cb = 0; cb < cols; cb += kBlock) {
        const int64_t len = std::min(kBlock, cols - cb);
        const int8_t* src = w.codes.data() + r * cols + cb;
        for (int64_t i = 0; i < len; ++i) buf[i] = static_cast<float>(src[i]);
        for (int t = 0; t < nt; ++t) acc[t] += dot(buf, x + (t0 + t) * cols + cb, len);
      }
      for (int t = 0; t < nt; ++t) {
        y[(t0 + t) * w.rows + r] = acc[t] * scale + (bias != nullptr ? bias[r] : 0.0f);
      }
    }
  }
}

}  // namespace

void gemv_int8_wo(const quant::Int8RowwiseTensor& w, const float* x, int n_tokens,
                  const float* bias, float* y, ThreadPool& pool) {
  if (w.rows <= 0 || n_tokens <= 0) return;
  pool.parallel_for(w.rows, gemv_row_grain(w.cols, n_tokens),
                    [&](int64_t r0, int64_t r1) { rows_int8_wo(w, x, n_tokens, bias, y, r0, r1); });
}

std::unique_ptr<CpuLinear> make_gemv_int8_wo(const model::Tensor& weight, std::vector<float> bias,
                                             ThreadPool& pool) {
  check_linear_shape(weight, bias);
  const std::vector<float> w16 = tensor_to_f32(convert_tensor(weight, DType::f16));
  return std::make_unique<QuantLinear<quant::Int8RowwiseTensor, gemv_int8_wo>>(
      quant::quantize_int8_rowwise(w16, weight.shape[0], weight.shape[1], weight.name,
                                   quant::Format::int8_wo),
      std::move(bias), pool, "int8w-f32acc");
}

}  // namespace ec::engine::cpu
