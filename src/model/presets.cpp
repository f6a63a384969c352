// The preset table: seed models copied from their Hugging Face config.json, tiny test models,
// default.
#include "model/presets.h"

#include <fmt/format.h>

#include "core/error.h"

namespace ec::model {
namespace {

struct Shape {
  Arch arch;
  int vocab, hidden, inter, layers, heads, kv_heads, max_pos;
  double eps, theta;
  bool tied;
  int bos, eos;
};

Preset make(std::string name, const Shape& s, std::string tokenizer, std::string source,
            std::string description) {
  ModelConfig c;
  c.name = name;
  c.arch = s.arch;
  c.vocab_size = s.vocab;
  c.hidden_size = s.hidden;
  c.intermediate_size = s.inter;
  c.num_layers = s.layers;
  c.num_heads = s.heads;
  c.num_kv_heads = s.kv_heads;
  c.head_dim = s.hidden / s.heads;
  c.max_position_embeddings = s.max_pos;
  c.rms_norm_eps = s.eps;
  c.rope_theta = s.theta;
  c.tie_word_embeddings = s.tied;
  c.attention_bias = s.arch == Arch::qwen2;
  c.bos_token_id = s.bos;
  c.eos_token_id = s.eos;
  c.tokenizer_family = std::move(tokenizer);
  return Preset{std::move(c), std::move(source), std::move(description)};
}

std::vector<Preset> build() {
  const Arch q = Arch::qwen2;
  const Arch l = Arch::llama;
  std::vector<Preset> p;
  // Seed models. Values are those of each repo's config.json on huggingface.co (checked against
  // copies of huggingface.co/<repo>/blob/main/config.json; Qwen/Qwen2-7B directly). Base models use
  // <|endoftext|> (151643) as bos and eos. FP16 weight bytes = 2 × parameter_count(): 0.99, 2.20,
  // 3.09, 6.17 and 15.2 GB, as in design/PERFORMANCE.md (checked in presets_test).
  //                 vocab   hidden inter  layers heads kv  max_pos  eps   theta  tied   bos     eos
  p.push_back(make("qwen2-0.5b",
                   {q, 151936, 896, 4864, 24, 14, 2, 131072, 1e-6, 1e6, true, 151643, 151643},
                   "qwen2", "Qwen/Qwen2-0.5B", "Qwen2 0.5B (494M parameters, tied embeddings)"));
  p.push_back(make("tinyllama-1.1b",
                   {l, 32000, 2048, 5632, 22, 32, 4, 2048, 1e-5, 1e4, false, 1, 2}, "llama2",
                   "TinyLlama/TinyLlama-1.1B-Chat-v1.0",
                   "TinyLlama 1.1B chat (Llama-2 architecture and tokenizer)"));
  p.push_back(make("qwen2-1.5b",
                   {q, 151936, 1536, 8960, 28, 12, 2, 131072, 1e-6, 1e6, true, 151643, 151643},
                   "qwen2", "Qwen/Qwen2-1.5B", "Qwen2 1.5B (tied embeddings)"));
  p.push_back(make("qwen2.5-3b",
                   {q, 151936, 2048, 11008, 36, 16, 2, 32768, 1e-6, 1e6, true, 151643, 151643},
                   "qwen2", "Qwen/Qwen2.5-3B", "Qwen2.5 3B (tied embeddings)"));
  p.push_back(make("qwen2-7b",
                   {q, 152064, 3584, 18944, 28, 28, 4, 131072, 1e-6, 1e6, false, 151643, 151643},
                   "qwen2", "Qwen/Qwen2-7B", "Qwen2 7B (untied lm_head, vocab 152064)"));
  // Tiny models for tests: every code path (GQA, biases, tied and untied heads) in kilobytes.
  // Byte-level tokenizer: ids 0-255 are bytes, 256 = bos, 257 = eos; the rest is padding.
  p.push_back(make("tiny-llama", {l, 512, 64, 160, 2, 4, 2, 512, 1e-5, 1e4, false, 256, 257},
                   "bytes", "synthetic", "2-layer Llama for tests (untied, no biases)"));
  p.push_back(make("tiny-qwen2", {q, 512, 64, 160, 3, 4, 2, 512, 1e-6, 1e6, true, 256, 257},
                   "bytes", "synthetic", "3-layer Qwen2 for tests (tied, q/k/v biases)"));
  // `make run`'s embedded model: Qwen2-style, byte vocabulary padded to 320 (a multiple of 64, as
  // real vocabularies are padded). 2.99M parameters, 6.0 MB in FP16: the whole protocol runs in
  // seconds on two CPU cores, yet every kernel sees real GQA, biases and multi-layer shapes.
  p.push_back(make("default", {q, 320, 128, 352, 4, 4, 2, 1024, 1e-6, 1e6, true, 256, 257}, "bytes",
                   "synthetic", "small embedded Qwen2-style model used by `make run`"));
  return p;
}

}  // namespace

const std::vector<Preset>& all_presets() {
  static const std::vector<Preset> presets = build();
  return presets;
}

const Preset* find_preset_entry(std::string_view name) {
  for (const Preset& p : all_presets()) {
    if (p.config.name == name) return &p;
  }
  return nullptr;
}

const ModelConfig* find_preset(std::string_view name) {
  const Preset* p = find_preset_entry(name);
  return p == nullptr ? nullptr : &p->config;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : all_presets()) names.push_back(p.config.name);
  return names;
}

const ModelConfig& preset_or_throw(std::string_view name) {
  if (const ModelConfig* c = find_preset(name)) return *c;
  fail_usage("unknown model preset '{}'; known presets: {}", name, fmt::join(preset_names(), ", "));
}

}  // namespace ec::model
