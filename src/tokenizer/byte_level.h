// GPT-2's byte ↔ printable-character map used by byte-level BPE (Qwen2/3, Llama-3, GPT-2).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace ec::tok {

class ByteLevelMap {
 public:
  static const ByteLevelMap& get();

  // Each byte of `bytes` as its character's UTF-8 text, appended to `out`.
  void encode(std::string_view bytes, std::string& out) const;
  // The byte a character stands for, or nothing for characters outside the map.
  std::optional<unsigned char> byte_of(char32_t c) const;

 private:
  ByteLevelMap();
  std::array<std::string, 256> utf8_of_byte_;
  std::array<int, 324> byte_of_char_;  // every mapped character is below U+0144; -1 = unmapped
};

}  // namespace ec::tok
