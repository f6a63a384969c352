// UTF-8 well-formedness, the one definition every parser uses (tokenizer, CSV, JSON).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ec {

// The character at `pos` (pos < s.size()): its length with `valid` true when it is a well-formed
// sequence, else the length of the maximal invalid subpart there (at least 1, the Unicode
// "maximal subpart" practice) with `valid` false. A sequence cut off by the end of `s` gives a
// subpart that reaches the end.
std::size_t scan_utf8_char(std::string_view s, std::size_t pos, bool& valid);

// The byte offset of the first invalid sequence, or nothing when `text` is valid UTF-8.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

}  // namespace ec
