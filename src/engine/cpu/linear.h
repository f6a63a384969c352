// The weight matrix of one Linear layer as the CPU engine sees it, check_linear_shape, and
// make_cpu_linear: the ONE place that picks the CPU kernel for a (weight, precision). New weight
// formats add a case there and a gemv_<format>.cpp beside gemv_fp16.cpp; nothing else changes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "engine/cpu/thread_pool.h"
#include "engine/engine.h"
#include "model/weights.h"

namespace ec::engine::cpu {

class CpuLinear {
 public:
  virtual ~CpuLinear() = default;

  // y[t, 0..out) = W · x[t, 0..in) (+ bias) for every t < n_tokens. x is [n_tokens, in] and y is
  // [n_tokens, out], both row-major FP32 and not aliased. n_tokens == 1 is the decode GEMV; larger
  // n is prefill. A token's result must not depend on n_tokens or on the other tokens (the KV-cache
  // tests compare prefill of a+b with prefill a, then b).
  virtual void forward(const float* x, int n_tokens, float* y) const = 0;

  virtual int64_t in_features() const = 0;
  virtual int64_t out_features() const = 0;
  // Bytes a decode step reads from this layer: weights, scales and bias (EngineInfo::weight_bytes).
  virtual int64_t weight_bytes() const = 0;
  // The weight kernel, for EngineInfo::kernel_variant ("cpu-f32acc-" + this): e.g. "f16w".
  virtual std::string_view kernel_name() const = 0;
};

// A Linear weight must be [out, in], and a bias (if any) has `out` elements.
inline void check_linear_shape(const model::Tensor& weight, const std::vector<float>& bias) {
  EC_CHECK(weight.shape.size() == 2, "tensor {}: a Linear weight must be 2-D [out, in]",
           weight.name);
  EC_CHECK(bias.empty() || static_cast<int64_t>(bias.size()) == weight.shape[0],
           "tensor {}: bias has {} elements, expected {}", weight.name, bias.size(),
           weight.shape[0]);
}

// `weight` is [out, in] in the PyTorch Linear layout (f32, f16 or bf16 as the checkpoint holds it);
// `bias` [out] or none. FP16 keeps f16 weights in place (others converted to f16 once), BF16 keeps
// bf16 in place (others converted). Unimplemented precisions → ec::Error naming the precision.
// The returned object keeps the weight storage alive (shares the tensor's owner) and runs on
// `pool`, which must outlive it.
std::unique_ptr<CpuLinear> make_cpu_linear(const model::Tensor& weight,
                                           const std::optional<model::Tensor>& bias,
                                           Precision precision, ThreadPool& pool);

}  // namespace ec::engine::cpu
