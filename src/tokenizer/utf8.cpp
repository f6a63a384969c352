// UTF-8 validation, decoding and lossy repair following the Unicode "maximal subpart" practice.
#include "tokenizer/utf8.h"

namespace ec::tok {
namespace {

// Length of the valid character at `pos`, or the length of the maximal invalid subpart there
// (at least 1) with `valid` false.
std::size_t scan_char(std::string_view s, std::size_t pos, bool& valid) {
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

}  // namespace

std::optional<std::size_t> find_invalid_utf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    bool valid = false;
    const std::size_t len = scan_char(text, pos, valid);
    if (!valid) return pos;
    pos += len;
  }
  return std::nullopt;
}

char32_t next_code_point(std::string_view text, std::size_t& pos) {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  const std::size_t len = utf8_char_length(b0);
  char32_t c = len == 1 ? b0 : len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
  for (std::size_t k = 1; k < len && pos + k < text.size(); ++k) {
    c = (c << 6) | (static_cast<unsigned char>(text[pos + k]) & 0x3Fu);
  }
  pos += len;
  return c;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string utf8_lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    bool valid = false;
    const std::size_t len = scan_char(bytes, pos, valid);
    if (valid) {
      out.append(bytes.substr(pos, len));
    } else {
      out += "\xEF\xBF\xBD";
    }
    pos += len;
  }
  return out;
}

bool is_unicode_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

}  // namespace ec::tok
