// The quantized CPU kernels (int8-llm, int8-wo, nf4, nf4-dq) against dequantize-then-float-matmul,
// against quant::int8_llm_matmul_reference bit for bit, across thread counts and batch sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "engine/cpu/gemv_int8_llm.h"
#include "engine/cpu/gemv_int8_wo.h"
#include "engine/cpu/gemv_nf4.h"
#include "engine/cpu/thread_pool.h"
#include "quant/int8_llm.h"

namespace ec::engine::cpu {
namespace {

std::vector<float> random_normal(size_t n, uint32_t seed, float stddev) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, stddev);
  std::vector<float> v(n);
  for (float& x : v) {
    do {
      x = dist(rng);
    } while (x == 0.0f);
  }
  return v;
}

// An f32 model::Tensor owning `values`, shape [rows, cols].
model::Tensor f32_tensor(std::vector<float> values, int64_t rows, int64_t cols) {
  auto storage = std::make_shared<std::vector<float>>(std::move(values));
  model::Tensor t;
  t.name = "layers.0.mlp.up_proj.weight";
  t.dtype = DType::f32;
  t.shape = {rows, cols};
  t.data = reinterpret_cast<const std::byte*>(storage->data());
  t.nbytes = storage->size() * sizeof(float);
  t.owner = storage;
  return t;
}

// y_ref[t, j] = bias[j] + Σ_k x[t,k] · wd[j,k] in double, and Σ_k |x[t,k]| · |wd[j,k]| for the
// bound.
void float_matmul(const std::vector<float>& x, const std::vector<float>& wd,
                  const std::vector<float>& bias, int n, int64_t out, int64_t in,
                  std::vector<double>& y, std::vector<double>& mag) {
  y.assign(static_cast<size_t>(n * out), 0.0);
  mag.assign(static_cast<size_t>(n * out), 0.0);
  for (int t = 0; t < n; ++t) {
    for (int64_t j = 0; j < out; ++j) {
      double s = bias.empty() ? 0.0 : bias[j];
      double m = 0;
      for (int64_t k = 0; k < in; ++k) {
        s += double{x[t * in + k]} * wd[j * in + k];
        m += std::fabs(double{x[t * in + k]} * wd[j * in + k]);
      }
      y[t * out + j] = s;
      mag[t * out + j] = m;
    }
  }
}

struct Shape {
  int64_t out, in;
  int n;
};
// in = 160 and 100 are not multiples of the NF4 block: blocks cross rows (and, for 100·odd rows,
// the element count is not a multiple of 64).
const Shape kShapes[] = {{37, 256, 1}, {64, 160, 3}, {9, 100, 5}, {130, 1536, 2}};

TEST(GemvQuant, Int8WoMatchesDequantizedMatmul) {
  ThreadPool pool(3);
  for (const Shape& s : kShapes) {
    const auto w = random_normal(static_cast<size_t>(s.out * s.in), 101, 0.05f);
    const auto x = random_normal(static_cast<size_t>(s.n * s.in), 102, 1.0f);
    const auto bias = random_normal(static_cast<size_t>(s.out), 103, 0.1f);
    const auto lin = make_gemv_int8_wo(f32_tensor(w, s.out, s.in), bias, pool);
    std::vector<float> w16(w.size());
    for (size_t i = 0; i < w.size(); ++i) w16[i] = half_to_float(float_to_half(w[i]));
    const auto q = quant::quantize_int8_rowwise(w16, s.out, s.in, "w", quant::Format::int8_wo);
    std::vector<double> ref, mag;
    float_matmul(x, quant::dequantize_int8_rowwise(q), bias, s.n, s.out, s.in, ref, mag);
    std::vector<float> y(static_cast<size_t>(s.n * s.out));
    lin->forward(x.data(), s.n, y.data());
    for (size_t i = 0; i < y.size(); ++i) {
      // FP32 accumulation of the same products: a few ulp per term, relative to Σ|x·w|.
      ASSERT_NEAR(y[i], ref[i], 1e-5 * mag[i] + 1e-6)
          << "shape " << s.out << "x" << s.in << " i " << i;
    }
    EXPECT_EQ(lin->kernel_name(), "int8w-f32acc");
    EXPECT_EQ(lin->weight_bytes(), s.out * s.in + 4 * s.out + 4 * s.out);
    EXPECT_EQ(lin->in_features(), s.in);
    EXPECT_EQ(lin->out_features(), s.out);
  }
}

TEST(GemvQuant, Nf4AndNf4DqMatchDequantizedMatmul) {
  ThreadPool pool(3);
  for (const Shape& s : kShapes) {
    const auto w = random_normal(static_cast<size_t>(s.out * s.in), 111, 0.05f);
    const auto x = random_normal(static_cast<size_t>(s.n * s.in), 112, 1.0f);
    const auto bias = random_normal(static_cast<size_t>(s.out), 113, 0.1f);
    std::vector<float> w16(w.size());
    for (size_t i = 0; i < w.size(); ++i) w16[i] = half_to_float(float_to_half(w[i]));
    std::vector<float> y(static_cast<size_t>(s.n * s.out));
    std::vector<double> ref, mag;

    const auto nf4 = make_gemv_nf4(f32_tensor(w, s.out, s.in), bias, pool);
    float_matmul(x, quant::dequantize_nf4(quant::quantize_nf4(w16, s.out, s.in, "w")), bias, s.n,
                 s.out, s.in, ref, mag);
    nf4->forward(x.data(), s.n, y.data());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], 1e-5 * mag[i] + 1e-6) << i;

    const auto dq = make_gemv_nf4_dq(f32_tensor(w, s.out, s.in), bias, pool);
    const auto qdq = quant::quantize_nf4_dq(w16, s.out, s.in, "w");
    float_matmul(x, quant::dequantize_nf4_dq(qdq), bias, s.n, s.out, s.in, ref, mag);
    dq->forward(x.data(), s.n, y.data());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], 1e-5 * mag[i] + 1e-6) << i;

    EXPECT_EQ(nf4->kernel_name(), "nf4w-f32acc");
    EXPECT_EQ(dq->kernel_name(), "nf4dqw-f32acc");
    EXPECT_EQ(dq->weight_bytes(), qdq.storage_bytes() + 4 * s.out);
    EXPECT_LT(dq->weight_bytes(), nf4->weight_bytes());
  }
}

TEST(GemvQuant, Int8LlmIsTheReferenceBitForBit) {
  ThreadPool pool(3);
  for (const Shape& s : kShapes) {
    const auto w = random_normal(static_cast<size_t>(s.out * s.in), 121, 0.05f);
    auto x = random_normal(static_cast<size_t>(s.n * s.in), 122, 1.5f);
    x[static_cast<size_t>(s.in / 3)] = 11.0f;  // at least one outlier column
    const auto bias = random_normal(static_cast<size_t>(s.out), 123, 0.1f);
    const auto lin = make_gemv_int8_llm(f32_tensor(w, s.out, s.in), bias, pool);
    std::vector<float> w16(w.size());
    for (size_t i = 0; i < w.size(); ++i) w16[i] = half_to_float(float_to_half(w[i]));
    const auto q = quant::quantize_int8_rowwise(w16, s.out, s.in, "w");
    const std::vector<float> ref = quant::int8_llm_matmul_reference(x, s.n, q, bias);
    std::vector<float> y(static_cast<size_t>(s.n * s.out));
    lin->forward(x.data(), s.n, y.data());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], ref[i]) << i;

    // And close to the float matmul of the dequantized weights: LLM.int8() also rounds the
    // activations to int8 (1/254 of the row absmax) and the output to fp16.
    std::vector<double> fref, mag;
    float_matmul(x, quant::dequantize_int8_rowwise(q), bias, s.n, s.out, s.in, fref, mag);
    double err2 = 0, ref2 = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      err2 += (y[i] - fref[i]) * (y[i] - fref[i]);
      ref2 += fref[i] * fref[i];
    }
    EXPECT_LT(std::sqrt(err2 / ref2), 0.02) << s.out << "x" << s.in;
    EXPECT_EQ(lin->kernel_name(), "int8-llm-i32acc-f16outliers");
  }
}

TEST(GemvQuant, ResultsDoNotDependOnThreadsOrBatchSize) {
  const Shape s{70, 192, 4};
  const auto w = random_normal(static_cast<size_t>(s.out * s.in), 131, 0.05f);
  auto x = random_normal(static_cast<size_t>(s.n * s.in), 132, 1.0f);
  ThreadPool one(1), three(3);
  using Factory =
      std::unique_ptr<CpuLinear> (*)(const model::Tensor&, std::vector<float>, ThreadPool&);
  for (Factory make : {Factory{make_gemv_int8_wo}, Factory{make_gemv_nf4},
                       Factory{make_gemv_nf4_dq}, Factory{make_gemv_int8_llm}}) {
    const auto a = make(f32_tensor(w, s.out, s.in), {}, one);
    const auto b = make(f32_tensor(w, s.out, s.in), {}, three);
    std::vector<float> ya(static_cast<size_t>(s.n * s.out)), yb(ya.size()), y1(s.out);
    a->forward(x.data(), s.n, ya.data());
    b->forward(x.data(), s.n, yb.data());
    EXPECT_EQ(ya, yb) << a->kernel_name();
    // Token 2 alone gives the same row as in the batch (no |x| >= 6 here, so int8-llm too).
    a->forward(x.data() + 2 * s.in, 1, y1.data());
    for (int64_t j = 0; j < s.out; ++j) ASSERT_EQ(y1[j], ya[2 * s.out + j]) << a->kernel_name();
  }
}

TEST(GemvQuant, NanWeightsAreRejectedWithTheTensorName) {
  ThreadPool pool(1);
  auto w = random_normal(8 * 64, 141, 0.05f);
  w[70] = std::nanf("");
  for (auto make : {make_gemv_int8_wo, make_gemv_int8_llm, make_gemv_nf4, make_gemv_nf4_dq}) {
    try {
      make(f32_tensor(w, 8, 64), {}, pool);
      FAIL() << "NaN weight accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("layers.0.mlp.up_proj.weight"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace ec::engine::cpu
