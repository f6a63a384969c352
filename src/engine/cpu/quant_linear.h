// QuantLinear: the CpuLinear of a quantized weight (int8 rowwise, NF4, NF4-DQ): the tensor, an
// optional FP32 bias and the format's GEMV; the formats differ only in the kernel and its name.
// With the thread-pool grain the three quantized GEMV files share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/cpu/linear.h"
#include "engine/cpu/thread_pool.h"

namespace ec::engine::cpu {

// Rows per thread-pool chunk: about 64k multiply-adds, so that waking a thread pays.
inline int64_t gemv_row_grain(int64_t cols, int n_tokens) {
  return std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, cols * n_tokens));
}

template <class Tensor>
using QuantGemv = void (*)(const Tensor& w, const float* x, int n_tokens, const float* bias,
                           float* y, ThreadPool& pool);

template <class Tensor, QuantGemv<Tensor> Gemv>
class QuantLinear final : public CpuLinear {
 public:
  // `kernel` is a string literal (EngineInfo::kernel_variant keeps the view).
  QuantLinear(Tensor w, std::vector<float> bias, ThreadPool& pool, std::string_view kernel)
      : w_(std::move(w)), bias_(std::move(bias)), pool_(pool), kernel_(kernel) {}

  void forward(const float* x, int n_tokens, float* y) const override {
    Gemv(w_, x, n_tokens, bias_.empty() ? nullptr : bias_.data(), y, pool_);
  }
  int64_t in_features() const override { return w_.cols; }
  int64_t out_features() const override { return w_.rows; }
  int64_t weight_bytes() const override {
    return w_.storage_bytes() + static_cast<int64_t>(bias_.size() * sizeof(float));
  }
  std::string_view kernel_name() const override { return kernel_; }

 private:
  Tensor w_;
  std::vector<float> bias_;
  ThreadPool& pool_;
  std::string_view kernel_;
};

}  // namespace ec::engine::cpu
