// trim(): a piece of text without the blanks around it, for the parsers of lists and tables.
#pragma once

#include <string_view>

namespace ec {

// s without its leading and trailing characters from `blanks` (spaces and tabs unless told).
constexpr std::string_view trim(std::string_view s, std::string_view blanks = " \t") {
  const size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

}  // namespace ec
