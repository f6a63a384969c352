// Added-token matching with tokenizers' lstrip / rstrip / single_word rules.
#include "tokenizer/added_tokens.h"

#include "tokenizer/utf8.h"

#include <utf8proc.h>
#include <algorithm>

namespace ec::tok {
namespace {

// Rust's char::is_alphanumeric: letters and numbers.
bool is_word_char(char32_t c) {
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return (category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_LO) ||
         (category >= UTF8PROC_CATEGORY_ND && category <= UTF8PROC_CATEGORY_NO);
}

// The code point that ends at `end` (exclusive); `end` > 0.
char32_t code_point_before(std::string_view text, std::size_t end) {
  std::size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  return next_code_point(text, start);
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens,
                                     std::vector<std::string> patterns)
    : tokens_(std::move(tokens)), patterns_(std::move(patterns)) {
  for (std::size_t i = 0; i < patterns_.size(); ++i) {
    if (patterns_[i].empty()) continue;
    by_first_byte_[static_cast<unsigned char>(patterns_[i][0])].push_back(i);
  }
  for (auto& bucket : by_first_byte_) {
    std::stable_sort(bucket.begin(), bucket.end(), [this](std::size_t a, std::size_t b) {
      return patterns_[a].size() > patterns_[b].size();
    });
  }
}

std::vector<AddedTokenMatcher::Span> AddedTokenMatcher::split(std::string_view text) const {
  std::vector<Span> spans;
  std::size_t text_start = 0;  // start of the plain text not yet emitted
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto& bucket = by_first_byte_[static_cast<unsigned char>(text[pos])];
    const std::size_t* found = nullptr;
    for (const std::size_t& i : bucket) {
      if (text.substr(pos).starts_with(patterns_[i])) {
        found = &i;
        break;
      }
    }
    if (found == nullptr) {
      ++pos;
      continue;
    }
    const AddedToken& token = tokens_[*found];
    std::size_t begin = pos;
    std::size_t end = pos + patterns_[*found].size();
    if (token.single_word) {
      const bool word_before = begin > 0 && is_word_char(code_point_before(text, begin));
      std::size_t after = end;
      const bool word_after = end < text.size() && is_word_char(next_code_point(text, after));
      if (word_before || word_after) {
        ++pos;
        continue;
      }
    }
    if (token.lstrip) {
      while (begin > text_start && is_unicode_whitespace(code_point_before(text, begin))) {
        std::size_t back = begin - 1;
        while (back > 0 && (static_cast<unsigned char>(text[back]) & 0xC0) == 0x80) --back;
        begin = back;
      }
    }
    if (token.rstrip) {
      while (end < text.size()) {
        std::size_t next = end;
        if (!is_unicode_whitespace(next_code_point(text, next))) break;
        end = next;
      }
    }
    if (text_start < begin) spans.push_back({text_start, begin, -1});
    spans.push_back({begin, end, token.id});
    text_start = end;
    pos = end;
  }
  if (text_start < text.size()) spans.push_back({text_start, text.size(), -1});
  return spans;
}

}  // namespace ec::tok
