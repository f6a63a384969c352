// parse_hf_config / to_hf_config: real configs, defaults, both rope_theta locations, every bad
// field.
#include "model/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "model/model_test_util.h"
#include "model/presets.h"
#include "support/paths.h"

namespace ec::model {
namespace {

using nlohmann::json;
using test::error_of;
using ::testing::AllOf;
using ::testing::HasSubstr;

json qwen2_json() {
  return json::parse(read_file(ec::test::fixture("model/qwen2-0.5b.config.json")));
}

TEST(ConfigTest, ParsesQwen2Config) {
  const auto path = ec::test::fixture("model/qwen2-0.5b.config.json");
  ModelConfig c = parse_hf_config(path);
  EXPECT_EQ(c.arch, Arch::qwen2);
  EXPECT_EQ(c.name, path.string());
  EXPECT_EQ(c.vocab_size, 151936);
  EXPECT_EQ(c.hidden_size, 896);
  EXPECT_EQ(c.intermediate_size, 4864);
  EXPECT_EQ(c.num_layers, 24);
  EXPECT_EQ(c.num_heads, 14);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.max_position_embeddings, 131072);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.rope_theta, 1e6);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_TRUE(c.attention_bias);  // Qwen2: always
  EXPECT_EQ(c.bos_token_id, 151643);
  EXPECT_EQ(c.eos_token_id, 151643);
  EXPECT_EQ(c.tokenizer_family, "");
}

TEST(ConfigTest, ParsesLlamaConfig) {
  ModelConfig c = parse_hf_config(ec::test::fixture("model/tinyllama-1.1b.config.json"));
  EXPECT_EQ(c.arch, Arch::llama);
  EXPECT_EQ(c.num_kv_heads, 4);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_DOUBLE_EQ(c.rope_theta, 1e4);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-5);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.attention_bias);
  EXPECT_EQ(c.bos_token_id, 1);
  EXPECT_EQ(c.eos_token_id, 2);
}

TEST(ConfigTest, RopeThetaFromTransformers5RopeParameters) {
  ModelConfig c = parse_hf_config(ec::test::fixture("model/llama-rope-parameters.config.json"));
  EXPECT_DOUBLE_EQ(c.rope_theta, 500000.0);
  EXPECT_EQ(c.eos_token_id, 128001);  // a list: the first one
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.num_kv_heads, 8);
}

TEST(ConfigTest, RopeThetaTopLevelAndDefault) {
  json j = qwen2_json();
  j["rope_theta"] = 12345.0;
  EXPECT_DOUBLE_EQ(parse_hf_config(j, "c.json").rope_theta, 12345.0);
  j.erase("rope_theta");
  EXPECT_DOUBLE_EQ(parse_hf_config(j, "c.json").rope_theta, 10000.0);  // transformers default
  j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 777.0}};
  EXPECT_DOUBLE_EQ(parse_hf_config(j, "c.json").rope_theta, 777.0);
  j["rope_theta"] = 778.0;  // both places, disagreeing
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "c.json"); }),
              AllOf(HasSubstr("c.json"), HasSubstr("rope_parameters.rope_theta")));
}

TEST(ConfigTest, RejectsScaledRope) {
  json j = qwen2_json();
  j["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}};
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "c.json"); }),
              AllOf(HasSubstr("c.json"), HasSubstr("rope_scaling.type"), HasSubstr("yarn")));
  j.erase("rope_scaling");
  j["rope_parameters"] = {{"rope_type", "llama3"}, {"rope_theta", 5e5}};
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "c.json"); }),
              AllOf(HasSubstr("rope_parameters.rope_type"), HasSubstr("llama3")));
  j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", "big"}};
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "c.json"); }),
              AllOf(HasSubstr("rope_parameters.rope_theta"), HasSubstr("positive number")));
  j["rope_parameters"] = nullptr;
  j["rope_scaling"] = {{"rope_type", "default"}};
  EXPECT_NO_THROW(parse_hf_config(j, "c.json"));
}

TEST(ConfigTest, Defaults) {
  json j = qwen2_json();
  j.erase("num_key_value_heads");
  j.erase("tie_word_embeddings");
  j.erase("bos_token_id");
  j["eos_token_id"] = nullptr;
  ModelConfig c = parse_hf_config(j, "c.json");
  EXPECT_EQ(c.num_kv_heads, 14);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_EQ(c.bos_token_id, -1);
  EXPECT_EQ(c.eos_token_id, -1);
  j["head_dim"] = 128;  // explicit head_dim need not be hidden/heads
  EXPECT_EQ(parse_hf_config(j, "c.json").head_dim, 128);
}

TEST(ConfigTest, LlamaAttentionBias) {
  json j = json::parse(read_file(ec::test::fixture("model/tinyllama-1.1b.config.json")));
  j.erase("attention_bias");
  EXPECT_FALSE(parse_hf_config(j, "l.json").attention_bias);
  j["attention_bias"] = true;  // would need an o_proj bias the engine does not have
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "l.json"); }),
              AllOf(HasSubstr("l.json"), HasSubstr("attention_bias")));
  j["attention_bias"] = "no";
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "l.json"); }),
              AllOf(HasSubstr("'attention_bias'"), HasSubstr("true or false")));
}

class MissingFieldTest : public ::testing::TestWithParam<const char*> {};

TEST_P(MissingFieldTest, NamesFileAndField) {
  json j = qwen2_json();
  j.erase(GetParam());
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "dir/config.json"); }),
              AllOf(HasSubstr("dir/config.json"), HasSubstr(std::string("'") + GetParam() + "'"),
                    HasSubstr("missing"), HasSubstr("expected")));
}

INSTANTIATE_TEST_SUITE_P(Required, MissingFieldTest,
                         ::testing::Values("model_type", "vocab_size", "hidden_size",
                                           "intermediate_size", "num_hidden_layers",
                                           "num_attention_heads", "max_position_embeddings",
                                           "rms_norm_eps"));

TEST(ConfigTest, WrongTypesNameFieldAndExpectedType) {
  struct Case {
    const char* field;
    json value;
    const char* expected;
  };
  const Case cases[] = {
      {"hidden_size", "896", "positive integer"},
      {"hidden_size", 896.5, "positive integer"},
      {"vocab_size", -3, "positive integer"},
      {"num_hidden_layers", 0, "positive integer"},
      {"num_key_value_heads", true, "positive integer"},
      {"intermediate_size", int64_t{1} << 40, "below 2^31"},
      {"rms_norm_eps", "1e-6", "positive number"},
      {"rms_norm_eps", -1.0, "positive number"},
      {"rope_theta", json::array({1}), "positive number"},
      {"tie_word_embeddings", 1, "true or false"},
      {"bos_token_id", "<s>", "token id"},
      {"eos_token_id", json::array(), "non-empty list"},
      {"eos_token_id", json::array({2, "x"}), "token id"},
      {"model_type", 3, "string"},
      {"architectures", "Qwen2ForCausalLM", "array of strings"},
      {"rope_parameters", 5, "object"},
  };
  for (const Case& k : cases) {
    json j = qwen2_json();
    j[k.field] = k.value;
    EXPECT_THAT(error_of([&] { parse_hf_config(j, "x/config.json"); }),
                AllOf(HasSubstr("x/config.json"), HasSubstr(std::string("'") + k.field + "'"),
                      HasSubstr(k.expected)))
        << k.field << " = " << k.value.dump();
  }
}

TEST(ConfigTest, RejectsWhatTheEngineCannotRun) {
  const std::pair<const char*, json> cases[] = {
      {"model_type", "mistral"},  {"architectures", json::array({"LlamaForCausalLM"})},
      {"hidden_act", "gelu"},     {"use_sliding_window", true},
      {"num_key_value_heads", 4},  // does not divide 14 heads
  };
  for (const auto& [field, value] : cases) {
    json j = qwen2_json();
    j[field] = value;
    EXPECT_THAT(error_of([&] { parse_hf_config(j, "q.json"); }),
                AllOf(HasSubstr("q.json"), HasSubstr(field)))
        << field;
  }
  json j = qwen2_json();
  j["eos_token_id"] = 200000;
  EXPECT_THAT(error_of([&] { parse_hf_config(j, "q.json"); }),
              AllOf(HasSubstr("'eos_token_id'"), HasSubstr("vocab_size")));
}

TEST(ConfigTest, NotJsonOrNotAnObject) {
  const auto path = ec::test::fixture("model/truncated.config.json");
  EXPECT_THAT(error_of([&] { parse_hf_config(path); }),
              AllOf(HasSubstr(path.string()), HasSubstr("not valid JSON")));
  EXPECT_THAT(error_of([&] { parse_hf_config(json::array({1}), "a.json"); }),
              AllOf(HasSubstr("a.json"), HasSubstr("object")));
  EXPECT_THAT(error_of([&] { parse_hf_config(ec::test::fixture("model/nope.json")); }),
              HasSubstr("nope.json"));
}

TEST(ConfigTest, ToHfConfigRoundTripsEveryPreset) {
  for (const Preset& p : all_presets()) {
    const ModelConfig& c = p.config;
    ModelConfig back = parse_hf_config(to_hf_config(c), "generated");
    EXPECT_EQ(back.arch, c.arch) << c.name;
    EXPECT_EQ(back.vocab_size, c.vocab_size) << c.name;
    EXPECT_EQ(back.hidden_size, c.hidden_size) << c.name;
    EXPECT_EQ(back.intermediate_size, c.intermediate_size) << c.name;
    EXPECT_EQ(back.num_layers, c.num_layers) << c.name;
    EXPECT_EQ(back.num_heads, c.num_heads) << c.name;
    EXPECT_EQ(back.num_kv_heads, c.num_kv_heads) << c.name;
    EXPECT_EQ(back.head_dim, c.head_dim) << c.name;
    EXPECT_EQ(back.max_position_embeddings, c.max_position_embeddings) << c.name;
    EXPECT_DOUBLE_EQ(back.rms_norm_eps, c.rms_norm_eps) << c.name;
    EXPECT_DOUBLE_EQ(back.rope_theta, c.rope_theta) << c.name;
    EXPECT_EQ(back.tie_word_embeddings, c.tie_word_embeddings) << c.name;
    EXPECT_EQ(back.attention_bias, c.attention_bias) << c.name;
    EXPECT_EQ(back.bos_token_id, c.bos_token_id) << c.name;
    EXPECT_EQ(back.eos_token_id, c.eos_token_id) << c.name;
  }
  json j = to_hf_config(*find_preset("tiny-llama"));
  EXPECT_EQ(j["architectures"], json::array({"LlamaForCausalLM"}));
  EXPECT_EQ(j["model_type"], "llama");
  EXPECT_EQ(to_hf_config(*find_preset("tiny-qwen2"))["architectures"],
            json::array({"Qwen2ForCausalLM"}));
}

TEST(ConfigTest, ParameterCountByHand) {
  ModelConfig c;
  c.vocab_size = 10;
  c.hidden_size = 8;
  c.intermediate_size = 12;
  c.num_layers = 2;
  c.num_heads = 4;
  c.num_kv_heads = 2;
  c.head_dim = 2;
  // per layer: norms 16 + q 64 + k,v 2*32 + o 64 + mlp 3*96 = 496; embed 80; final norm 8
  c.tie_word_embeddings = true;
  EXPECT_EQ(c.parameter_count(), 80 + 8 + 2 * 496);
  c.tie_word_embeddings = false;
  EXPECT_EQ(c.parameter_count(), 160 + 8 + 2 * 496);
  c.attention_bias = true;  // + 8 + 4 + 4 per layer
  EXPECT_EQ(c.parameter_count(), 160 + 8 + 2 * (496 + 16));
  EXPECT_EQ(arch_name(Arch::llama), "llama");
  EXPECT_EQ(arch_name(Arch::qwen2), "qwen2");
}

}  // namespace
}  // namespace ec::model
