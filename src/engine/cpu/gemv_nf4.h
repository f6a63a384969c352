// NF4 Linear on the CPU (nf4 and nf4-dq): 4-bit codes decoded through the 16-entry table and
// scaled by the block absmax (fp32, or double-quantized for nf4-dq), FP32 accumulation.
#pragma once

#include <memory>
#include <vector>

#include "engine/cpu/linear.h"
#include "engine/cpu/thread_pool.h"
#include "model/weights.h"
#include "quant/nf4.h"
#include "quant/nf4_dq.h"

namespace ec::engine::cpu {

// y[t, j] = bias[j] + Σ_k code[q(j,k)] · absmax(block of (j,k)) · x[t, k]; blocks run over the
// flattened weight, so a block may span two rows. Parallel over rows on `pool`; a (token, row)
// result is the same whatever n_tokens and the thread count. bias may be null.
void gemv_nf4(const quant::Nf4Tensor& w, const float* x, int n_tokens, const float* bias, float* y,
              ThreadPool& pool);
void gemv_nf4_dq(const quant::Nf4DqTensor& w, const float* x, int n_tokens, const float* bias,
                 float* y, ThreadPool& pool);

// Quantize `weight` [out, in] (rounded to fp16 first, as the seed's fp16 model was); `bias` empty
// or [out].
std::unique_ptr<CpuLinear> make_gemv_nf4(const model::Tensor& weight, std::vector<float> bias,
                                         ThreadPool& pool);
std::unique_ptr<CpuLinear> make_gemv_nf4_dq(const model::Tensor& weight, std::vector<float> bias,
                                            ThreadPool& pool);

}  // namespace ec::engine::cpu
