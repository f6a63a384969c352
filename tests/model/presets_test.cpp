// Presets: the seed models equal their Hugging Face configs and weigh what PERFORMANCE.md says.
#include "model/presets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/model_test_util.h"
#include "support/paths.h"

namespace ec::model {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(PresetsTest, SeedModelsMatchTheirConfigJson) {
  for (const char* name :
       {"qwen2-0.5b", "tinyllama-1.1b", "qwen2-1.5b", "qwen2.5-3b", "qwen2-7b"}) {
    const ModelConfig& p = preset_or_throw(name);
    ModelConfig hf =
        parse_hf_config(ec::test::fixture(std::string("model/") + name + ".config.json"));
    EXPECT_EQ(p.name, name);
    EXPECT_EQ(p.arch, hf.arch) << name;
    EXPECT_EQ(p.vocab_size, hf.vocab_size) << name;
    EXPECT_EQ(p.hidden_size, hf.hidden_size) << name;
    EXPECT_EQ(p.intermediate_size, hf.intermediate_size) << name;
    EXPECT_EQ(p.num_layers, hf.num_layers) << name;
    EXPECT_EQ(p.num_heads, hf.num_heads) << name;
    EXPECT_EQ(p.num_kv_heads, hf.num_kv_heads) << name;
    EXPECT_EQ(p.head_dim, hf.head_dim) << name;
    EXPECT_EQ(p.max_position_embeddings, hf.max_position_embeddings) << name;
    EXPECT_DOUBLE_EQ(p.rms_norm_eps, hf.rms_norm_eps) << name;
    EXPECT_DOUBLE_EQ(p.rope_theta, hf.rope_theta) << name;
    EXPECT_EQ(p.tie_word_embeddings, hf.tie_word_embeddings) << name;
    EXPECT_EQ(p.attention_bias, hf.attention_bias) << name;
    EXPECT_EQ(p.bos_token_id, hf.bos_token_id) << name;
    EXPECT_EQ(p.eos_token_id, hf.eos_token_id) << name;
  }
}

TEST(PresetsTest, Fp16BytesMatchPerformanceDoc) {
  // design/PERFORMANCE.md, "FP16 weights" column, in GB (1e9 bytes).
  const std::pair<const char*, double> expected[] = {{"qwen2-0.5b", 0.99},
                                                     {"tinyllama-1.1b", 2.20},
                                                     {"qwen2-1.5b", 3.09},
                                                     {"qwen2.5-3b", 6.17},
                                                     {"qwen2-7b", 15.2}};
  for (const auto& [name, gb] : expected) {
    const double bytes = 2.0 * static_cast<double>(preset_or_throw(name).parameter_count());
    EXPECT_NEAR(bytes / 1e9, gb, gb * 0.01) << name;
  }
  EXPECT_EQ(preset_or_throw("qwen2-7b").vocab_size, 152064);
  EXPECT_FALSE(preset_or_throw("qwen2-7b").tie_word_embeddings);
}

TEST(PresetsTest, TokenizerFamilies) {
  EXPECT_EQ(preset_or_throw("qwen2-0.5b").tokenizer_family, "qwen2");
  EXPECT_EQ(preset_or_throw("qwen2.5-3b").tokenizer_family, "qwen2");
  EXPECT_EQ(preset_or_throw("tinyllama-1.1b").tokenizer_family, "llama2");
  for (const char* name : {"tiny-llama", "tiny-qwen2", "default"}) {
    const ModelConfig& c = preset_or_throw(name);
    EXPECT_EQ(c.tokenizer_family, "bytes") << name;
    EXPECT_GE(c.vocab_size, 258) << name;  // 256 bytes + bos + eos
    EXPECT_EQ(c.bos_token_id, 256) << name;
    EXPECT_EQ(c.eos_token_id, 257) << name;
  }
}

TEST(PresetsTest, DefaultIsSmallAndTinyOnesCoverBothArchitectures) {
  const ModelConfig& d = preset_or_throw("default");
  EXPECT_EQ(d.arch, Arch::qwen2);
  EXPECT_LT(d.parameter_count(), 5'000'000);
  EXPECT_GE(d.max_position_embeddings, 2 * 256);
  EXPECT_EQ(preset_or_throw("tiny-llama").arch, Arch::llama);
  EXPECT_EQ(preset_or_throw("tiny-qwen2").arch, Arch::qwen2);
  EXPECT_NE(preset_or_throw("tiny-llama").num_heads, preset_or_throw("tiny-llama").num_kv_heads);
}

TEST(PresetsTest, EveryPresetIsConsistent) {
  std::vector<std::string> names = preset_names();
  ASSERT_EQ(names.size(), all_presets().size());
  for (const Preset& p : all_presets()) {
    const ModelConfig& c = p.config;
    EXPECT_EQ(c.num_heads % c.num_kv_heads, 0) << c.name;
    EXPECT_EQ(c.head_dim * c.num_heads, c.hidden_size) << c.name;
    EXPECT_FALSE(p.source.empty()) << c.name;
    EXPECT_FALSE(p.description.empty()) << c.name;
    EXPECT_EQ(find_preset(c.name), &c);
    EXPECT_EQ(std::count(names.begin(), names.end(), c.name), 1) << c.name;
  }
}

TEST(PresetsTest, UnknownPresetListsTheKnownOnes) {
  EXPECT_EQ(find_preset("llama-70b"), nullptr);
  try {
    preset_or_throw("llama-70b");
    FAIL() << "expected a UsageError";
  } catch (const ec::UsageError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("'llama-70b'"), HasSubstr("qwen2-0.5b"),
                                HasSubstr("tiny-llama"), HasSubstr("default")));
  }
}

}  // namespace
}  // namespace ec::model
