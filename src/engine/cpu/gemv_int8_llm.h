// LLM.int8() Linear on the CPU (int8-llm, the seed's "INT8"): activations quantized per token with
// outlier columns (|x| ≥ 6) kept in fp16, int8 × int8 → int32 products, fp16 output, as
// bitsandbytes.
#pragma once

#include <memory>
#include <vector>

#include "engine/cpu/linear.h"
#include "engine/cpu/thread_pool.h"
#include "model/weights.h"
#include "quant/int8_rowwise.h"

namespace ec::engine::cpu {

// y [n_tokens, w.rows] = quant::int8_llm_matmul_reference(x, n_tokens, w, bias) bit for bit, with
// the int32 dot products and the fp16 outlier sums parallel over output rows on `pool`. Outlier
// columns are found over the whole batch, as bnb does, so in prefill a token's result can depend on
// the other tokens of the call. `bias16` is null or [w.rows] already rounded to fp16.
void gemv_int8_llm(const quant::Int8RowwiseTensor& w, const float* x, int n_tokens,
                   const float* bias16, float* y, ThreadPool& pool);

// Quantizes `weight` [out, in] (rounded to fp16 first, as the seed's fp16 model was) with
// quant::quantize_int8_rowwise; `bias` empty or [out] (rounded to fp16 here).
std::unique_ptr<CpuLinear> make_gemv_int8_llm(const model::Tensor& weight, std::vector<float> bias,
                                              ThreadPool& pool);

}  // namespace ec::engine::cpu
