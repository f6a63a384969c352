// Test helpers: tiny random Llama/Qwen2 weights built in memory, and a straightforward
// double-precision forward pass over them to check the engine against.
#pragma once

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/half.h"
#include "model/weights.h"

namespace ec::test {

inline uint16_t to_bits(float v, DType dtype) {
  return dtype == DType::f16 ? float_to_half(v) : float_to_bf16(v);
}

// A tensor owning its bytes, filled with N(mean, std) values stored in `dtype` (f32, f16, bf16).
inline model::Tensor random_tensor(const std::string& name, std::vector<int64_t> shape, DType dtype,
                                   std::mt19937_64& rng, float std_dev, float mean = 0.0f) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  auto storage = std::make_shared<std::vector<float>>(static_cast<size_t>(n));  // aligned bytes
  auto* bytes = reinterpret_cast<std::byte*>(storage->data());
  std::normal_distribution<float> dist(mean, std_dev);
  for (int64_t i = 0; i < n; ++i) {
    const float v = dist(rng);
    if (dtype == DType::f32) {
      std::memcpy(bytes + i * 4, &v, 4);
    } else {
      const uint16_t b = to_bits(v, dtype);
      std::memcpy(bytes + i * 2, &b, 2);
    }
  }
  model::Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data = bytes;
  t.nbytes = static_cast<size_t>(n) * dtype_size(dtype);
  t.owner = storage;
  return t;
}

struct TinySpec {
  model::Arch arch = model::Arch::llama;
  DType dtype = DType::f16;
  int hidden = 64, layers = 2, heads = 4, kv_heads = 2, inter = 96, vocab = 97, max_pos = 256;
  double theta = 10000.0;
  bool tied = false;
  bool bias = false;
  uint64_t seed = 1;
};

inline std::shared_ptr<model::ModelWeights> make_tiny_model(const TinySpec& s) {
  std::mt19937_64 rng(s.seed);
  auto w = std::make_shared<model::ModelWeights>();
  auto& c = w->config;
  c.name = "tiny-test";
  c.arch = s.arch;
  c.vocab_size = s.vocab;
  c.hidden_size = s.hidden;
  c.intermediate_size = s.inter;
  c.num_layers = s.layers;
  c.num_heads = s.heads;
  c.num_kv_heads = s.kv_heads;
  c.head_dim = s.hidden / s.heads;
  c.max_position_embeddings = s.max_pos;
  c.rms_norm_eps = 1e-6;
  c.rope_theta = s.theta;
  c.tie_word_embeddings = s.tied;
  c.attention_bias = s.bias;
  const int64_t h = s.hidden, q = int64_t{s.heads} * c.head_dim,
                kv = int64_t{s.kv_heads} * c.head_dim;
  // Scaled up (std 0.08) with norm weights around 1 so the logits are far from flat.
  const float sd = 0.08f;
  w->embed = random_tensor("model.embed_tokens.weight", {s.vocab, h}, s.dtype, rng, 0.5f);
  for (int l = 0; l < s.layers; ++l) {
    model::LayerWeights L;
    const std::string p = "model.layers." + std::to_string(l) + ".";
    L.attn_norm = random_tensor(p + "input_layernorm.weight", {h}, s.dtype, rng, 0.2f, 1.0f);
    L.wq = random_tensor(p + "self_attn.q_proj.weight", {q, h}, s.dtype, rng, sd * 2);
    L.wk = random_tensor(p + "self_attn.k_proj.weight", {kv, h}, s.dtype, rng, sd * 2);
    L.wv = random_tensor(p + "self_attn.v_proj.weight", {kv, h}, s.dtype, rng, sd);
    L.wo = random_tensor(p + "self_attn.o_proj.weight", {h, q}, s.dtype, rng, sd);
    if (s.bias) {
      L.bq = random_tensor(p + "self_attn.q_proj.bias", {q}, s.dtype, rng, 0.1f);
      L.bk = random_tensor(p + "self_attn.k_proj.bias", {kv}, s.dtype, rng, 0.1f);
      L.bv = random_tensor(p + "self_attn.v_proj.bias", {kv}, s.dtype, rng, 0.1f);
    }
    L.ffn_norm =
        random_tensor(p + "post_attention_layernorm.weight", {h}, s.dtype, rng, 0.2f, 1.0f);
    L.w_gate = random_tensor(p + "mlp.gate_proj.weight", {s.inter, h}, s.dtype, rng, sd);
    L.w_up = random_tensor(p + "mlp.up_proj.weight", {s.inter, h}, s.dtype, rng, sd);
    L.w_down = random_tensor(p + "mlp.down_proj.weight", {h, s.inter}, s.dtype, rng, sd);
    w->layers.push_back(std::move(L));
  }
  w->final_norm = random_tensor("model.norm.weight", {h}, s.dtype, rng, 0.2f, 1.0f);
  w->lm_head = s.tied ? w->embed : random_tensor("lm_head.weight", {s.vocab, h}, s.dtype, rng, sd);
  return w;
}

// Tensor values as doubles, optionally rounded through a 16-bit type first (what the engine does
// when it converts a checkpoint to another format).
inline std::vector<double> values(const model::Tensor& t, DType round_to = DType::f32) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    float v = t.at(static_cast<int64_t>(i));
    if (round_to == DType::f16) v = half_to_float(float_to_half(v));
    if (round_to == DType::bf16) v = bf16_to_float(float_to_bf16(v));
    out[i] = v;
  }
  return out;
}

// y[t, r] = Σ_c w[r, c] x[t, c] (+ b[r]) in double.
inline std::vector<double> ref_linear(const std::vector<double>& w, const std::vector<double>* b,
                                      const std::vector<double>& x, int n, int64_t rows,
                                      int64_t cols) {
  std::vector<double> y(static_cast<size_t>(n * rows));
  for (int t = 0; t < n; ++t) {
    for (int64_t r = 0; r < rows; ++r) {
      double acc = b != nullptr ? (*b)[r] : 0.0;
      for (int64_t c = 0; c < cols; ++c) acc += w[r * cols + c] * x[t * cols + c];
      y[t * rows + r] = acc;
    }
  }
  return y;
}

inline void ref_rmsnorm(std::vector<double>& x, const std::vector<double>& w, int n, int64_t dim,
                        double eps) {
  for (int t = 0; t < n; ++t) {
    double ss = 0;
    for (int64_t i = 0; i < dim; ++i) ss += x[t * dim + i] * x[t * dim + i];
    const double s = 1.0 / std::sqrt(ss / static_cast<double>(dim) + eps);
    for (int64_t i = 0; i < dim; ++i) x[t * dim + i] = x[t * dim + i] * s * w[i];
  }
}

// HF rotate_half RoPE on [n_heads, head_dim] at `pos`, all in double.
inline void ref_rope(double* v, int n_heads, int head_dim, int pos, double theta) {
  const int half = head_dim / 2;
  for (int h = 0; h < n_heads; ++h) {
    double* x = v + h * head_dim;
    for (int i = 0; i < half; ++i) {
      const double angle = pos / std::pow(theta, 2.0 * i / head_dim);
      const double a = x[i], b = x[i + half];
      x[i] = a * std::cos(angle) - b * std::sin(angle);
      x[i + half] = b * std::cos(angle) + a * std::sin(angle);
    }
  }
}

// Causal GQA attention for n tokens at positions 0..n-1: q [n, heads*hd], k/v [n, kv*hd].
inline std::vector<double> ref_attention(const std::vector<double>& q, const std::vector<double>& k,
                                         const std::vector<double>& v, int n, int heads,
                                         int kv_heads, int hd) {
  std::vector<double> out(q.size(), 0.0);
  const int group = heads / kv_heads;
  for (int t = 0; t < n; ++t) {
    for (int h = 0; h < heads; ++h) {
      const int g = h / group;
      std::vector<double> s(static_cast<size_t>(t + 1));
      double m = -1e300;
      for (int p = 0; p <= t; ++p) {
        double d = 0;
        for (int i = 0; i < hd; ++i) {
          d += q[(t * heads + h) * hd + i] * k[(p * kv_heads + g) * hd + i];
        }
        s[p] = d / std::sqrt(static_cast<double>(hd));
        m = std::max(m, s[p]);
      }
      double sum = 0;
      for (auto& e : s) sum += (e = std::exp(e - m));
      for (int p = 0; p <= t; ++p) {
        for (int i = 0; i < hd; ++i) {
          out[(t * heads + h) * hd + i] += s[p] / sum * v[(p * kv_heads + g) * hd + i];
        }
      }
    }
  }
  return out;
}

// The whole model in double over `tokens` from position 0: logits [n, vocab].
inline std::vector<double> reference_logits(const model::ModelWeights& w,
                                            std::span<const int32_t> tokens,
                                            DType round_to = DType::f32) {
  const auto& c = w.config;
  const int n = static_cast<int>(tokens.size());
  const int64_t H = c.hidden_size, I = c.intermediate_size, V = c.vocab_size;
  const int hd = c.head_dim, qd = c.num_heads * hd, kvd = c.num_kv_heads * hd;
  const auto embed = values(w.embed, round_to);
  std::vector<double> x(static_cast<size_t>(n * H));
  for (int t = 0; t < n; ++t) {
    for (int64_t i = 0; i < H; ++i) x[t * H + i] = embed[tokens[t] * H + i];
  }
  for (const auto& L : w.layers) {
    auto h = x;
    ref_rmsnorm(h, values(L.attn_norm), n, H, c.rms_norm_eps);
    std::vector<double> bq, bk, bv;
    if (L.bq) bq = values(*L.bq), bk = values(*L.bk), bv = values(*L.bv);
    auto q = ref_linear(values(L.wq, round_to), L.bq ? &bq : nullptr, h, n, qd, H);
    auto k = ref_linear(values(L.wk, round_to), L.bk ? &bk : nullptr, h, n, kvd, H);
    auto v = ref_linear(values(L.wv, round_to), L.bv ? &bv : nullptr, h, n, kvd, H);
    for (int t = 0; t < n; ++t) {
      ref_rope(q.data() + t * qd, c.num_heads, hd, t, c.rope_theta);
      ref_rope(k.data() + t * kvd, c.num_kv_heads, hd, t, c.rope_theta);
    }
    const auto a = ref_attention(q, k, v, n, c.num_heads, c.num_kv_heads, hd);
    const auto o = ref_linear(values(L.wo, round_to), nullptr, a, n, H, qd);
    for (size_t i = 0; i < x.size(); ++i) x[i] += o[i];
    h = x;
    ref_rmsnorm(h, values(L.ffn_norm), n, H, c.rms_norm_eps);
    auto g = ref_linear(values(L.w_gate, round_to), nullptr, h, n, I, H);
    const auto u = ref_linear(values(L.w_up, round_to), nullptr, h, n, I, H);
    for (size_t i = 0; i < g.size(); ++i) g[i] = g[i] / (1.0 + std::exp(-g[i])) * u[i];
    const auto d = ref_linear(values(L.w_down, round_to), nullptr, g, n, H, I);
    for (size_t i = 0; i < x.size(); ++i) x[i] += d[i];
  }
  ref_rmsnorm(x, values(w.final_norm), n, H, c.rms_norm_eps);
  const auto& head = c.tie_word_embeddings ? w.embed : w.lm_head;
  return ref_linear(values(head, round_to), nullptr, x, n, V, H);
}

// ‖a − b‖ / ‖b‖ over a row.
inline double relative_error(std::span<const float> a, std::span<const double> b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace ec::test
