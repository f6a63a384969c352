// The byte-level map: printable Latin-1 bytes stand for themselves, the other 68 bytes for U+0100….
#include "tokenizer/byte_level.h"

#include "tokenizer/utf8.h"

namespace ec::tok {

ByteLevelMap::ByteLevelMap() {
  byte_of_char_.fill(-1);
  int next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    const int c = printable ? b : next++;
    append_utf8(utf8_of_byte_[b], static_cast<char32_t>(c));
    byte_of_char_[c] = b;
  }
}

const ByteLevelMap& ByteLevelMap::get() {
  static const ByteLevelMap map;
  return map;
}

void ByteLevelMap::encode(std::string_view bytes, std::string& out) const {
  for (const char b : bytes) out += utf8_of_byte_[static_cast<unsigned char>(b)];
}

std::optional<unsigned char> ByteLevelMap::byte_of(char32_t c) const {
  if (c >= byte_of_char_.size() || byte_of_char_[c] < 0) return std::nullopt;
  return static_cast<unsigned char>(byte_of_char_[c]);
}

}  // namespace ec::tok
