// Synthetic weights: deterministic, seed-sensitive, trained-like statistics, non-degenerate logits.
#include "model/synthetic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/checkpoint.h"
#include "model/model_test_util.h"
#include "model/presets.h"

namespace ec::model {
namespace {

std::vector<float> to_floats(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.at(i);
  return v;
}

double mean_of(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s / static_cast<double>(v.size());
}

double std_of(const std::vector<float>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (float x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

TEST(SyntheticTest, DeterministicForTheSameSeed) {
  for (const char* preset : {"tiny-qwen2", "tiny-llama"}) {
    auto a = make_synthetic_weights(preset_or_throw(preset), 1234);
    auto b = make_synthetic_weights(preset_or_throw(preset), 1234);
    std::vector<Tensor> ta = checkpoint_tensors(*a), tb = checkpoint_tensors(*b);
    ASSERT_EQ(ta.size(), tb.size());
    for (size_t i = 0; i < ta.size(); ++i) {
      EXPECT_TRUE(test::same_bytes(ta[i], tb[i])) << preset << " " << ta[i].name;
    }
  }
}

TEST(SyntheticTest, EveryTensorDependsOnTheSeed) {
  auto a = make_synthetic_weights(preset_or_throw("tiny-qwen2"), 1);
  auto b = make_synthetic_weights(preset_or_throw("tiny-qwen2"), 2);
  std::vector<Tensor> ta = checkpoint_tensors(*a), tb = checkpoint_tensors(*b);
  for (size_t i = 0; i < ta.size(); ++i) {
    EXPECT_FALSE(test::same_bytes(ta[i], tb[i])) << ta[i].name;
  }
  // Different tensors of one model are not copies of each other either.
  EXPECT_FALSE(test::same_bytes(a->layers[0].wk, a->layers[0].wv));
  EXPECT_FALSE(test::same_bytes(a->layers[0].w_gate, a->layers[1].w_gate));
}

TEST(SyntheticTest, DtypesShareTheUnderlyingValues) {
  auto f32 = make_synthetic_weights(preset_or_throw("tiny-llama"), 8, DType::f32);
  auto f16 = make_synthetic_weights(preset_or_throw("tiny-llama"), 8, DType::f16);
  auto bf16 = make_synthetic_weights(preset_or_throw("tiny-llama"), 8, DType::bf16);
  const Tensor& w = f32->layers[1].w_up;
  for (int64_t i = 0; i < w.numel(); i += 97) {
    EXPECT_EQ(f16->layers[1].w_up.at(i), half_to_float(float_to_half(w.at(i)))) << i;
    EXPECT_EQ(bf16->layers[1].w_up.at(i), bf16_to_float(float_to_bf16(w.at(i)))) << i;
  }
  EXPECT_THROW(make_synthetic_weights(preset_or_throw("tiny-llama"), 8, DType::i8), ec::Error);
}

TEST(SyntheticTest, ShapesMatchTheConfig) {
  const ModelConfig& c = preset_or_throw("default");
  auto w = make_synthetic_weights(c, 3);
  // checkpoint_tensors checks every shape against the config and throws on a mismatch.
  std::vector<Tensor> all = checkpoint_tensors(*w);
  int64_t params = 0;
  for (const Tensor& t : all) params += t.numel();
  EXPECT_EQ(params, c.parameter_count());
  EXPECT_EQ(w->lm_head.data, w->embed.data);  // tied
}

TEST(SyntheticTest, StatisticsLookTrained) {
  const ModelConfig& c = preset_or_throw("default");  // hidden 128, inter 352
  auto w = make_synthetic_weights(c, 77, DType::f32);
  const float h = static_cast<float>(c.hidden_size);

  // Projections reading the hidden state: σ ≈ 1/sqrt(hidden).
  std::vector<float> q = to_floats(w->layers[0].wq);
  EXPECT_NEAR(std_of(q), 1.0 / std::sqrt(h), 0.15 / std::sqrt(h));
  EXPECT_NEAR(mean_of(q), 0.0, 0.01 / std::sqrt(h));
  // o/down are scaled down further by depth.
  EXPECT_LT(std_of(to_floats(w->layers[0].w_down)), 0.5 / std::sqrt(h));

  // Heavy tail: some elements far beyond the ±3.5σ a plain Irwin–Hall draw can reach.
  std::vector<float> gate = to_floats(w->layers[0].w_gate);
  const double s = std_of(gate);
  const auto tail =
      std::count_if(gate.begin(), gate.end(), [&](float x) { return std::abs(x) > 4 * s; });
  EXPECT_GT(tail, 0);
  EXPECT_LT(tail, static_cast<long>(gate.size() / 200));

  // RMSNorm gains around 1 with spread, plus outlier channels with gains ≥ 10.
  std::vector<float> g = to_floats(w->layers[0].attn_norm);
  std::vector<float> normal_g;
  int outliers = 0;
  for (float x : g) {
    if (x >= 10) {
      ++outliers;
    } else {
      normal_g.push_back(x);
    }
  }
  EXPECT_GE(outliers, 1);
  EXPECT_LE(outliers, 4);
  EXPECT_NEAR(mean_of(normal_g), 1.0, 0.05);
  EXPECT_GT(std_of(normal_g), 0.1);
  EXPECT_GT(*std::min_element(g.begin(), g.end()), 0.0f);
  // The same channels are outliers in every layer (a property of the residual stream).
  std::vector<float> g2 = to_floats(w->layers[3].ffn_norm);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g[i] >= 10, g2[i] >= 10) << i;

  // Embeddings: per-token norms vary.
  std::vector<double> norms;
  for (int64_t t = 0; t < c.vocab_size; ++t) {
    double n = 0;
    for (int64_t j = 0; j < c.hidden_size; ++j) {
      const double x = w->embed.at(t * c.hidden_size + j);
      n += x * x;
    }
    norms.push_back(std::sqrt(n));
  }
  std::vector<float> nf(norms.begin(), norms.end());
  EXPECT_GT(std_of(nf) / mean_of(nf), 0.15);

  // Biases: small but not zero.
  std::vector<float> b = to_floats(*w->layers[0].bk);
  EXPECT_GT(std_of(b), 0.02);
  EXPECT_LT(std_of(b), 0.1);
}

// A plain f32 forward pass (Llama/Qwen2: RMSNorm, RoPE, GQA causal attention, SwiGLU) over a short
// sequence, returning the logits at every position. Only for checking the weights are usable.
std::vector<std::vector<float>> reference_logits(const ModelWeights& w,
                                                 const std::vector<int>& tokens) {
  const ModelConfig& c = w.config;
  const int64_t H = c.hidden_size, D = c.head_dim, NH = c.num_heads, NKV = c.num_kv_heads;
  const int64_t I = c.intermediate_size, T = std::ssize(tokens);
  auto matvec = [](const Tensor& m, const std::vector<float>& x, const std::optional<Tensor>& b) {
    std::vector<float> y(static_cast<size_t>(m.rows()));
    for (int64_t r = 0; r < m.rows(); ++r) {
      double acc = b ? b->at(r) : 0.0;
      for (int64_t k = 0; k < m.cols(); ++k)
        acc += m.at(r * m.cols() + k) * x[static_cast<size_t>(k)];
      y[static_cast<size_t>(r)] = static_cast<float>(acc);
    }
    return y;
  };
  auto rmsnorm = [&](const std::vector<float>& x, const Tensor& g) {
    double ss = 0;
    for (float v : x) ss += v * v;
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(x.size()) + c.rms_norm_eps);
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      y[i] = static_cast<float>(x[i] * inv * g.at(static_cast<int64_t>(i)));
    return y;
  };
  auto rope = [&](std::vector<float>& v, int64_t heads, int64_t pos) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < D / 2; ++i) {
        const double freq =
            std::pow(c.rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(D));
        const double a = static_cast<double>(pos) * freq;
        float& x0 = v[static_cast<size_t>(h * D + i)];
        float& x1 = v[static_cast<size_t>(h * D + i + D / 2)];
        const double r0 = x0 * std::cos(a) - x1 * std::sin(a);
        const double r1 = x0 * std::sin(a) + x1 * std::cos(a);
        x0 = static_cast<float>(r0);
        x1 = static_cast<float>(r1);
      }
    }
  };
  const std::optional<Tensor> none;
  std::vector<std::vector<float>> x(static_cast<size_t>(T),
                                    std::vector<float>(static_cast<size_t>(H)));
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t j = 0; j < H; ++j)
      x[static_cast<size_t>(t)][static_cast<size_t>(j)] =
          w.embed.at(tokens[static_cast<size_t>(t)] * H + j);
  }
  for (const LayerWeights& l : w.layers) {
    std::vector<std::vector<float>> q(static_cast<size_t>(T)), k(static_cast<size_t>(T)),
        v(static_cast<size_t>(T));
    for (int64_t t = 0; t < T; ++t) {
      auto xn = rmsnorm(x[static_cast<size_t>(t)], l.attn_norm);
      q[static_cast<size_t>(t)] = matvec(l.wq, xn, l.bq);
      k[static_cast<size_t>(t)] = matvec(l.wk, xn, l.bk);
      v[static_cast<size_t>(t)] = matvec(l.wv, xn, l.bv);
      rope(q[static_cast<size_t>(t)], NH, t);
      rope(k[static_cast<size_t>(t)], NKV, t);
    }
    for (int64_t t = 0; t < T; ++t) {
      std::vector<float> attn(static_cast<size_t>(NH * D), 0.0f);
      for (int64_t h = 0; h < NH; ++h) {
        const int64_t kvh = h / (NH / NKV);
        std::vector<double> s(static_cast<size_t>(t + 1));
        double mx = -1e30;
        for (int64_t u = 0; u <= t; ++u) {
          double d = 0;
          for (int64_t i = 0; i < D; ++i)
            d += q[static_cast<size_t>(t)][static_cast<size_t>(h * D + i)] *
                 k[static_cast<size_t>(u)][static_cast<size_t>(kvh * D + i)];
          s[static_cast<size_t>(u)] = d / std::sqrt(static_cast<double>(D));
          mx = std::max(mx, s[static_cast<size_t>(u)]);
        }
        double z = 0;
        for (double& e : s) z += (e = std::exp(e - mx));
        for (int64_t u = 0; u <= t; ++u) {
          for (int64_t i = 0; i < D; ++i)
            attn[static_cast<size_t>(h * D + i)] +=
                static_cast<float>(s[static_cast<size_t>(u)] / z) *
                v[static_cast<size_t>(u)][static_cast<size_t>(kvh * D + i)];
        }
      }
      auto o = matvec(l.wo, attn, none);
      for (int64_t j = 0; j < H; ++j)
        x[static_cast<size_t>(t)][static_cast<size_t>(j)] += o[static_cast<size_t>(j)];
      auto xn = rmsnorm(x[static_cast<size_t>(t)], l.ffn_norm);
      auto g = matvec(l.w_gate, xn, none);
      auto u = matvec(l.w_up, xn, none);
      for (int64_t i = 0; i < I; ++i) {
        const float gi = g[static_cast<size_t>(i)];
        g[static_cast<size_t>(i)] = gi / (1.0f + std::exp(-gi)) * u[static_cast<size_t>(i)];
      }
      auto d = matvec(l.w_down, g, none);
      for (int64_t j = 0; j < H; ++j)
        x[static_cast<size_t>(t)][static_cast<size_t>(j)] += d[static_cast<size_t>(j)];
    }
  }
  std::vector<std::vector<float>> logits;
  for (int64_t t = 0; t < T; ++t)
    logits.push_back(matvec(w.lm_head, rmsnorm(x[static_cast<size_t>(t)], w.final_norm), none));
  return logits;
}

TEST(SyntheticTest, LogitsAreNeitherUniformNorStuck) {
  for (const char* preset : {"tiny-qwen2", "tiny-llama"}) {
    auto w = make_synthetic_weights(preset_or_throw(preset), 2024);
    std::mt19937 rng(5);
    std::vector<int> tokens(16);
    for (int& t : tokens) t = static_cast<int>(rng() % 256);
    auto logits = reference_logits(*w, tokens);
    std::set<int64_t> argmaxes;
    double ent_min = 1e9, ent_max = 0, ent_sum = 0, pmax_max = 0;
    const double log_v = std::log(static_cast<double>(w->config.vocab_size));
    for (const auto& l : logits) {
      argmaxes.insert(std::max_element(l.begin(), l.end()) - l.begin());
      const float mx = *std::max_element(l.begin(), l.end());
      double z = 0, ent = 0;
      for (float v : l) z += std::exp(v - mx);
      double pmax = 0;
      for (float v : l) {
        const double p = std::exp(v - mx) / z;
        pmax = std::max(pmax, p);
        if (p > 0) ent -= p * std::log(p);
      }
      ent_min = std::min(ent_min, ent);
      ent_max = std::max(ent_max, ent);
      ent_sum += ent;
      pmax_max = std::max(pmax_max, pmax);
      EXPECT_GT(std_of(l), 1.0) << preset;  // not flat
      EXPECT_GT(ent, 0.1) << preset;        // never a one-hot
      EXPECT_LT(pmax, 0.99) << preset;
    }
    std::printf("%s: entropy min %.2f mean %.2f max %.2f (uniform %.2f), max p %.2f\n", preset,
                ent_min, ent_sum / static_cast<double>(logits.size()), ent_max, log_v, pmax_max);
    // On average peaked like a trained LM (~2 nats), far from uniform, far from certain.
    EXPECT_GT(ent_sum / static_cast<double>(logits.size()), 1.0) << preset;
    EXPECT_LT(ent_max, log_v - 1.0) << preset;
    EXPECT_GE(argmaxes.size(), 6u) << preset << ": the top token must depend on the input";
  }
}

TEST(SyntheticTest, GeneratesEveryTensorOfARealSizedPreset) {
  // qwen2-0.5b in FP16 (494M parameters, 0.99 GB), the size `make run` uses; how fast this goes
  // is bench_synthetic's job (bench/model), not a test's.
  auto w = make_synthetic_weights(preset_or_throw("qwen2-0.5b"), 1);
  ASSERT_EQ(w->layers.size(), 24u);
  EXPECT_NE(w->layers[23].w_down.at(w->layers[23].w_down.numel() - 1), 0.0f);
  EXPECT_NE(w->layers[0].wq.at(0), 0.0f);
}

}  // namespace
}  // namespace ec::model
