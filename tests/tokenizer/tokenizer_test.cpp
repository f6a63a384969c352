// Tokenizer on small hand-written tokenizer.json files: BPE merge order, added-token flags,
// Metaspace, bytes fallback, limits and load errors that name the file and the JSON path.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/file_io.h"
#include "support/paths.h"
#include "tokenizer/fixture_tokenizers.h"
#include "tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <random>
#include <string>
#include <vector>

namespace ec::tok {
namespace {

using Ids = std::vector<int32_t>;
using nlohmann::json;

// A BPE over {a, b, ' '} with an unk token, no pre-tokenizer: one word per span.
json tiny() {
  return json::parse(R"({
    "version": "1.0", "truncation": null, "padding": null,
    "added_tokens": [{"id": 7, "content": "<x>", "single_word": false, "lstrip": false,
                      "rstrip": false, "normalized": false, "special": true}],
    "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,
    "model": {"type": "BPE", "dropout": null, "unk_token": "?", "fuse_unk": true,
              "byte_fallback": false, "continuing_subword_prefix": null, "end_of_word_suffix": null,
              "vocab": {"?": 0, "a": 1, "b": 2, "aa": 3, "ab": 4, "aab": 5, " ": 6},
              "merges": ["a a", ["a", "b"], "aa b"]}})");
}

Tokenizer load_json(const ec::test::ScratchDir& dir, const json& j) {
  write_file_atomic(dir / "tokenizer.json", j.dump());
  return Tokenizer::load(dir / "tokenizer.json");
}

// The message of the ec::Error that loading `j` throws.
std::string load_error(const json& j) {
  ec::test::ScratchDir dir;
  try {
    load_json(dir, j);
  } catch (const ec::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TinyBpe, MergesLowestRankFirstThenLeftmost) {
  ec::test::ScratchDir dir;
  const Tokenizer tok = load_json(dir, tiny());
  EXPECT_EQ(tok.encode("aaa"), (Ids{3, 1}));  // (a,a) at 0 wins over (a,a) at 1
  EXPECT_EQ(tok.encode("aab"), (Ids{5}));     // a a b → aa b → aab
  EXPECT_EQ(tok.encode("ab"), (Ids{4}));
  EXPECT_EQ(tok.encode("baa"), (Ids{2, 3}));
  EXPECT_EQ(tok.kind(), "bpe");
  EXPECT_EQ(tok.vocab_size(), 8);
}

TEST(TinyBpe, FusesConsecutiveUnknownCharacters) {
  ec::test::ScratchDir dir;
  const Tokenizer tok = load_json(dir, tiny());
  EXPECT_EQ(tok.encode("xyz"), (Ids{0}));
  EXPECT_EQ(tok.encode("xaz"), (Ids{0, 1, 0}));
  json j = tiny();
  j["model"]["fuse_unk"] = false;
  ec::test::ScratchDir dir2;
  EXPECT_EQ(load_json(dir2, j).encode("xyz"), (Ids{0, 0, 0}));
}

TEST(TinyBpe, AddedTokensAreCutOutFirstAndHonourStripFlags) {
  ec::test::ScratchDir dir;
  json j = tiny();
  EXPECT_EQ(load_json(dir, j).encode("a <x> b"), (Ids{1, 6, 7, 6, 2}));
  j["added_tokens"][0]["lstrip"] = true;
  EXPECT_EQ(load_json(dir, j).encode("a  <x> b"), (Ids{1, 7, 6, 2}));
  j["added_tokens"][0]["rstrip"] = true;
  EXPECT_EQ(load_json(dir, j).encode("a  <x>  b"), (Ids{1, 7, 2}));
  j["added_tokens"][0]["lstrip"] = false;
  j["added_tokens"][0]["rstrip"] = false;
  j["added_tokens"][0]["single_word"] = true;
  const Tokenizer single = load_json(dir, j);
  EXPECT_EQ(single.encode("a<x>"), (Ids{1, 0}));  // inside a word: not the added token
  EXPECT_EQ(single.encode("a <x>"), (Ids{1, 6, 7}));
}

TEST(TinyBpe, DecodeSkipsSpecialTokensAndUnknownIds) {
  ec::test::ScratchDir dir;
  const Tokenizer tok = load_json(dir, tiny());
  const Ids ids{1, 7, 2, 999, -3};
  EXPECT_EQ(tok.decode(ids), "a <x> b");  // no decoder: tokens joined with spaces
  EXPECT_EQ(tok.decode(ids, true), "a b");
}

TEST(TinyBpe, MetaspacePreTokenizerAndDecoder) {
  json j = tiny();
  j["model"]["vocab"] = {{"?", 0}, {"\u2581", 1},  {"a", 2},
                         {"b", 3}, {"\u2581a", 4}, {"\u2581b", 5}};
  j["model"]["merges"] = {"\u2581 a", "\u2581 b"};
  j["added_tokens"] = json::array();
  j["pre_tokenizer"] = {{"type", "Metaspace"},
                        {"replacement", "\u2581"},
                        {"prepend_scheme", "always"},
                        {"split", true}};
  j["decoder"] = {{"type", "Metaspace"},
                  {"replacement", "\u2581"},
                  {"prepend_scheme", "always"},
                  {"split", true}};
  ec::test::ScratchDir dir;
  const Tokenizer tok = load_json(dir, j);
  EXPECT_EQ(tok.kind(), "sentencepiece-bpe");
  EXPECT_EQ(tok.encode("a b"), (Ids{4, 5}));
  EXPECT_EQ(tok.encode("ab  a"), (Ids{4, 3, 1, 4}));
  EXPECT_EQ(tok.decode(tok.encode("ab  a")), "ab  a");
}

TEST(TinyBpe, TokenizerConfigBesideTheFileNamesBosAndEos) {
  ec::test::ScratchDir dir;
  EXPECT_FALSE(load_json(dir, tiny()).eos_id().has_value());
  write_file_atomic(dir / "tokenizer_config.json",
                    R"({"bos_token": {"content": "a"}, "eos_token": "<x>"})");
  const Tokenizer tok = Tokenizer::load(dir / "tokenizer.json");
  EXPECT_EQ(tok.bos_id(), 1);
  EXPECT_EQ(tok.eos_id(), 7);
  write_file_atomic(dir / "tokenizer_config.json", R"({"eos_token": "<missing>"})");
  try {
    Tokenizer::load(dir / "tokenizer.json");
    FAIL() << "expected an error";
  } catch (const ec::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tokenizer_config.json: eos_token"), std::string::npos)
        << e.what();
  }
}

TEST(TinyBpe, CopiesShareTheLoadedTables) {
  ec::test::ScratchDir dir;
  Tokenizer tok = load_json(dir, tiny());
  const Tokenizer copy = tok;
  const Tokenizer moved = std::move(tok);
  EXPECT_EQ(copy.encode("aab ab"), moved.encode("aab ab"));
  EXPECT_EQ(moved.encode("aab ab"), (Ids{5, 6, 4}));
}

struct BadFile {
  const char* what;
  std::function<void(json&)> edit;
  const char* expected_path;
  const char* expected_text;
};

TEST(LoadErrors, NameTheFileAndTheJsonPath) {
  const std::vector<BadFile> cases = {
      {"unknown normalizer",
       [](json& j) {
         j["normalizer"] = {{"type", "Sequence"},
                            {"normalizers", {{{"type", "NFC"}}, {{"type", "BertNormalizer"}}}}};
       },
       "normalizer.normalizers[1]", "unsupported normalizer type 'BertNormalizer'"},
      {"unknown pre-tokenizer",
       [](json& j) {
         j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Whitespace"}}}}};
       },
       "pre_tokenizer.pretokenizers[0]", "'Whitespace'"},
      {"unknown model", [](json& j) { j["model"]["type"] = "WordPiece"; }, "model",
       "unsupported model type 'WordPiece'"},
      {"unknown decoder",
       [](json& j) {
         j["decoder"] = {{"type", "CTC"}};
       },
       "decoder", "'CTC'"},
      {"unknown post-processor",
       [](json& j) {
         j["post_processor"] = {{"type", "RobertaProcessing"}};
       },
       "post_processor", "'RobertaProcessing'"},
      {"merge of unknown token", [](json& j) { j["model"]["merges"].push_back("a z"); },
       "model.merges[3]", "'z' is not in model.vocab"},
      {"malformed merge", [](json& j) { j["model"]["merges"][1] = "a b c"; }, "model.merges[1]",
       "exactly one space"},
      {"id not a number", [](json& j) { j["model"]["vocab"]["b"] = "2"; }, "model.vocab.b",
       "expected an integer id"},
      {"id out of range", [](json& j) { j["model"]["vocab"]["b"] = kMaxVocabSize; },
       "model.vocab.b", "expected an id"},
      {"no vocab", [](json& j) { j["model"].erase("vocab"); }, "model.vocab", "missing field"},
      {"dropout", [](json& j) { j["model"]["dropout"] = 0.1; }, "model.dropout", "dropout"},
      {"truncation",
       [](json& j) {
         j["truncation"] = {{"max_length", 8}};
       },
       "truncation", "must be null"},
      {"added token without id", [](json& j) { j["added_tokens"][0].erase("id"); },
       "added_tokens[0].id", "missing field"},
      {"bad split regex",
       [](json& j) {
         j["pre_tokenizer"] = {{"type", "Split"},
                               {"pattern", {{"Regex", "(a"}}},
                               {"behavior", "Isolated"},
                               {"invert", false}};
       },
       "pre_tokenizer.pattern.Regex", "does not compile"},
  };
  for (const BadFile& bad : cases) {
    json j = tiny();
    bad.edit(j);
    const std::string message = load_error(j);
    EXPECT_NE(message.find("tokenizer.json: "), std::string::npos) << bad.what << ": " << message;
    EXPECT_NE(message.find(bad.expected_path), std::string::npos) << bad.what << ": " << message;
    EXPECT_NE(message.find(bad.expected_text), std::string::npos) << bad.what << ": " << message;
  }
}

TEST(LoadErrors, MissingInvalidAndOversizedFiles) {
  ec::test::ScratchDir dir;
  EXPECT_THROW(Tokenizer::load(dir / "absent.json"), ec::Error);
  write_file_atomic(dir / "tokenizer.json", "{\"model\": [1, 2");
  try {
    Tokenizer::load(dir / "tokenizer.json");
    FAIL() << "expected an error";
  } catch (const ec::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
  write_file_atomic(dir / "big.json", "{}");
  std::filesystem::resize_file(dir / "big.json", kMaxTokenizerFileBytes + 1);  // sparse
  try {
    Tokenizer::load(dir / "big.json");
    FAIL() << "expected an error";
  } catch (const ec::Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than the limit"), std::string::npos) << e.what();
  }
}

TEST(EncodeErrors, InvalidUtf8AndOversizedInput) {
  ec::test::ScratchDir dir;
  const Tokenizer tok = load_json(dir, tiny());
  try {
    tok.encode(
        "ab\xFF"
        "a");
    FAIL() << "expected an error";
  } catch (const ec::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not valid UTF-8 at byte 2"), std::string::npos);
  }
  const std::string huge(kMaxTextBytes + 1, 'a');
  EXPECT_THROW(tok.encode(huge), ec::Error);
}

TEST(BytesTokenizer, IdsAreByteValues) {
  const Tokenizer tok = Tokenizer::bytes();
  EXPECT_EQ(tok.kind(), "bytes");
  EXPECT_EQ(tok.vocab_size(), 256);
  EXPECT_FALSE(tok.bos_id().has_value());
  EXPECT_EQ(tok.encode("A\xC3\xA9"), (Ids{65, 0xC3, 0xA9}));
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> letter(0x20, 0x7E);
  std::string text;
  for (int i = 0; i < 500; ++i) text += static_cast<char>(letter(rng));
  text += "\xE4\xB8\xAD\xF0\x9F\x98\x80";
  const auto ids = tok.encode(text);
  ASSERT_EQ(ids.size(), text.size());
  EXPECT_EQ(tok.decode(ids), text);
  EXPECT_EQ(tok.decode(Ids{0xE4, 0xB8}), "\xEF\xBF\xBD");  // a cut character, repaired
}

TEST(RealFiles, KindsAndSpecialTokens) {
  const Tokenizer* qwen = test::fixture_tokenizer("qwen3");
  const Tokenizer* llama = test::fixture_tokenizer("llama2");
  ASSERT_NE(qwen, nullptr);
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(qwen->kind(), "byte-level-bpe");
  EXPECT_EQ(llama->kind(), "sentencepiece-bpe");
  EXPECT_FALSE(qwen->bos_id().has_value());
  EXPECT_EQ(qwen->eos_id(), 151643);  // <|endoftext|> (no tokenizer_config.json beside it)
  EXPECT_EQ(llama->bos_id(), 1);
  EXPECT_EQ(llama->eos_id(), 2);
  EXPECT_EQ(qwen->token_to_id("<|im_start|>"), 151644);
  EXPECT_EQ(llama->encode("", true), (Ids{1}));
  EXPECT_EQ(llama->encode("", false), Ids{});
}

}  // namespace
}  // namespace ec::tok
