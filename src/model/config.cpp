// Hugging Face config.json (Llama, Qwen2) ↔ ModelConfig, with errors that name the file and field.
#include "model/config.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.h"
#include "core/file_io.h"
#include "model/limits.h"

namespace ec::model {
namespace {

using nlohmann::json;

std::string_view type_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "an unknown value";
  }
}

// dump() recurses once per nesting level and a hostile config can nest arrays a million deep, so
// error messages only show values of bounded depth.
bool nested_deeper_than(const json& v, int levels) {
  if (!v.is_structured()) return false;
  if (levels == 0) return true;
  for (const json& child : v) {
    if (nested_deeper_than(child, levels - 1)) return true;
  }
  return false;
}

// Reads one field of the config object with the file name in every error.
class FieldReader {
 public:
  FieldReader(const json& object, std::string source)
      : object_(object), source_(std::move(source)) {}

  const json* find(std::string_view field) const {
    auto it = object_.find(field);
    return it == object_.end() ? nullptr : &*it;
  }
  bool present(std::string_view field) const {
    const json* v = find(field);
    return v != nullptr && !v->is_null();
  }

  [[noreturn]] void wrong(std::string_view field, std::string_view expected,
                          const json& got) const {
    fail("{}: field '{}' must be {}, got {} ({})", source_, field, expected, type_of(got),
         nested_deeper_than(got, 8) ? "nested too deeply to show" : got.dump().substr(0, 60));
  }
  [[noreturn]] void missing(std::string_view field, std::string_view expected) const {
    fail("{}: missing field '{}' (expected {})", source_, field, expected);
  }

  // A strictly positive integer that fits an int.
  int positive_int(std::string_view field) const {
    const json* v = find(field);
    if (v == nullptr || v->is_null()) missing(field, "a positive integer");
    return positive_int_value(field, *v);
  }
  int positive_int_or(std::string_view field, int fallback) const {
    const json* v = find(field);
    if (v == nullptr || v->is_null()) return fallback;
    return positive_int_value(field, *v);
  }
  int positive_int_value(std::string_view field, const json& v) const {
    if (!v.is_number_integer()) wrong(field, "a positive integer", v);
    if (v.is_number_unsigned()) {
      auto u = v.get<uint64_t>();
      if (u == 0 || u > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
        wrong(field, "a positive integer below 2^31", v);
      }
      return static_cast<int>(u);
    }
    auto i = v.get<int64_t>();
    if (i <= 0 || i > std::numeric_limits<int>::max()) {
      wrong(field, "a positive integer below 2^31", v);
    }
    return static_cast<int>(i);
  }
  // A token id: a non-negative integer; -1 when absent or null.
  int token_id_value(std::string_view field, const json& v) const {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
        v.get<int64_t>() > std::numeric_limits<int>::max()) {
      wrong(field, "a non-negative integer token id", v);
    }
    return static_cast<int>(v.get<int64_t>());
  }
  double positive_number(std::string_view field, const json& v) const {
    if (!v.is_number()) wrong(field, "a positive number", v);
    double d = v.get<double>();
    if (!(d > 0) || !std::isfinite(d)) wrong(field, "a positive number", v);
    return d;
  }
  bool boolean_or(std::string_view field, bool fallback) const {
    const json* v = find(field);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_boolean()) wrong(field, "true or false", *v);
    return v->get<bool>();
  }

  const std::string& source() const { return source_; }

 private:
  const json& object_;
  std::string source_;
};

// rope_scaling / rope_parameters types other than plain RoPE change the frequencies; running them
// as plain RoPE would silently produce a different model, so we refuse them by name.
void check_rope_type(const FieldReader& r, std::string_view field, const json& params) {
  for (const char* key : {"rope_type", "type"}) {
    auto it = params.find(key);
    if (it == params.end() || it->is_null()) continue;
    if (!it->is_string()) r.wrong(fmt::format("{}.{}", field, key), "a string", *it);
    const auto& type = it->get_ref<const std::string&>();
    if (type != "default") {
      fail(
          "{}: field '{}.{}' is \"{}\"; only \"default\" RoPE is implemented (no scaled "
          "variants such as linear, dynamic, yarn or llama3)",
          r.source(), field, key, type);
    }
  }
}

}  // namespace

std::string_view arch_name(Arch a) {
  switch (a) {
    case Arch::llama:
      return "llama";
    case Arch::qwen2:
      return "qwen2";
  }
  return "?";
}

namespace {

// The parameter count, or nullopt when it does not fit int64 (dimensions below 2^31 each can
// still multiply past 2^63: vocab 2^31 × hidden 2^31 × 2).
std::optional<int64_t> checked_parameter_count(const ModelConfig& c) {
  bool overflow = false;
  const auto mul = [&](int64_t a, int64_t b) {
    int64_t r = 0;
    overflow = overflow || __builtin_mul_overflow(a, b, &r);
    return r;
  };
  const auto add = [&](int64_t a, int64_t b) {
    int64_t r = 0;
    overflow = overflow || __builtin_add_overflow(a, b, &r);
    return r;
  };
  const int64_t h = c.hidden_size;
  const int64_t q_out = mul(c.num_heads, c.head_dim);
  const int64_t kv_out = mul(c.num_kv_heads, c.head_dim);
  int64_t per_layer = mul(2, h);                       // input and post-attention RMSNorm gains
  per_layer = add(per_layer, mul(h, q_out));           // q
  per_layer = add(per_layer, mul(2, mul(h, kv_out)));  // k, v
  per_layer = add(per_layer, mul(q_out, h));           // o
  per_layer = add(per_layer, mul(3, mul(h, c.intermediate_size)));  // gate, up, down
  if (c.attention_bias) per_layer = add(per_layer, add(q_out, mul(2, kv_out)));
  const int64_t embed = mul(c.vocab_size, h);
  int64_t total = add(embed, c.tie_word_embeddings ? 0 : embed);
  total = add(total, h);
  total = add(total, mul(per_layer, c.num_layers));
  if (overflow) return std::nullopt;
  return total;
}

}  // namespace

int64_t ModelConfig::parameter_count() const {
  // parse_hf_config refuses configs whose count overflows; presets are far below.
  return checked_parameter_count(*this).value_or(std::numeric_limits<int64_t>::max());
}

ModelConfig parse_hf_config(const std::filesystem::path& config_json) {
  std::string text = read_file_within(config_json, kMaxConfigJsonBytes, "config.json");
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::exception& e) {
    fail("{}: not valid JSON: {}", config_json.string(), e.what());
  }
  return parse_hf_config(parsed, config_json.string());
}

ModelConfig parse_hf_config(const json& config, const std::string& source_name) {
  if (!config.is_object()) {
    fail("{}: expected a JSON object at the top level, got {}", source_name, type_of(config));
  }
  FieldReader r(config, source_name);
  ModelConfig c;
  c.name = source_name;

  const json* model_type = r.find("model_type");
  if (model_type == nullptr || model_type->is_null())
    r.missing("model_type", "\"llama\" or \"qwen2\"");
  if (!model_type->is_string())
    r.wrong("model_type", "a string (\"llama\" or \"qwen2\")", *model_type);
  const auto& type = model_type->get_ref<const std::string&>();
  if (type == "llama") {
    c.arch = Arch::llama;
  } else if (type == "qwen2") {
    c.arch = Arch::qwen2;
  } else {
    fail("{}: field 'model_type' is \"{}\"; supported: \"llama\", \"qwen2\"", source_name, type);
  }
  if (const json* archs = r.find("architectures"); archs != nullptr && !archs->is_null()) {
    if (!archs->is_array()) r.wrong("architectures", "an array of strings", *archs);
    const std::string expected = c.arch == Arch::llama ? "LlamaForCausalLM" : "Qwen2ForCausalLM";
    bool found = false;
    for (const json& a : *archs) {
      if (!a.is_string()) r.wrong("architectures", "an array of strings", *archs);
      if (a.get<std::string>() == expected) found = true;
    }
    if (!found) {
      fail("{}: field 'architectures' is {}; expected it to contain \"{}\" for model_type \"{}\"",
           source_name, archs->dump(), expected, type);
    }
  }

  // Features these architectures allow but the engine does not implement: refuse, do not ignore.
  if (const json* act = r.find("hidden_act"); act != nullptr && !act->is_null()) {
    if (!act->is_string()) r.wrong("hidden_act", "a string", *act);
    if (act->get<std::string>() != "silu") {
      fail("{}: field 'hidden_act' is \"{}\"; only \"silu\" (SwiGLU) is implemented", source_name,
           act->get<std::string>());
    }
  }
  // The weights' dtypes come from the safetensors headers, but a torch_dtype that is not even a
  // name means the file is not what it claims to be.
  if (const json* dt = r.find("torch_dtype"); dt != nullptr && !dt->is_null() && !dt->is_string()) {
    r.wrong("torch_dtype", "a dtype name such as \"float16\"", *dt);
  }
  if (r.boolean_or("mlp_bias", false)) {
    fail("{}: field 'mlp_bias' is true; MLP biases are not implemented", source_name);
  }
  if (r.boolean_or("use_sliding_window", false)) {
    fail("{}: field 'use_sliding_window' is true; sliding-window attention is not implemented",
         source_name);
  }

  c.vocab_size = r.positive_int("vocab_size");
  c.hidden_size = r.positive_int("hidden_size");
  c.intermediate_size = r.positive_int("intermediate_size");
  c.num_layers = r.positive_int("num_hidden_layers");
  c.num_heads = r.positive_int("num_attention_heads");
  c.num_kv_heads = r.positive_int_or("num_key_value_heads", c.num_heads);
  if (c.num_heads % c.num_kv_heads != 0) {
    fail("{}: field 'num_key_value_heads' ({}) must divide num_attention_heads ({})", source_name,
         c.num_kv_heads, c.num_heads);
  }
  if (!r.present("head_dim") && c.hidden_size % c.num_heads != 0) {
    fail(
        "{}: hidden_size ({}) is not a multiple of num_attention_heads ({}) and no 'head_dim' "
        "is given",
        source_name, c.hidden_size, c.num_heads);
  }
  c.head_dim = r.positive_int_or("head_dim", c.hidden_size / c.num_heads);
  if (c.head_dim % 2 != 0) {
    fail("{}: head_dim {} is odd; rotary embeddings need an even head_dim", source_name,
         c.head_dim);
  }
  c.max_position_embeddings = r.positive_int("max_position_embeddings");

  const json* eps = r.find("rms_norm_eps");
  if (eps == nullptr || eps->is_null()) r.missing("rms_norm_eps", "a positive number");
  c.rms_norm_eps = r.positive_number("rms_norm_eps", *eps);

  // rope_theta: top level (transformers 4) or inside rope_parameters (transformers 5).
  bool have_theta = false;
  if (const json* scaling = r.find("rope_scaling"); scaling != nullptr && !scaling->is_null()) {
    if (!scaling->is_object()) r.wrong("rope_scaling", "an object or null", *scaling);
    check_rope_type(r, "rope_scaling", *scaling);
  }
  if (const json* params = r.find("rope_parameters"); params != nullptr && !params->is_null()) {
    if (!params->is_object()) r.wrong("rope_parameters", "an object", *params);
    check_rope_type(r, "rope_parameters", *params);
    if (auto it = params->find("rope_theta"); it != params->end() && !it->is_null()) {
      c.rope_theta = r.positive_number("rope_parameters.rope_theta", *it);
      have_theta = true;
    }
  }
  if (const json* theta = r.find("rope_theta"); theta != nullptr && !theta->is_null()) {
    double top = r.positive_number("rope_theta", *theta);
    if (have_theta && top != c.rope_theta) {
      fail("{}: 'rope_theta' ({}) disagrees with 'rope_parameters.rope_theta' ({})", source_name,
           top, c.rope_theta);
    }
    c.rope_theta = top;
    have_theta = true;
  }
  if (!have_theta) c.rope_theta = 10000.0;  // the transformers default for both architectures

  c.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  if (c.arch == Arch::qwen2) {
    c.attention_bias = true;  // Qwen2 always has q/k/v biases; the config has no switch for it
  } else {
    c.attention_bias = r.boolean_or("attention_bias", false);
    if (c.attention_bias) {
      // Llama's attention_bias also adds an o_proj bias, which the engine has no slot for.
      fail(
          "{}: field 'attention_bias' is true for model_type \"llama\"; attention biases (incl. "
          "o_proj.bias) are not implemented for llama",
          source_name);
    }
  }

  if (const json* bos = r.find("bos_token_id"); bos != nullptr && !bos->is_null()) {
    c.bos_token_id = r.token_id_value("bos_token_id", *bos);
  }
  if (const json* eos = r.find("eos_token_id"); eos != nullptr && !eos->is_null()) {
    if (eos->is_array()) {
      if (eos->empty()) r.wrong("eos_token_id", "a token id or a non-empty list of them", *eos);
      for (const json& id : *eos) r.token_id_value("eos_token_id", id);
      c.eos_token_id = r.token_id_value("eos_token_id", eos->front());
    } else {
      c.eos_token_id = r.token_id_value("eos_token_id", *eos);
    }
  }
  for (auto [field, id] :
       {std::pair{"bos_token_id", c.bos_token_id}, {"eos_token_id", c.eos_token_id}}) {
    if (id >= c.vocab_size) {
      fail("{}: field '{}' ({}) is not below vocab_size ({})", source_name, field, id,
           c.vocab_size);
    }
  }
  if (!checked_parameter_count(c)) {
    fail(
        "{}: these dimensions give more than 2^63 parameters (vocab_size {}, hidden_size {}, "
        "intermediate_size {}, num_hidden_layers {})",
        source_name, c.vocab_size, c.hidden_size, c.intermediate_size, c.num_layers);
  }
  return c;
}

json to_hf_config(const ModelConfig& c) {
  const bool llama = c.arch == Arch::llama;
  json j = json::object();
  j["architectures"] = json::array({llama ? "LlamaForCausalLM" : "Qwen2ForCausalLM"});
  j["model_type"] = arch_name(c.arch);
  j["hidden_act"] = "silu";
  j["vocab_size"] = c.vocab_size;
  j["hidden_size"] = c.hidden_size;
  j["intermediate_size"] = c.intermediate_size;
  j["num_hidden_layers"] = c.num_layers;
  j["num_attention_heads"] = c.num_heads;
  j["num_key_value_heads"] = c.num_kv_heads;
  if (c.head_dim != c.hidden_size / c.num_heads || c.hidden_size % c.num_heads != 0) {
    j["head_dim"] = c.head_dim;
  }
  j["max_position_embeddings"] = c.max_position_embeddings;
  j["rms_norm_eps"] = c.rms_norm_eps;
  j["rope_theta"] = c.rope_theta;
  j["rope_scaling"] = nullptr;
  j["tie_word_embeddings"] = c.tie_word_embeddings;
  if (llama) {
    j["attention_bias"] = c.attention_bias;
    j["mlp_bias"] = false;
  } else {
    j["use_sliding_window"] = false;
    j["sliding_window"] = nullptr;
  }
  j["attention_dropout"] = 0.0;
  j["initializer_range"] = 0.02;
  j["use_cache"] = true;
  j["bos_token_id"] = c.bos_token_id >= 0 ? json(c.bos_token_id) : json(nullptr);
  j["eos_token_id"] = c.eos_token_id >= 0 ? json(c.eos_token_id) : json(nullptr);
  return j;
}

}  // namespace ec::model
