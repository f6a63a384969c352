// A comma-separated command-line value ("qwen2-0.5b,qwen2-7b") as its items, empty ones kept.
#pragma once

#include <string>
#include <vector>

namespace ec::bench {

inline std::vector<std::string> comma_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace ec::bench
