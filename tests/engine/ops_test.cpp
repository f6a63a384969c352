// CPU ops against straightforward double-precision references on random inputs: 16-bit conversion,
// RMSNorm, RoPE, attention (GQA, decode after prefill), SwiGLU, FP16/BF16 GEMV, the thread pool.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "engine/cpu/attention.h"
#include "engine/cpu/gemv_half.h"
#include "engine/cpu/half_convert.h"
#include "engine/cpu/kv_cache.h"
#include "engine/cpu/linear.h"
#include "engine/cpu/rmsnorm.h"
#include "engine/cpu/rope.h"
#include "engine/cpu/swiglu.h"
#include "engine/cpu/tensor_convert.h"
#include "engine/cpu/thread_pool.h"
#include "engine/tiny_model.h"

namespace ec::engine::cpu {
namespace {

std::vector<float> random_floats(size_t n, uint64_t seed, float sd = 1.0f, float mean = 0.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(mean, sd);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(HalfConvert, EveryF16BitPatternMatchesTheScalarConversion) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float want = half_to_float(static_cast<uint16_t>(b));
    const float got = f16_bits_to_f32(static_cast<uint16_t>(b));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << b;
    } else {
      EXPECT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want)) << b;
    }
  }
}

TEST(HalfConvert, RowConversionsMatchScalar) {
  std::vector<uint16_t> in(1000);
  std::mt19937 rng(3);
  for (auto& b : in) b = static_cast<uint16_t>(rng());
  std::vector<float> f16(in.size()), bf16(in.size());
  f16_to_f32_row(in.data(), f16.data(), static_cast<int64_t>(in.size()));
  bf16_to_f32_row(in.data(), bf16.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(bf16[i]), std::bit_cast<uint32_t>(bf16_to_float(in[i])));
    if (!std::isnan(f16[i])) {
      EXPECT_EQ(f16[i], half_to_float(in[i]));
    }
  }
}

TEST(RmsNorm, MatchesDoubleReference) {
  const int n = 3, dim = 200;
  auto x = random_floats(n * dim, 1, 2.0f);
  auto w = random_floats(dim, 2, 0.3f, 1.0f);
  std::vector<float> y(x.size());
  rmsnorm(x.data(), w.data(), n, dim, 1e-5, y.data());
  std::vector<double> ref(x.begin(), x.end());
  test::ref_rmsnorm(ref, std::vector<double>(w.begin(), w.end()), n, dim, 1e-5);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], ref[i], 1e-5 * (1 + std::abs(ref[i])));
  // In place gives the same.
  rmsnorm(x.data(), w.data(), n, dim, 1e-5, x.data());
  EXPECT_EQ(x, y);
}

TEST(Rope, MatchesDoubleReferenceAtManyPositions) {
  const int heads = 3, hd = 64;
  const double theta = 500000.0;
  RopeTable rope(hd, theta, 300);
  for (int pos : {0, 1, 7, 100, 299}) {
    auto v = random_floats(heads * hd, 10 + static_cast<uint64_t>(pos));
    std::vector<double> ref(v.begin(), v.end());
    rope.apply(v.data(), heads, pos);
    test::ref_rope(ref.data(), heads, hd, pos, theta);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], ref[i], 1e-4) << pos << " " << i;
  }
  auto v = random_floats(hd, 5);
  const auto before = v;
  rope.apply(v.data(), 1, 0);
  EXPECT_EQ(v, before);  // position 0 is the identity
  EXPECT_THROW(rope.apply(v.data(), 1, 300), Error);
}

TEST(Swiglu, MatchesDoubleReference) {
  const auto g = random_floats(500, 1, 3.0f);
  const auto u = random_floats(500, 2, 1.0f);
  std::vector<float> out(g.size());
  swiglu(g.data(), u.data(), 500, out.data());
  for (size_t i = 0; i < g.size(); ++i) {
    const double want = g[i] / (1.0 + std::exp(-double{g[i]})) * u[i];
    EXPECT_NEAR(out[i], want, 1e-6 * (1 + std::abs(want)));
  }
}

struct AttentionCase {
  int heads, kv_heads, hd, n;
};

class AttentionTest : public ::testing::TestWithParam<AttentionCase> {};

TEST_P(AttentionTest, PrefillMatchesReferenceAndDecodeMatchesPrefill) {
  const auto [heads, kv_heads, hd, n] = GetParam();
  ThreadPool pool(3);
  const auto q = random_floats(static_cast<size_t>(n * heads * hd), 1, 1.5f);
  const auto k = random_floats(static_cast<size_t>(n * kv_heads * hd), 2, 1.5f);
  const auto v = random_floats(static_cast<size_t>(n * kv_heads * hd), 3);

  KvCache cache(2, kv_heads, hd, n + 4);
  cache.store(1, 0, n, k.data(), v.data());
  std::vector<float> out(q.size());
  attention(q.data(), cache, 1, heads, 0, n, out.data(), pool);
  const auto ref = test::ref_attention(
      std::vector<double>(q.begin(), q.end()), std::vector<double>(k.begin(), k.end()),
      std::vector<double>(v.begin(), v.end()), n, heads, kv_heads, hd);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], ref[i], 1e-5);

  // The same tokens one at a time (decode after a prefill of the first half).
  KvCache cache2(2, kv_heads, hd, n + 4);
  const int first = n / 2;
  const size_t qrow = static_cast<size_t>(heads * hd), krow = static_cast<size_t>(kv_heads * hd);
  std::vector<float> step(q.size());
  cache2.store(1, 0, first, k.data(), v.data());
  attention(q.data(), cache2, 1, heads, 0, first, step.data(), pool);
  for (int t = first; t < n; ++t) {
    cache2.store(1, t, 1, k.data() + t * krow, v.data() + t * krow);
    attention(q.data() + t * qrow, cache2, 1, heads, t, 1, step.data() + t * qrow, pool);
  }
  EXPECT_EQ(step, out);
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionTest,
                         ::testing::Values(AttentionCase{4, 2, 16, 9},   // GQA, group 2
                                           AttentionCase{8, 1, 32, 20},  // multi-query
                                           AttentionCase{3, 3, 12, 6},   // plain MHA, odd dims
                                           AttentionCase{4, 4, 64, 40}));

TEST(KvCache, RejectsPositionsPastCapacity) {
  KvCache cache(1, 1, 4, 3);
  std::vector<float> kv(8, 1.0f);
  EXPECT_THROW(cache.store(0, 2, 2, kv.data(), kv.data()), Error);
  EXPECT_THROW(cache.store(1, 0, 1, kv.data(), kv.data()), Error);
}

class GemvTest : public ::testing::TestWithParam<HalfKind> {};

TEST_P(GemvTest, MatchesDoubleReferenceAndIsIndependentOfBatchAndThreads) {
  const HalfKind kind = GetParam();
  const DType dtype = kind == HalfKind::f16 ? DType::f16 : DType::bf16;
  const int64_t rows = 37, cols = 1030;  // not multiples of the row group, lanes or block
  const int n = 3;
  std::mt19937_64 rng(11);
  const auto w = test::random_tensor("w", {rows, cols}, dtype, rng, 0.1f);
  const auto x = random_floats(static_cast<size_t>(n * cols), 12);
  const auto bias = random_floats(rows, 13);
  ThreadPool pool(3);
  std::vector<float> y(static_cast<size_t>(n * rows));
  const auto* bits = reinterpret_cast<const uint16_t*>(w.data);
  gemv_half(bits, kind, rows, cols, x.data(), n, bias.data(), y.data(), pool);

  const auto wd = test::values(w);
  const std::vector<double> bd(bias.begin(), bias.end());
  const auto ref =
      test::ref_linear(wd, &bd, std::vector<double>(x.begin(), x.end()), n, rows, cols);
  for (int t = 0; t < n; ++t) {
    for (int64_t r = 0; r < rows; ++r) {
      double mag = std::abs(bias[r]);
      for (int64_t c = 0; c < cols; ++c) mag += std::abs(wd[r * cols + c] * x[t * cols + c]);
      EXPECT_NEAR(y[t * rows + r], ref[t * rows + r], 1e-6 * mag) << t << " " << r;
    }
  }
  // One token at a time, on one thread: bit-identical.
  ThreadPool single(1);
  for (int t = 0; t < n; ++t) {
    std::vector<float> one(static_cast<size_t>(rows));
    gemv_half(bits, kind, rows, cols, x.data() + t * cols, 1, bias.data(), one.data(), single);
    for (int64_t r = 0; r < rows; ++r) EXPECT_EQ(one[r], y[t * rows + r]);
  }
}

TEST_P(GemvTest, BaselineAndAvx2KernelsAreBitIdentical) {
  const HalfKind kind = GetParam();
  const DType dtype = kind == HalfKind::f16 ? DType::f16 : DType::bf16;
  const int64_t rows = 23, cols = 1100;
  const int n = 5;
  std::mt19937_64 rng(31);
  const auto w = test::random_tensor("w", {rows, cols}, dtype, rng, 0.1f);
  const auto x = random_floats(static_cast<size_t>(n * cols), 32);
  const auto* bits = reinterpret_cast<const uint16_t*>(w.data);
  ThreadPool pool(2);
  std::vector<float> native(static_cast<size_t>(n * rows)), baseline(native.size());
  gemv_half(bits, kind, rows, cols, x.data(), n, nullptr, native.data(), pool);
  force_baseline_gemv_for_testing(true);
  EXPECT_EQ(gemv_isa(), CpuIsa::baseline);
  gemv_half(bits, kind, rows, cols, x.data(), n, nullptr, baseline.data(), pool);
  force_baseline_gemv_for_testing(false);
  EXPECT_EQ(native, baseline);
  if (gemv_isa() != CpuIsa::avx2) GTEST_SKIP() << "no AVX2 here: only the baseline kernel ran";
}

INSTANTIATE_TEST_SUITE_P(Kinds, GemvTest, ::testing::Values(HalfKind::f16, HalfKind::bf16));

TEST(MakeCpuLinear, ConvertsFormatsAndComputesTheLayer) {
  std::mt19937_64 rng(21);
  const auto w = test::random_tensor("layer.weight", {20, 48}, DType::f32, rng, 0.2f);
  const auto b = test::random_tensor("layer.bias", {20}, DType::f32, rng, 0.2f);
  const auto x = random_floats(48 * 2, 22);
  ThreadPool pool(2);
  for (auto [p, round] : {std::pair{Precision::fp16, DType::f16}, {Precision::bf16, DType::bf16}}) {
    const auto lin = make_cpu_linear(w, b, p, pool);
    EXPECT_EQ(lin->in_features(), 48);
    EXPECT_EQ(lin->out_features(), 20);
    EXPECT_EQ(lin->weight_bytes(), 20 * 48 * 2 + 20 * 4);
    std::vector<float> y(40);
    lin->forward(x.data(), 2, y.data());
    const auto bd = test::values(b);
    const auto ref = test::ref_linear(test::values(w, round), &bd,
                                      std::vector<double>(x.begin(), x.end()), 2, 20, 48);
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], ref[i], 1e-5);
  }
  EXPECT_THAT(make_cpu_linear(w, b, Precision::fp16, pool)->kernel_name(), "f16w");
}

TEST(MakeCpuLinear, RefusesBadShapes) {
  std::mt19937_64 rng(1);
  const auto w = test::random_tensor("blk.weight", {4, 8}, DType::f16, rng, 0.2f);
  ThreadPool pool(1);
  const auto flat = test::random_tensor("flat.weight", {32}, DType::f16, rng, 0.2f);
  EXPECT_THROW(make_cpu_linear(flat, std::nullopt, Precision::fp16, pool), Error);
  const auto bad_bias = test::random_tensor("blk.bias", {5}, DType::f16, rng, 0.2f);
  EXPECT_THROW(make_cpu_linear(w, bad_bias, Precision::fp16, pool), Error);
}

TEST(ConvertTensor, KeepsMatchingTensorsInPlaceAndRoundsOthers) {
  std::mt19937_64 rng(2);
  const auto bf = test::random_tensor("t", {100}, DType::bf16, rng, 3.0f);
  EXPECT_EQ(convert_tensor(bf, DType::bf16).data, bf.data);  // no copy
  const auto f16 = convert_tensor(bf, DType::f16);
  EXPECT_NE(f16.data, bf.data);
  EXPECT_EQ(f16.dtype, DType::f16);
  EXPECT_EQ(f16.nbytes, 200u);
  for (int64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(f16.at(i), half_to_float(float_to_half(bf.at(i))));
  }
}

TEST(ThreadPool, CoversEveryIndexOnceAndRethrows) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.size(), 4);
  std::vector<std::atomic<int>> hits(1001);
  pool.parallel_for(1001, 7, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_THROW(pool.parallel_for(100, 1,
                                 [](int64_t b, int64_t) {
                                   if (b >= 50) throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  // Still usable after an exception.
  std::atomic<int64_t> sum{0};
  pool.parallel_for(100, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) sum += i;
  });
  EXPECT_EQ(sum.load(), 4950);
}

}  // namespace
}  // namespace ec::engine::cpu
