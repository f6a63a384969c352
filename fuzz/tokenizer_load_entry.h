// Fuzz entry point for Tokenizer::load: the input is a whole tokenizer.json.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "fuzz_support.h"
#include "tokenizer/tokenizer.h"
#include "utf8_oracle.h"

namespace ec::fuzz {

// A loaded tokenizer respects the vocabulary limit, encodes valid text into ids that decode
// without error, and decodes any ids (known or not) into valid UTF-8.
inline void tokenizer_load_one_input(std::span<const uint8_t> bytes) {
  const MemFile file(bytes);
  std::optional<tok::Tokenizer> loaded;
  try {
    loaded.emplace(tok::Tokenizer::load(file.path()));
  } catch (const ec::Error&) {
    return;
  }
  const tok::Tokenizer& t = *loaded;
  expect(t.vocab_size() >= 0 && t.vocab_size() <= tok::kMaxVocabSize,
         "vocabulary size outside [0, limit]");
  static constexpr std::array<std::string_view, 6> kTexts = {
      "",
      "Hello, world! 123",
      " a  b\t\nc ",
      "h\xc3\xa9llo \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80",
      "<s></s><unk><|endoftext|><|im_end|>",
      "e\xcc\x81\xe2\x96\x81x"};
  for (const std::string_view text : kTexts) {
    for (const bool special : {false, true}) {
      std::vector<int32_t> ids;
      try {
        ids = t.encode(text, special);
      } catch (const ec::Error&) {
        continue;  // e.g. a character no token covers and no unk token
      }
      for (const int32_t id : ids) expect(id >= 0, "negative id from encode()");
      expect(is_valid_utf8(t.decode(ids)), "decode(encode()) is not valid UTF-8");
      expect(is_valid_utf8(t.decode(ids, true)), "decode(encode(), skip) is not valid UTF-8");
    }
  }
  std::vector<int32_t> probe = {
      -1, 0, 1, 2, 3, 255, 256, t.vocab_size() - 1, t.vocab_size(), tok::kMaxVocabSize, INT32_MAX};
  if (t.bos_id()) probe.push_back(*t.bos_id());
  if (t.eos_id()) probe.push_back(*t.eos_id());
  expect(is_valid_utf8(t.decode(probe)), "decode() of probe ids is not valid UTF-8");
  for (const int32_t id : probe) {
    const std::string one = t.decode(std::span<const int32_t>(&id, 1));
    expect(is_valid_utf8(one), "decode() of one id is not valid UTF-8");
    (void)t.token_to_id(one);
  }
  (void)t.kind();
}

}  // namespace ec::fuzz
