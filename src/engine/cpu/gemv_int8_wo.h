// Weight-only INT8 Linear (int8-wo, W8A16): per-output-channel int8 weights dequantized in the
// inner loop, FP32 activations and accumulation, for one token (GEMV) or many (prefill).
#pragma once

#include <memory>
#include <vector>

#include "engine/cpu/linear.h"
#include "engine/cpu/thread_pool.h"
#include "model/weights.h"
#include "quant/int8_rowwise.h"

namespace ec::engine::cpu {

// y[t, j] = bias[j] + (SCB[j]/127) · Σ_k CB[j, k] · x[t, k]; parallel over rows on `pool`. A
// (token, row) result is the same whatever n_tokens and the thread count. bias may be null.
void gemv_int8_wo(const quant::Int8RowwiseTensor& w, const float* x, int n_tokens,
                  const float* bias, float* y, ThreadPool& pool);

// Quantizes `weight` [out, in] (f32/f16/bf16, rounded to fp16 first as the seed's model was) with
// quant::quantize_int8_rowwise; `bias` empty or [out].
std::unique_ptr<CpuLinear> make_gemv_int8_wo(const model::Tensor& weight, std::vector<float> bias,
                                             ThreadPool& pool);

}  // namespace ec::engine::cpu
