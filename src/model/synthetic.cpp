// Seeded synthetic weights with the statistics of trained ones, generated in parallel.
//
// Recipe (why: quantization error and the cost of outlier handling depend on weight statistics, so
// N(0, 0.02) everywhere would flatter INT8/NF4; these mimic what trained Llama/Qwen weights show):
// * Every element is a pure function of (seed, tensor name, element index): a counter-based hash
//   (splitmix64), so the result does not depend on thread count or generation order.
// * Projections q/k/v/gate/up: N(0, 1/sqrt(fan_in)); o/down additionally scaled by 1/sqrt(2·layers)
//   (GPT-2 style) so the residual stream stays O(1) with depth. About 1 in 1024 elements is a
//   heavy-tail outlier scaled by 3–8×, so NF4 absmax blocks see the occasional large value.
// * "Outlier features": max(1, hidden/512) hidden channels (chosen per seed) get RMSNorm gains of
//   10–20, so the normalised activations entering q/k/v/gate/up exceed 6 in those channels, as in
//   LLM.int8()'s analysis; the weight columns reading those channels are damped by 4×.
// * RMSNorm gains elsewhere: 1 + 0.2·N(0,1), at least 0.05. Final norm: 3·(1 + 0.1·N(0,1)), which
//   gives logits a spread of a few units, like trained models (peaked, not uniform).
// * Embeddings (and an untied lm_head): N(0, 1/sqrt(hidden)) × a per-token scale exp(0.3·N(0,1)),
//   so token norms vary as in trained vocabularies. Biases: N(0, 0.05).
// The Gaussian is the Irwin–Hall sum of four 16-bit uniforms (variance-matched, bounded at ±3.5σ):
// cheap enough that a 7B model is memory-bandwidth bound rather than RNG bound.
#include "model/synthetic.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/half.h"

namespace ec::model {
namespace {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// Approximately N(0,1) from 64 random bits.
inline float gauss(uint64_t h) {
  uint32_t s =
      static_cast<uint32_t>((h & 0xffff) + ((h >> 16) & 0xffff) + ((h >> 32) & 0xffff) + (h >> 48));
  return (static_cast<float>(s) - 131070.0f) * (1.7320508f / 65536.0f);
}
inline float uniform01(uint64_t h) {
  return static_cast<float>(h >> 40) * 0x1p-24f;
}

enum class Kind { projection, embedding };

// A large tensor filled in parallel, row by row.
struct Job {
  std::byte* buf;
  int64_t rows, cols;
  uint64_t key;
  Kind kind;
  float sigma;
  const std::vector<float>* scale;  // per column (projection) or per row (embedding); may be null
};

void store_row(DType dtype, const float* src, int64_t n, std::byte* out) {
  switch (dtype) {
    case DType::f32:
      std::memcpy(out, src, static_cast<size_t>(n) * 4);
      return;
    case DType::f16:
    case DType::bf16: {
      auto* o = reinterpret_cast<uint16_t*>(out);
      if (dtype == DType::f16) {
        for (int64_t i = 0; i < n; ++i) o[i] = float_to_half(src[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = float_to_bf16(src[i]);
      }
      return;
    }
    default:
      fail("synthetic weights: unsupported dtype {}", dtype_name(dtype));
  }
}

void fill_rows(const Job& j, DType dtype, int64_t row_begin, int64_t row_end) {
  std::vector<float> row(static_cast<size_t>(j.cols));
  const size_t elem = dtype_size(dtype);
  for (int64_t r = row_begin; r < row_end; ++r) {
    const uint64_t base = j.key + static_cast<uint64_t>(r * j.cols);
    if (j.kind == Kind::embedding) {
      const float s = j.sigma * (j.scale ? (*j.scale)[static_cast<size_t>(r)] : 1.0f);
      for (int64_t c = 0; c < j.cols; ++c) {
        row[static_cast<size_t>(c)] = s * gauss(splitmix64(base + static_cast<uint64_t>(c)));
      }
    } else {
      for (int64_t c = 0; c < j.cols; ++c) {
        const uint64_t h = splitmix64(base + static_cast<uint64_t>(c));
        float v = j.sigma * gauss(h);
        const uint64_t h2 = h * 0xd6e8feb86659fd93ull;
        if ((h2 >> 54) == 0) v *= 3.0f + 5.0f * uniform01(h2 << 10);  // heavy tail, p = 1/1024
        if (j.scale) v *= (*j.scale)[static_cast<size_t>(c)];
        row[static_cast<size_t>(c)] = v;
      }
    }
    store_row(dtype, row.data(), j.cols, j.buf + static_cast<size_t>(r * j.cols) * elem);
  }
}

class Builder {
 public:
  Builder(uint64_t seed, DType dtype) : seed_(seed), dtype_(dtype) {}

  uint64_t key(std::string_view name) const { return splitmix64(seed_ ^ fnv1a(name)); }

  Tensor alloc(const std::string& name, std::vector<int64_t> shape) {
    Tensor t;
    t.name = name;
    t.dtype = dtype_;
    t.shape = std::move(shape);
    t.nbytes = static_cast<size_t>(t.numel()) * dtype_size(dtype_);
    std::shared_ptr<std::byte[]> buf(new std::byte[t.nbytes]);
    t.data = buf.get();
    t.owner = std::shared_ptr<const void>(buf, buf.get());
    return t;
  }

  // Small 1-D tensors: generated here, from per-element values.
  Tensor small(const std::string& name, const std::vector<float>& values) {
    Tensor t = alloc(name, {static_cast<int64_t>(values.size())});
    store_row(dtype_, values.data(), std::ssize(values), const_cast<std::byte*>(t.data));
    return t;
  }

  Tensor norm(const std::string& name, int64_t n, float mean, float spread,
              const std::vector<int>& outliers) {
    const uint64_t k = key(name);
    std::vector<float> g(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t h = splitmix64(k + static_cast<uint64_t>(i));
      g[static_cast<size_t>(i)] = std::max(0.05f, mean * (1.0f + spread * gauss(h)));
    }
    for (int c : outliers) {
      g[static_cast<size_t>(c)] =
          10.0f + 10.0f * uniform01(splitmix64(k ^ 0x5eedull ^ static_cast<uint64_t>(c)));
    }
    return small(name, g);
  }

  Tensor bias(const std::string& name, int64_t n) {
    const uint64_t k = key(name);
    std::vector<float> b(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      b[static_cast<size_t>(i)] = 0.05f * gauss(splitmix64(k + static_cast<uint64_t>(i)));
    }
    return small(name, b);
  }

  // Large 2-D tensor: allocated now, filled later by run().
  Tensor big(const std::string& name, int64_t rows, int64_t cols, Kind kind, float sigma,
             const std::vector<float>* scale) {
    Tensor t = alloc(name, {rows, cols});
    jobs_.push_back(Job{const_cast<std::byte*>(t.data), rows, cols, key(name), kind, sigma, scale});
    return t;
  }

  void run() {
    // Work units of ~1M elements (whole rows) across all tensors, handed out through a counter.
    struct Unit {
      size_t job;
      int64_t begin, end;
    };
    std::vector<Unit> units;
    for (size_t j = 0; j < jobs_.size(); ++j) {
      const int64_t rows_per = std::max<int64_t>(1, (int64_t{1} << 20) / jobs_[j].cols);
      for (int64_t r = 0; r < jobs_[j].rows; r += rows_per) {
        units.push_back({j, r, std::min(jobs_[j].rows, r + rows_per)});
      }
    }
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t u; (u = next.fetch_add(1)) < units.size();) {
        fill_rows(jobs_[units[u].job], dtype_, units[u].begin, units[u].end);
      }
    };
    const size_t n_threads =
        std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), units.size());
    std::vector<std::thread> threads;
    for (size_t i = 1; i < n_threads; ++i) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
  }

 private:
  uint64_t seed_;
  DType dtype_;
  std::vector<Job> jobs_;
};

}  // namespace

std::shared_ptr<const ModelWeights> make_synthetic_weights(const ModelConfig& c, uint64_t seed,
                                                           DType dtype) {
  if (dtype != DType::f32 && dtype != DType::f16 && dtype != DType::bf16) {
    fail("synthetic weights for '{}': dtype {} is not F32, F16 or BF16", c.name, dtype_name(dtype));
  }
  EC_CHECK(c.vocab_size > 0 && c.hidden_size > 0 && c.intermediate_size > 0 && c.num_layers > 0 &&
               c.num_heads > 0 && c.num_kv_heads > 0 && c.head_dim > 0,
           "synthetic weights for '{}': config has a non-positive dimension", c.name);

  auto w = std::make_shared<ModelWeights>();
  w->config = c;
  Builder b(seed, dtype);
  const int64_t h = c.hidden_size, inter = c.intermediate_size, v = c.vocab_size;
  const int64_t q_out = static_cast<int64_t>(c.num_heads) * c.head_dim;
  const int64_t kv_out = static_cast<int64_t>(c.num_kv_heads) * c.head_dim;

  // Outlier feature channels, distinct, chosen by the seed.
  std::vector<int> outliers;
  const size_t n_outliers = static_cast<size_t>(std::max<int64_t>(1, h / 512));
  for (uint64_t i = 0; outliers.size() < n_outliers; ++i) {
    int ch = static_cast<int>(splitmix64(seed ^ 0x07115e5ull ^ (i * 0x9e37ull)) %
                              static_cast<uint64_t>(h));
    if (std::find(outliers.begin(), outliers.end(), ch) == outliers.end()) outliers.push_back(ch);
  }
  std::vector<float> hidden_cols(static_cast<size_t>(h), 1.0f);  // damp columns reading outliers
  for (int ch : outliers) hidden_cols[static_cast<size_t>(ch)] = 0.25f;

  const uint64_t token_key = b.key("token_scale");
  std::vector<float> token_scale(static_cast<size_t>(v));
  for (int64_t t = 0; t < v; ++t) {
    token_scale[static_cast<size_t>(t)] =
        std::exp(0.3f * gauss(splitmix64(token_key + static_cast<uint64_t>(t))));
  }

  const float in_sigma = 1.0f / std::sqrt(static_cast<float>(h));
  const float depth = 1.0f / std::sqrt(2.0f * static_cast<float>(c.num_layers));
  const float o_sigma = depth / std::sqrt(static_cast<float>(q_out));
  const float down_sigma = depth / std::sqrt(static_cast<float>(inter));

  w->embed = b.big("model.embed_tokens.weight", v, h, Kind::embedding, in_sigma, &token_scale);
  w->layers.resize(static_cast<size_t>(c.num_layers));
  for (int i = 0; i < c.num_layers; ++i) {
    LayerWeights& l = w->layers[static_cast<size_t>(i)];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    const Kind k = Kind::projection;
    l.attn_norm = b.norm(p + "input_layernorm.weight", h, 1.0f, 0.2f, outliers);
    l.wq = b.big(p + "self_attn.q_proj.weight", q_out, h, k, in_sigma, &hidden_cols);
    l.wk = b.big(p + "self_attn.k_proj.weight", kv_out, h, k, in_sigma, &hidden_cols);
    l.wv = b.big(p + "self_attn.v_proj.weight", kv_out, h, k, in_sigma, &hidden_cols);
    if (c.attention_bias) {
      l.bq = b.bias(p + "self_attn.q_proj.bias", q_out);
      l.bk = b.bias(p + "self_attn.k_proj.bias", kv_out);
      l.bv = b.bias(p + "self_attn.v_proj.bias", kv_out);
    }
    l.wo = b.big(p + "self_attn.o_proj.weight", h, q_out, k, o_sigma, nullptr);
    l.ffn_norm = b.norm(p + "post_attention_layernorm.weight", h, 1.0f, 0.2f, outliers);
    l.w_gate = b.big(p + "mlp.gate_proj.weight", inter, h, k, in_sigma, &hidden_cols);
    l.w_up = b.big(p + "mlp.up_proj.weight", inter, h, k, in_sigma, &hidden_cols);
    l.w_down = b.big(p + "mlp.down_proj.weight", h, inter, k, down_sigma, nullptr);
  }
  w->final_norm = b.norm("model.norm.weight", h, 3.0f, 0.1f, {});
  if (c.tie_word_embeddings) {
    w->lm_head = w->embed;
  } else {
    w->lm_head = b.big("lm_head.weight", v, h, Kind::embedding, in_sigma, &token_scale);
  }
  b.run();
  return w;
}

}  // namespace ec::model
