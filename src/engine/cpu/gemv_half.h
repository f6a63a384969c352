// Linear layers over 16-bit float weights (FP16 or BF16, kept in their 16-bit form) with FP32
// accumulation: the kernel behind the FP16 and BF16 formats, for one token (GEMV) or many
// (prefill).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/cpu/linear.h"
#include "engine/cpu/thread_pool.h"
#include "model/weights.h"

namespace ec::engine::cpu {

enum class HalfKind { f16, bf16 };

// The instruction set gemv_half runs with: AVX2 + F16C when the CPU has them, else baseline
// x86-64 (or whatever the build targets). Both give bit-identical results.
enum class CpuIsa { baseline, avx2 };
CpuIsa gemv_isa();
// Tests: run the baseline kernel even where AVX2 is available (process-wide).
void force_baseline_gemv_for_testing(bool on);

// y[t, r] = bias[r] + Σ_c w[r, c] · x[t, c] for r < rows, t < n_tokens. w is [rows, cols] of raw
// f16/bf16 bits; bias may be null. Parallel over rows on `pool`. A (token, row) result is the same
// whatever n_tokens and the thread count.
void gemv_half(const uint16_t* w, HalfKind kind, int64_t rows, int64_t cols, const float* x,
               int n_tokens, const float* bias, float* y, ThreadPool& pool);

// `weight` must already be f16 (kind f16) or bf16 (kind bf16) and 2-byte aligned (convert_tensor
// does both); `bias` empty or [rows].
std::unique_ptr<CpuLinear> make_gemv_half(const model::Tensor& weight, std::vector<float> bias,
                                          HalfKind kind, ThreadPool& pool);

}  // namespace ec::engine::cpu
