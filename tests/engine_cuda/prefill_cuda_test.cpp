// The kernels only prefill runs, against their CPU twins: LLM.int8()'s outlier columns over a batch
// and its batch GEMV (bitsandbytes' batch semantics, bit for bit with the reference of src/quant),
// and the bias add that follows a cuBLAS product.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/half.h"
#include "engine/cpu/swiglu.h"
#include "engine/cuda/gemv.cuh"
#include "engine/cuda/gemv_int8_llm.cuh"
#include "engine/cuda/tensor_convert.cuh"
#include "engine_cuda/cuda_test_util.h"
#include "quant/int8_llm.h"
#include "quant/int8_rowwise.h"

namespace ec::engine::cuda {
namespace {

using test::dev;

// The batch's outlier columns as the reference finds them, as a bitmask over cols.
std::vector<uint32_t> reference_mask(const std::vector<float>& x, int n, int cols) {
  const auto act =
      quant::quantize_activations_llm_int8(x, n, cols, quant::kLlmInt8Threshold, "prefill x");
  std::vector<uint32_t> mask(static_cast<size_t>(cols / 32), 0u);
  for (const int64_t c : act.outlier_cols) mask[static_cast<size_t>(c / 32)] |= 1u << (c % 32);
  return mask;
}

// x [n, cols] with outliers planted where a single token decides the column, at the fp16 edge of
// the threshold, and (many_outliers) in more columns than the kernel lists (1,024).
std::vector<float> batch_x(int n, int cols, uint64_t seed, bool many_outliers) {
  auto x = test::random_floats(static_cast<size_t>(n) * cols, seed, 1.0f);
  auto at = [&](int t, int c) -> float& { return x[static_cast<size_t>(t) * cols + c]; };
  at(0, 3) = 7.5f;
  at(n - 1, cols - 5) = -11.0f;
  at(n / 2, cols / 2) = 5.999f;       // 6.0 in fp16: an outlier
  at(0, cols / 2 + 1) = 5.99609375f;  // the largest fp16 below 6: not one
  at(n - 1, 1) = -6.0f;               // on the threshold: an outlier
  if (many_outliers) {
    for (int c = 7; c < cols; c += 16) at(c % n, c) = c % 3 == 0 ? -8.0f : 6.25f;
  }
  return x;
}

TEST(CudaPrefill, OutlierMaskHoldsTheBatchsOutlierColumns) {
  EC_REQUIRE_CUDA();
  struct Case {
    int n, cols;
    bool many;
  };
  for (const Case c :
       {Case{1, 896, false}, Case{5, 896, false}, Case{7, 3584, false}, Case{3, 18944, true}}) {
    const auto x = batch_x(c.n, c.cols, 40 + c.cols, c.many);
    const auto want = reference_mask(x, c.n, c.cols);
    int set = 0;
    for (const uint32_t w : want) set += __builtin_popcount(w);
    ASSERT_GE(set, c.many ? 1100 : 4) << "the planted outliers are in the reference's columns";
    auto dx = dev(x);
    DeviceBuffer<uint32_t> mask(want.size());
    CUDA_CHECK(cudaMemset(mask.get(), 0, mask.bytes()));
    int8_llm_outlier_mask(dx.get(), c.n, c.cols, mask.get(), nullptr);
    test::sync();
    EXPECT_EQ(mask.download(), want) << c.n << " tokens × " << c.cols;
  }
}

// One int8-llm weight matrix on the device: codes, row scales, and a bias rounded to fp16.
struct LlmWeights {
  quant::Int8RowwiseTensor q;
  std::vector<float> bias;
  DeviceBuffer<int8_t> d_codes;
  DeviceBuffer<float> d_scales, d_bias;
  LlmWeights(int rows, int cols, uint64_t seed, bool with_bias)
      : q(quant::quantize_int8_rowwise(half_bits_to_floats(to_half_bits(test::random_floats(
                                           static_cast<size_t>(rows) * cols, seed, 0.05f))),
                                       rows, cols, "w", quant::Format::int8_llm)),
        d_codes(dev(q.codes)),
        d_scales(dev(q.scales)) {
    if (with_bias) {
      bias = half_bits_to_floats(to_half_bits(test::random_floats(rows, seed + 1, 0.05f)));
      d_bias = dev(bias);
    }
  }
  GemvSegment segment() const {
    GemvSegment s;
    s.w = d_codes.get();
    s.scales = d_scales.get();
    s.bias = bias.empty() ? nullptr : d_bias.get();
    s.rows = static_cast<int>(q.rows);
    return s;
  }
};

struct BatchShape {
  std::vector<int> rows;  // one entry per segment
  int cols;
  bool residual, bias, swiglu, many_outliers;
};

// y [n, outputs] as the CPU engine forms it: the reference per segment, the segments of a token
// side by side (q|k|v), or SwiGLU of gate and up, plus the residual.
std::vector<float> batch_reference(const std::vector<LlmWeights>& w, const BatchShape& sh,
                                   const std::vector<float>& x, int n,
                                   const std::vector<float>& residual) {
  std::vector<std::vector<float>> seg;
  for (const auto& s : w) seg.push_back(quant::int8_llm_matmul_reference(x, n, s.q, s.bias));
  std::vector<float> y;
  for (int t = 0; t < n; ++t) {
    if (sh.swiglu) {
      const int r = sh.rows[0];
      std::vector<float> act(static_cast<size_t>(r));
      cpu::swiglu(seg[0].data() + static_cast<size_t>(t) * r,
                  seg[1].data() + static_cast<size_t>(t) * r, r, act.data());
      y.insert(y.end(), act.begin(), act.end());
      continue;
    }
    for (size_t i = 0; i < w.size(); ++i) {
      const auto first = seg[i].begin() + static_cast<std::ptrdiff_t>(t) * sh.rows[i];
      y.insert(y.end(), first, first + sh.rows[i]);
    }
  }
  if (sh.residual) {
    for (size_t i = 0; i < y.size(); ++i) y[i] += residual[i];
  }
  return y;
}

// Every rows-per-warp the batch kernel has, one block per row group and persistent, with and
// without PDL: each bit for bit the reference, since the kernel takes the reference's operations
// (int32 dot, bnb's dequantization, fp16 outlier products summed in FP32 in column order); with
// SwiGLU, within the device's expf of it.
TEST(CudaPrefill, Int8LlmBatchGemvMatchesTheReferenceBitForBit) {
  EC_REQUIRE_CUDA();
  const BatchShape shapes[] = {
      {{300}, 896, false, true, false, false},
      {{64, 16, 16}, 160, false, true, false, false},  // q|k|v with biases
      {{130}, 2048, true, false, false, false},        // o / down: residual added in place
      {{75, 75}, 896, false, false, true, false},      // gate|up → SwiGLU
      {{24}, 18944, true, false, false, true},         // 7B down width, more outliers than listed
  };
  uint64_t seed = 7000;
  for (const BatchShape& sh : shapes) {
    for (const int n : {1, 3, 8}) {
      seed += 31;
      std::vector<LlmWeights> w;
      for (size_t i = 0; i < sh.rows.size(); ++i) {
        w.emplace_back(sh.rows[i], sh.cols, seed + 10 * i, sh.bias);
      }
      const auto x = batch_x(n, sh.cols, seed + 100, sh.many_outliers);
      const int outputs = sh.swiglu ? sh.rows[0] : [&] {
        int s = 0;
        for (const int r : sh.rows) s += r;
        return s;
      }();
      const auto residual = test::random_floats(static_cast<size_t>(n) * outputs, seed + 102);
      const auto want = batch_reference(w, sh, x, n, residual);

      auto dx = dev(x);
      DeviceBuffer<uint32_t> mask(static_cast<size_t>(sh.cols / 32));
      CUDA_CHECK(cudaMemset(mask.get(), 0, mask.bytes()));
      int8_llm_outlier_mask(dx.get(), n, sh.cols, mask.get(), nullptr);
      GemvArgs a;
      a.format = quant::Format::int8_llm;
      a.n_seg = static_cast<int>(w.size());
      for (size_t i = 0; i < w.size(); ++i) a.seg[i] = w[i].segment();
      a.swiglu = sh.swiglu;
      a.cols = sh.cols;
      a.x = dx.get();
      a.outlier_mask = mask.get();
      ASSERT_EQ(gemv_outputs(a), outputs);
      int runs = 0;
      for (const int rows_per_warp : {1, 2, 4}) {
        if (sh.swiglu && rows_per_warp == 1) continue;
        for (const bool persistent : {true, false}) {
          for (const bool pdl : {false, true}) {
            GemvConfig cfg;
            cfg.rows_per_warp = rows_per_warp;
            cfg.persistent = persistent;
            cfg.pdl = pdl;
            auto dy = sh.residual ? dev(residual) : test::poisoned(want.size());
            a.y = dy.get();
            a.residual = sh.residual ? dy.get() : nullptr;  // in place, as prefill adds to x
            launch_gemv_int8_llm(a, cfg, n, nullptr);
            test::sync();
            const std::string what =
                std::to_string(n) + " tokens, rows " + std::to_string(sh.rows[0]) + " (" +
                std::to_string(sh.rows.size()) + " segs) × " + std::to_string(sh.cols) + ", " +
                gemv_config_name(cfg) + (sh.swiglu ? " swiglu" : "") +
                (sh.residual ? " residual" : "");
            if (sh.swiglu) {
              // The products are the reference's bit for bit, but silu's exp is the device's
              // expf, within an ulp or two of the host's.
              EXPECT_LT(test::rel_error(dy.download(), want), 1e-6) << what;
            } else {
              EXPECT_EQ(dy.download(), want) << what;
            }
            ++runs;
          }
        }
      }
      EXPECT_EQ(runs, sh.swiglu ? 8 : 12);
    }
  }
}

// Rows of y `ld` apart: the bias is added to the first `rows` of each, the padding left as it was,
// over more elements than the kernel's grid covers in one sweep (8,192 blocks of 256).
TEST(CudaPrefill, AddBiasAddsEachRowsBiasAndLeavesThePadding) {
  EC_REQUIRE_CUDA();
  struct Case {
    int n, rows, ld;
  };
  for (const Case c : {Case{1, 37, 37}, Case{5, 896, 1000}, Case{9, 300000, 300003}}) {
    auto y = test::random_floats(static_cast<size_t>(c.n) * c.ld, 90 + c.rows, 2.0f);
    const auto bias = test::random_floats(static_cast<size_t>(c.rows), 91 + c.rows, 0.5f);
    std::vector<float> want = y;
    for (int t = 0; t < c.n; ++t) {
      for (int r = 0; r < c.rows; ++r) want[static_cast<size_t>(t) * c.ld + r] += bias[r];
    }
    auto dy = dev(y);
    auto dbias = dev(bias);
    add_bias(dy.get(), dbias.get(), c.n, c.rows, c.ld, nullptr);
    test::sync();
    EXPECT_EQ(dy.download(), want) << c.n << " × " << c.rows << " ld " << c.ld;
  }
}

}  // namespace
}  // namespace ec::engine::cuda
