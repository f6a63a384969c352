// Our encode/decode against Hugging Face tokenizers' output (golden_*.json, made by
// make_golden.py).
#include <gtest/gtest.h>

#include "core/embedded.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "tokenizer/fixture_tokenizers.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ec::tok {
namespace {

struct Golden {
  nlohmann::json texts;   // golden_texts.json "texts"
  nlohmann::json golden;  // golden_<name>.json
};

Golden read_golden(const std::string& name) {
  Golden g;
  g.texts =
      nlohmann::json::parse(read_file(ec::test::fixture("tokenizer/golden_texts.json")))["texts"];
  g.golden =
      nlohmann::json::parse(read_file(ec::test::fixture("tokenizer/golden_" + name + ".json")));
  return g;
}

std::string digest(const std::vector<int32_t>& ids) {
  std::string joined;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) joined += ',';
    joined += std::to_string(ids[i]);
  }
  return sha256_hex(joined);
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, FixtureIsTheFileTheGoldenWasMadeWith) {
  const Golden g = read_golden(GetParam());
  const auto path = test::fixture_json(GetParam());
  ASSERT_TRUE(std::filesystem::exists(path)) << "run scripts/fetch-fixtures.sh";
  EXPECT_EQ(sha256_hex(read_file(path)), g.golden["tokenizer_json_sha256"].get<std::string>());
  ASSERT_EQ(g.texts.size(), g.golden["cases"].size());
}

TEST_P(GoldenTest, EncodeMatchesTokenizersForEveryText) {
  const Tokenizer* tok = test::fixture_tokenizer(GetParam());
  ASSERT_NE(tok, nullptr);
  const Golden g = read_golden(GetParam());
  int compared = 0;
  for (std::size_t i = 0; i < g.texts.size(); ++i) {
    const auto& text = g.texts[i];
    const auto& expected = g.golden["cases"][i];
    ASSERT_EQ(text["name"], expected["name"]);
    const std::string input = text["text"].get<std::string>();
    EXPECT_EQ(tok->encode(input, true), expected["ids"].get<std::vector<int32_t>>())
        << "text '" << text["name"].get<std::string>() << "'";
    ++compared;
    if (expected.contains("ids_without_special")) {
      EXPECT_EQ(tok->encode(input, false),
                expected["ids_without_special"].get<std::vector<int32_t>>())
          << "text '" << text["name"].get<std::string>() << "' without special tokens";
      ++compared;
    }
  }
  EXPECT_GE(compared, 50);
}

TEST_P(GoldenTest, DecodeMatchesTokenizersForEveryText) {
  const Tokenizer* tok = test::fixture_tokenizer(GetParam());
  ASSERT_NE(tok, nullptr);
  const Golden g = read_golden(GetParam());
  for (std::size_t i = 0; i < g.texts.size(); ++i) {
    const auto& expected = g.golden["cases"][i];
    const std::string name = expected["name"].get<std::string>();
    // Decode our own encoding (equal to the golden ids when the encode test passes).
    const auto ids = tok->encode(g.texts[i]["text"].get<std::string>(), true);
    EXPECT_EQ(tok->decode(ids, false), expected["decode"].get<std::string>()) << name;
    EXPECT_EQ(tok->decode(ids, true), expected["decode_skip_special"].get<std::string>()) << name;
    const auto golden_ids = expected["ids"].get<std::vector<int32_t>>();
    const std::vector<int32_t> half(golden_ids.begin(),
                                    golden_ids.begin() + static_cast<long>(golden_ids.size() / 2));
    EXPECT_EQ(tok->decode(half, false), expected["decode_first_half"].get<std::string>()) << name;
  }
}

TEST_P(GoldenTest, EvalTextMatchesTokenizersIdForId) {
  const Tokenizer* tok = test::fixture_tokenizer(GetParam());
  ASSERT_NE(tok, nullptr);
  const Golden g = read_golden(GetParam());
  const auto& eval = g.golden["eval_text"];
  const auto ids = tok->encode(embedded::eval_text(), false);
  EXPECT_EQ(ids.size(), eval["tokens_without_special"].get<std::size_t>());
  const auto first = eval["first_ids"].get<std::vector<int32_t>>();
  ASSERT_GE(ids.size(), first.size());
  EXPECT_EQ(std::vector<int32_t>(ids.begin(), ids.begin() + static_cast<long>(first.size())),
            first);
  EXPECT_EQ(digest(ids), eval["ids_sha256"].get<std::string>());
  EXPECT_EQ(tok->decode(ids), embedded::eval_text());
}

TEST_P(GoldenTest, VocabSizeMatchesTokenizers) {
  const Tokenizer* tok = test::fixture_tokenizer(GetParam());
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->vocab_size(), read_golden(GetParam()).golden["vocab_size_with_added"].get<int>());
}

INSTANTIATE_TEST_SUITE_P(RealFiles, GoldenTest, ::testing::Values("qwen3", "llama2"));

// The original EcoCompute's published perplexity figure: 14,123 predicted tokens in 14 windows of
// 1,024, i.e. 14,137 tokens (13 full windows predict 1,023 each, the last 825 tokens predict 824).
TEST(QwenEvalText, Has14137Tokens) {
  const Tokenizer* tok = test::fixture_tokenizer("qwen3");
  ASSERT_NE(tok, nullptr);
  const auto ids = tok->encode(embedded::eval_text(), true);
  EXPECT_EQ(ids.size(), 14137u);
  const std::size_t windows = (ids.size() + 1023) / 1024;
  EXPECT_EQ(windows, 14u);
  EXPECT_EQ(ids.size() - windows, 14123u);
}

// Encoding twice gives the same ids: the second pass runs from the word cache the first filled.
// How fast load and encode are is bench/tokenizer's job (bench_tokenizer), not a test's.
TEST(TokenizerCache, WarmEncodeEqualsColdEncode) {
  for (const std::string name : {"qwen3", "llama2"}) {
    const auto path = test::fixture_json(name);
    ASSERT_TRUE(std::filesystem::exists(path)) << "run scripts/fetch-fixtures.sh";
    const Tokenizer tok = Tokenizer::load(path);
    const auto cold = tok.encode(embedded::eval_text());
    const auto warm = tok.encode(embedded::eval_text());
    ASSERT_FALSE(cold.empty()) << name;
    EXPECT_EQ(cold, warm) << name;
  }
}

}  // namespace
}  // namespace ec::tok
