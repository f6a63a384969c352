// A list of messages as one text, a line each: what a failed expectation prints.
#pragma once

#include <string>
#include <vector>

namespace ec::test {

inline std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

}  // namespace ec::test
