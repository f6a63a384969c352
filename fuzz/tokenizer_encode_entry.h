// Fuzz entry point for encoding arbitrary bytes with the two real tokenizers (Qwen3 byte-level
// BPE, Llama 2 SentencePiece BPE) from tests/fixtures/npm, and decoding arbitrary ids.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <utf8proc.h>

#include "core/error.h"
#include "fuzz_support.h"
#include "tokenizer/tokenizer.h"
#include "utf8_oracle.h"

namespace ec::fuzz {

// Loaded once per process; a missing fixture is fatal (the target would test nothing).
inline const tok::Tokenizer& fixture_tokenizer(bool llama2) {
  static const auto load = [](const char* name) {
    const auto path = source_dir() / "tests/fixtures/npm" / name / "tokenizer.json";
    if (!std::filesystem::exists(path)) {
      throw std::runtime_error(path.string() + " is missing: run scripts/fetch-fixtures.sh");
    }
    return std::make_unique<tok::Tokenizer>(tok::Tokenizer::load(path));
  };
  static const auto qwen3 = load("qwen3");
  static const auto llama = load("llama2");
  return llama2 ? *llama : *qwen3;
}

inline std::string nfc(std::string_view text) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &out,
                   static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) throw PropertyViolation("utf8proc rejects text the oracle calls valid UTF-8");
  std::string s(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return s;
}

// Byte 0 picks the tokenizer (bit 0), add_special_tokens (bit 1), and whether the rest is also
// decoded as little-endian int32 ids (bit 2, skip_special_tokens in bit 3). The rest is the text.
// Valid UTF-8 must encode, invalid must be an ec::Error; every id is in the vocabulary; and
// without added-token text, decode(encode(text)) gives the (normalized) text back.
inline void tokenizer_encode_one_input(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  const uint8_t mode = bytes[0];
  const bool llama2 = (mode & 1) != 0;
  const bool special = (mode & 2) != 0;
  const tok::Tokenizer& tokenizer = fixture_tokenizer(llama2);
  const std::string_view text = as_text(bytes.subspan(1));

  if ((mode & 4) != 0) {
    std::vector<int32_t> ids(text.size() / 4);
    if (!ids.empty()) std::memcpy(ids.data(), text.data(), ids.size() * 4);
    const std::string decoded = tokenizer.decode(ids, (mode & 8) != 0);
    expect(is_valid_utf8(decoded), "decode() returned invalid UTF-8");
  }

  const bool valid = is_valid_utf8(text);
  std::vector<int32_t> ids;
  try {
    ids = tokenizer.encode(text, special);
  } catch (const ec::Error& e) {
    expect(!valid, std::string("valid UTF-8 rejected: ") + e.what());
    return;
  }
  expect(valid, "invalid UTF-8 accepted");
  for (const int32_t id : ids) {
    expect(id >= 0 && id < tokenizer.vocab_size(), "id outside the vocabulary");
  }
  if (special || text.find('<') != std::string_view::npos) return;
  if (llama2 && text.find("\xe2\x96\x81") != std::string_view::npos) return;  // U+2581 '▁'
  const std::string decoded = tokenizer.decode(ids);
  expect(decoded == (llama2 ? std::string(text) : nfc(text)),
         "decode(encode(text)) differs from the text");
}

}  // namespace ec::fuzz
