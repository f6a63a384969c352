// tokenizer.json "added_tokens": found in the text before normalization and never split by BPE.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ec::tok {

struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false;      // dropped by decode(skip_special_tokens = true)
  bool lstrip = false;       // the match swallows whitespace on its left
  bool rstrip = false;       // ... and on its right
  bool single_word = false;  // only matches when not inside a word
  bool normalized = false;   // matched in normalized text rather than the raw input
};

// Finds added tokens in a text, leftmost first and longest at a position (tokenizers uses
// aho-corasick with LeftmostLongest), and cuts the text around them.
class AddedTokenMatcher {
 public:
  struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;
    int32_t id = -1;  // -1: plain text to normalize and tokenize
  };
  // `patterns[i]` is what to look for (the normalized content for normalized tokens).
  AddedTokenMatcher(std::vector<AddedToken> tokens, std::vector<std::string> patterns);
  AddedTokenMatcher() = default;

  bool empty() const { return tokens_.empty(); }
  // Spans covering `text` in order; empty text spans are omitted.
  std::vector<Span> split(std::string_view text) const;

 private:
  std::vector<AddedToken> tokens_;
  std::vector<std::string> patterns_;
  std::array<std::vector<std::size_t>, 256> by_first_byte_;  // longest pattern first
};

}  // namespace ec::tok
