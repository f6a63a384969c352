// Checkpoint directories: map Hugging Face tensor names to weight roles, check shapes, load shards.
#include "model/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "model/finite_weights.h"
#include "model/limits.h"
#include "model/safetensors.h"

namespace ec::model {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSingleFile = "model.safetensors";
constexpr const char* kIndexFile = "model.safetensors.index.json";

// One checkpoint tensor: its Hugging Face name, the shape the config implies, and where it goes.
struct Slot {
  std::string name;
  std::vector<int64_t> shape;
  Tensor* tensor = nullptr;                   // required
  std::optional<Tensor>* optional = nullptr;  // bias slots
};

// Every tensor the config implies, in the order transformers lays them out. `w.layers` is resized.
// lm_head is listed only when untied.
std::vector<Slot> slots(ModelWeights& w) {
  const ModelConfig& c = w.config;
  const int64_t h = c.hidden_size, inter = c.intermediate_size, v = c.vocab_size;
  const int64_t q_out = static_cast<int64_t>(c.num_heads) * c.head_dim;
  const int64_t kv_out = static_cast<int64_t>(c.num_kv_heads) * c.head_dim;
  w.layers.resize(static_cast<size_t>(c.num_layers));
  std::vector<Slot> s;
  s.push_back({"model.embed_tokens.weight", {v, h}, &w.embed, nullptr});
  for (int i = 0; i < c.num_layers; ++i) {
    LayerWeights& l = w.layers[static_cast<size_t>(i)];
    const std::string p = fmt::format("model.layers.{}.", i);
    s.push_back({p + "input_layernorm.weight", {h}, &l.attn_norm, nullptr});
    s.push_back({p + "self_attn.q_proj.weight", {q_out, h}, &l.wq, nullptr});
    if (c.attention_bias) s.push_back({p + "self_attn.q_proj.bias", {q_out}, nullptr, &l.bq});
    s.push_back({p + "self_attn.k_proj.weight", {kv_out, h}, &l.wk, nullptr});
    if (c.attention_bias) s.push_back({p + "self_attn.k_proj.bias", {kv_out}, nullptr, &l.bk});
    s.push_back({p + "self_attn.v_proj.weight", {kv_out, h}, &l.wv, nullptr});
    if (c.attention_bias) s.push_back({p + "self_attn.v_proj.bias", {kv_out}, nullptr, &l.bv});
    s.push_back({p + "self_attn.o_proj.weight", {h, q_out}, &l.wo, nullptr});
    s.push_back({p + "post_attention_layernorm.weight", {h}, &l.ffn_norm, nullptr});
    s.push_back({p + "mlp.gate_proj.weight", {inter, h}, &l.w_gate, nullptr});
    s.push_back({p + "mlp.up_proj.weight", {inter, h}, &l.w_up, nullptr});
    s.push_back({p + "mlp.down_proj.weight", {h, inter}, &l.w_down, nullptr});
  }
  s.push_back({"model.norm.weight", {h}, &w.final_norm, nullptr});
  if (!c.tie_word_embeddings) s.push_back({"lm_head.weight", {v, h}, &w.lm_head, nullptr});
  return s;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A tensor plus the file it came from, for messages.
struct Located {
  Tensor tensor;
  std::string file;
};

std::map<std::string, Located> read_sharded(const fs::path& dir) {
  const fs::path index_path = dir / kIndexFile;
  const std::string index_name = index_path.string();
  json index;
  try {
    index = json::parse(read_file_within(index_path, kMaxIndexJsonBytes, "safetensors index"));
  } catch (const json::exception& e) {
    fail("{}: not valid JSON: {}", index_name, e.what());
  }
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object()) {
    fail("{}: expected an object with a 'weight_map' object (tensor name → shard file)",
         index_name);
  }
  std::map<std::string, std::string> weight_map;  // tensor → shard file name
  for (const auto& [name, shard] : index["weight_map"].items()) {
    if (!shard.is_string()) {
      fail("{}: weight_map entry '{}' must be a shard file name (string)", index_name, name);
    }
    const fs::path rel(shard.get<std::string>());
    bool escapes = rel.empty() || rel.is_absolute();
    for (const auto& part : rel) escapes = escapes || part == "..";
    if (escapes) {
      fail("{}: weight_map entry '{}' names shard '{}', which is not a file inside {}", index_name,
           name, rel.string(), dir.string());
    }
    weight_map[name] = rel.string();
  }

  std::map<std::string, SafetensorsFile> shards;
  for (const auto& [name, shard] : weight_map) {
    if (shards.count(shard) != 0) continue;
    const fs::path shard_path = dir / shard;
    if (!fs::is_regular_file(shard_path)) {
      fail("{}: tensor '{}' is in shard '{}', which does not exist ({})", index_name, name, shard,
           shard_path.string());
    }
    shards.emplace(shard, read_safetensors(shard_path));
  }

  std::map<std::string, Located> all;
  for (const auto& [name, shard] : weight_map) {
    const SafetensorsFile& file = shards.at(shard);
    const Tensor* t = file.find(name);
    if (t == nullptr) {
      fail("{}: tensor '{}' is listed in shard '{}' but {} does not contain it", index_name, name,
           shard, file.path.string());
    }
    all.emplace(name, Located{*t, file.path.string()});
  }
  for (const auto& [shard, file] : shards) {
    for (const Tensor& t : file.tensors) {
      auto it = weight_map.find(t.name);
      if (it == weight_map.end()) {
        fail("{}: tensor '{}' is present in shard {} but not listed in the index", index_name,
             t.name, file.path.string());
      }
      if (it->second != shard) {
        fail("{}: tensor '{}' is present in shard {} but the index places it in '{}'", index_name,
             t.name, file.path.string(), it->second);
      }
    }
  }
  return all;
}

std::string torch_dtype_name(DType t) {
  switch (t) {
    case DType::f16:
      return "float16";
    case DType::bf16:
      return "bfloat16";
    default:
      return "float32";
  }
}

}  // namespace

std::shared_ptr<const ModelWeights> load_checkpoint(const fs::path& dir) {
  if (!fs::is_directory(dir)) fail("{}: not a checkpoint directory", dir.string());
  auto w = std::make_shared<ModelWeights>();
  w->config = parse_hf_config(dir / "config.json");
  w->config.name = dir.string();

  std::map<std::string, Located> all;
  if (fs::exists(dir / kIndexFile)) {
    all = read_sharded(dir);
  } else if (fs::exists(dir / kSingleFile)) {
    SafetensorsFile file = read_safetensors(dir / kSingleFile);
    for (const Tensor& t : file.tensors) all.emplace(t.name, Located{t, file.path.string()});
  } else {
    fail("{}: no {} or {} (pytorch .bin checkpoints are not supported; convert to safetensors)",
         dir.string(), kSingleFile, kIndexFile);
  }

  // What the config claims is checked against what the files hold before anything is sized by
  // it: a 700-byte config.json must not make the loader list a million layers' tensors.
  const ModelConfig& c = w->config;
  const int64_t per_layer = 9 + (c.attention_bias ? 3 : 0);
  const int64_t needed = 2 + (c.tie_word_embeddings ? 0 : 1) + per_layer * c.num_layers;
  // (A few missing tensors are listed by name below; this stops only claims far beyond the files.)
  if (needed > static_cast<int64_t>(all.size()) + 1024) {
    fail("{}: num_hidden_layers {} needs {} tensors, but the checkpoint holds {}",
         (dir / "config.json").string(), c.num_layers, needed, all.size());
  }
  std::vector<std::string> missing;
  for (Slot& s : slots(*w)) {
    auto it = all.find(s.name);
    if (it == all.end()) {
      missing.push_back(fmt::format("{} {}", s.name, shape_str(s.shape)));
      continue;
    }
    const Tensor& t = it->second.tensor;
    if (t.dtype != DType::f32 && t.dtype != DType::f16 && t.dtype != DType::bf16) {
      fail("{}: tensor '{}' has dtype {}; model weights must be F32, F16 or BF16", it->second.file,
           s.name, dtype_name(t.dtype));
    }
    if (t.shape != s.shape) {
      fail("{}: tensor '{}' has shape {}, expected {} from {}", it->second.file, s.name,
           shape_str(t.shape), shape_str(s.shape), (dir / "config.json").string());
    }
    require_finite_weights(t, it->second.file);
    if (s.tensor != nullptr) {
      *s.tensor = t;
    } else {
      *s.optional = t;
    }
    all.erase(it);
  }
  if (!missing.empty()) {
    fail("{}: {} tensor(s) the config requires are missing: {}", dir.string(), missing.size(),
         fmt::join(missing.begin(), missing.begin() + std::min<ptrdiff_t>(8, std::ssize(missing)),
                   ", "));
  }
  if (w->config.tie_word_embeddings) {
    // Tied: the head is the embedding. Some exporters still store a copy; it must at least fit.
    if (auto it = all.find("lm_head.weight"); it != all.end()) {
      if (it->second.tensor.shape != w->embed.shape) {
        fail("{}: tensor 'lm_head.weight' has shape {}, expected {} (tied to the embedding)",
             it->second.file, shape_str(it->second.tensor.shape), shape_str(w->embed.shape));
      }
      all.erase(it);
    }
    w->lm_head = w->embed;
  }
  std::vector<std::string> extra;
  for (const auto& [name, located] : all) {
    if (ends_with(name, "rotary_emb.inv_freq")) continue;  // a recomputed buffer, not a weight
    extra.push_back(fmt::format("{} (in {})", name, located.file));
  }
  if (!extra.empty()) {
    fail("{}: {} unexpected tensor(s) for a {}-layer {} config: {}", dir.string(), extra.size(),
         w->config.num_layers, arch_name(w->config.arch),
         fmt::join(extra.begin(), extra.begin() + std::min<ptrdiff_t>(8, std::ssize(extra)), ", "));
  }
  return w;
}

std::vector<Tensor> checkpoint_tensors(const ModelWeights& weights) {
  ModelWeights copy = weights;  // cheap: tensors are views sharing their owners
  std::vector<Tensor> out;
  for (Slot& s : slots(copy)) {
    Tensor t;
    if (s.tensor != nullptr) {
      t = *s.tensor;
    } else {
      EC_CHECK(s.optional->has_value(), "weights for '{}' lack tensor '{}'", weights.config.name,
               s.name);
      t = **s.optional;
    }
    EC_CHECK(t.shape == s.shape, "weights for '{}': tensor '{}' has shape {}, expected {}",
             weights.config.name, s.name, shape_str(t.shape), shape_str(s.shape));
    t.name = s.name;
    out.push_back(std::move(t));
  }
  return out;
}

void save_checkpoint(const ModelWeights& weights, const fs::path& dir) {
  std::vector<Tensor> tensors = checkpoint_tensors(weights);  // validates before touching disk
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail("{}: cannot create directory: {}", dir.string(), ec.message());

  json config = to_hf_config(weights.config);
  config["torch_dtype"] = torch_dtype_name(weights.embed.dtype);
  write_safetensors(dir / kSingleFile, tensors, {{"format", "pt"}});
  write_file_atomic(dir / "config.json", config.dump(2) + "\n");
  // A stale index from an earlier sharded save would win over the file we just wrote.
  fs::remove(dir / kIndexFile, ec);
}

}  // namespace ec::model
