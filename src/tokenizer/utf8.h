// UTF-8 helpers the tokenizer needs: validation, code point iteration, encoding, lossy repair.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/utf8.h"

namespace ec::tok {

using ec::find_invalid_utf8;  // validation lives in core/utf8.h, shared with the CSV and JSON
                              // readers

// Length in bytes of the character starting with `lead`; `text` must be valid UTF-8.
inline std::size_t utf8_char_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

// Decodes the character at `pos` of valid UTF-8 and advances `pos` past it.
char32_t next_code_point(std::string_view text, std::size_t& pos);

void append_utf8(std::string& out, char32_t code_point);

// Replaces each maximal invalid subsequence with U+FFFD, as Rust's String::from_utf8_lossy does
// (Hugging Face decoders use it, so decode() must produce the same replacement count).
std::string utf8_lossy(std::string_view bytes);

// Unicode White_Space (what Rust's char::is_whitespace and Oniguruma's \s accept).
bool is_unicode_whitespace(char32_t c);

}  // namespace ec::tok
