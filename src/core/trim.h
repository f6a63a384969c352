// trim() and ascii_lower(): text without its surrounding blanks, and in lower case, for the
// parsers of lists, tables and names.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace ec {

// s without its leading and trailing characters from `blanks` (spaces and tabs unless told).
constexpr std::string_view trim(std::string_view s, std::string_view blanks = " \t") {
  const size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

// s with ASCII letters in lower case (names compared in any case).
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace ec
