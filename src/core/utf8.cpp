// UTF-8 well-formedness (Unicode table 3-7: no overlongs, surrogates or code points above
// U+10FFFF), shared by the tokenizer, the CSV reader and the JSON reader.
#include "core/utf8.h"

namespace ec {

std::size_t scan_utf8_char(std::string_view s, std::size_t pos, bool& valid) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  valid = false;
  if (b0 < 0x80) {
    valid = true;
    return 1;
  }
  std::size_t need = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 1;
  }
  std::size_t len = 1;
  for (std::size_t k = 0; k < need; ++k) {
    if (pos + len >= s.size()) return len;
    const auto b = static_cast<unsigned char>(s[pos + len]);
    const unsigned char min = k == 0 ? lo : 0x80;
    const unsigned char max = k == 0 ? hi : 0xBF;
    if (b < min || b > max) return len;
    ++len;
  }
  valid = true;
  return len;
}

std::optional<std::size_t> find_invalid_utf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    bool valid = false;
    const std::size_t len = scan_utf8_char(text, pos, valid);
    if (!valid) return pos;
    pos += len;
  }
  return std::nullopt;
}

}  // namespace ec
