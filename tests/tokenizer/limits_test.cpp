// The documented size limits on tokenizer files (docs/limits.md): tokenizer.json, the
// tokenizer_config.json beside it, and the vocabulary; each error names the file and the limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "support/paths.h"
#include "tokenizer/tokenizer.h"

namespace ec::tok {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// A BPE over {a, b} with an unk token.
const char* kTiny = R"({"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
  "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,
  "model": {"type": "BPE", "dropout": null, "unk_token": "?", "fuse_unk": true,
            "byte_fallback": false, "continuing_subword_prefix": null, "end_of_word_suffix": null,
            "vocab": {"?": 0, "a": 1, "b": 2, "ab": 3}, "merges": ["a b"]}})";

std::string load_error_of_file(const std::filesystem::path& path) {
  try {
    Tokenizer::load(path);
  } catch (const ec::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ec::Error loading " << path;
  return "";
}

TEST(TokenizerLimits, TokenizerJsonErrorNamesFileSizeAndLimit) {
  ec::test::ScratchDir dir;
  write_file_atomic(dir / "tokenizer.json", kTiny);
  std::filesystem::resize_file(dir / "tokenizer.json", kMaxTokenizerFileBytes + 5);  // sparse
  EXPECT_THAT(
      load_error_of_file(dir / "tokenizer.json"),
      AllOf(HasSubstr("tokenizer.json"), HasSubstr(std::to_string(kMaxTokenizerFileBytes + 5)),
            HasSubstr(std::to_string(kMaxTokenizerFileBytes))));
}

TEST(TokenizerLimits, TokenizerConfigAboveTheLimitIsRefused) {
  ec::test::ScratchDir dir;
  write_file_atomic(dir / "tokenizer.json", kTiny);
  write_file_atomic(dir / "tokenizer_config.json", R"({"bos_token": "a"})");
  EXPECT_EQ(Tokenizer::load(dir / "tokenizer.json").bos_id(), 1);  // within the limit: read
  std::filesystem::resize_file(dir / "tokenizer_config.json", kMaxTokenizerConfigBytes + 1);
  EXPECT_THAT(load_error_of_file(dir / "tokenizer.json"),
              AllOf(HasSubstr("tokenizer_config.json"),
                    HasSubstr(std::to_string(kMaxTokenizerConfigBytes + 1)),
                    HasSubstr(std::to_string(kMaxTokenizerConfigBytes))));
}

TEST(TokenizerLimits, VocabularyIdAtTheLimitIsRefused) {
  // Ids live in [0, kMaxVocabSize): the first id past the end names the limit.
  ec::test::ScratchDir dir;
  auto j = nlohmann::json::parse(kTiny);
  j["model"]["vocab"]["ab"] = kMaxVocabSize;
  write_file_atomic(dir / "tokenizer.json", j.dump());
  EXPECT_THAT(load_error_of_file(dir / "tokenizer.json"),
              AllOf(HasSubstr("model.vocab.ab"), HasSubstr(std::to_string(kMaxVocabSize))));
  j["model"]["vocab"]["ab"] = kMaxVocabSize - 1;  // the largest legal id
  write_file_atomic(dir / "tokenizer.json", j.dump());
  EXPECT_EQ(Tokenizer::load(dir / "tokenizer.json").encode("ab"),
            (std::vector<int32_t>{kMaxVocabSize - 1}));
}

TEST(TokenizerLimits, TextAtTheLimitEncodesAndOneMoreByteIsRefused) {
  ec::test::ScratchDir dir;
  write_file_atomic(dir / "tokenizer.json", kTiny);
  const Tokenizer tok = Tokenizer::load(dir / "tokenizer.json");
  std::string text(kMaxTextBytes, 'b');
  EXPECT_EQ(tok.encode(text).size(), kMaxTextBytes);
  text.push_back('a');
  try {
    tok.encode(text);
    FAIL() << "expected an error";
  } catch (const ec::Error& e) {
    EXPECT_THAT(std::string(e.what()), AllOf(HasSubstr(std::to_string(kMaxTextBytes + 1)),
                                             HasSubstr(std::to_string(kMaxTextBytes))));
  }
}

}  // namespace
}  // namespace ec::tok
