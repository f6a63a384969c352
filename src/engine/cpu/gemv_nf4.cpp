// NF4 / NF4-DQ GEMV and GEMM on the CPU: a row's codes are decoded and scaled by their block absmax
// into an FP32 buffer a column block at a time, then dotted with every token in 8 fixed lanes.
#include "engine/cpu/gemv_nf4.h"

#include <algorithm>
#include <string_view>

#include "core/error.h"
#include "engine/cpu/quant_linear.h"
#include "engine/cpu/tensor_convert.h"

namespace ec::engine::cpu {
namespace {

constexpr int64_t kBlock = 512;  // a multiple of the NF4 block (64)
constexpr int kLanes = 8;
constexpr int kMaxTokensPerPass = 64;

inline float dot(const float* __restrict w, const float* __restrict x, int64_t n) {
  float a[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) a[j] += w[i + j] * x[i + j];
  }
  for (int j = 0; i + j < n; ++j) a[j] += w[i + j] * x[i + j];
  return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
}

// Writes code[q] · absmax for flattened elements [e0, e0 + len) into out. `absmax_of(b)` gives the
// absmax of block b; it is evaluated once per block touched.
template <class AbsmaxOf>
void decode(const uint8_t* packed, int64_t e0, int64_t len, AbsmaxOf&& absmax_of, float* out) {
  int64_t i = 0;
  while (i < len) {
    const int64_t e = e0 + i;
    const int64_t block = e / quant::kNf4BlockSize;
    const int64_t end = std::min(len, (block + 1) * quant::kNf4BlockSize - e0);
    float table[16];
    const float scale = absmax_of(block);
    for (int c = 0; c < 16; ++c) table[c] = quant::kNf4Code[c] * scale;
    for (; i < end; ++i) {
      const int64_t k = e0 + i;
      const uint8_t byte = packed[k >> 1];
      out[i] = table[(k & 1) ? (byte & 0x0f) : (byte >> 4)];
    }
  }
}

template <class AbsmaxOf>
void rows_nf4(const uint8_t* packed, int64_t rows, int64_t cols, AbsmaxOf&& absmax_of,
              const float* x, int n_tokens, const float* bias, float* y, int64_t r0, int64_t r1) {
  alignas(64) float buf[kBlock];
  float acc[kMaxTokensPerPass];
  for (int64_t r = r0; r < r1; ++r) {
    for (int t0 = 0; t0 < n_tokens; t0 += kMaxTokensPerPass) {
      const int nt = std::min(kMaxTokensPerPass, n_tokens - t0);
      std::fill(acc, acc + nt, 0.0f);
      for (int64_t cb = 0; cb < cols; cb += kBlock) {
        const int64_t len = std::min(kBlock, cols - cb);
        decode(packed, r * cols + cb, len, absmax_of, buf);
        for (int t = 0; t < nt; ++t) acc[t] += dot(buf, x + (t0 + t) * cols + cb, len);
      }
      for (int t = 0; t < nt; ++t) {
        y[(t0 + t) * rows + r] = acc[t] + (bias != nullptr ? bias[r] : 0.0f);
      }
    }
  }
}

}  // namespace

void gemv_nf4(const quant::Nf4Tensor& w, const float* x, int n_tokens, const float* bias, float* y,
              ThreadPool& pool) {
  if (w.rows <= 0 || n_tokens <= 0) return;
  const auto absmax_of = [&](int64_t b) { return w.absmax[static_cast<size_t>(b)]; };
  pool.parallel_for(w.rows, gemv_row_grain(w.cols, n_tokens), [&](int64_t r0, int64_t r1) {
    rows_nf4(w.packed.data(), w.rows, w.cols, absmax_of, x, n_tokens, bias, y, r0, r1);
  });
}

void gemv_nf4_dq(const quant::Nf4DqTensor& w, const float* x, int n_tokens, const float* bias,
                 float* y, ThreadPool& pool) {
  if (w.rows <= 0 || n_tokens <= 0) return;
  // The absmax is decoded from its byte where it is used, as a GPU kernel reading nf4-dq would.
  const auto absmax_of = [&](int64_t b) { return w.block_absmax(b); };
  pool.parallel_for(w.rows, gemv_row_grain(w.cols, n_tokens), [&](int64_t r0, int64_t r1) {
    rows_nf4(w.packed.data(), w.rows, w.cols, absmax_of, x, n_tokens, bias, y, r0, r1);
  });
}

std::unique_ptr<CpuLinear> make_gemv_nf4(const model::Tensor& weight, std::vector<float> bias,
                                         ThreadPool& pool) {
  check_linear_shape(weight, bias);
  const std::vector<float> w16 = tensor_to_f32(convert_tensor(weight, DType::f16));
  return std::make_unique<QuantLinear<quant::Nf4Tensor, gemv_nf4>>(
      quant::quantize_nf4(w16, weight.shape[0], weight.shape[1], weight.name), std::move(bias),
      pool, "nf4w-f32acc");
}

std::unique_ptr<CpuLinear> make_gemv_nf4_dq(const model::Tensor& weight, std::vector<float> bias,
                                            ThreadPool& pool) {
  check_linear_shape(weight, bias);
  const std::vector<float> w16 = tensor_to_f32(convert_tensor(weight, DType::f16));
  return std::make_unique<QuantLinear<quant::Nf4DqTensor, gemv_nf4_dq>>(
      quant::quantize_nf4_dq(w16, weight.shape[0], weight.shape[1], weight.name), std::move(bias),
      pool, "nf4dqw-f32acc");
}

}  // namespace ec::engine::cpu
