// Token id list parsing with errors that point at the bad item.
#include "cli/token_ids.h"

#include <charconv>
#include <string>

#include "core/error.h"

namespace ec::cli {

std::vector<int32_t> parse_token_ids(std::string_view text, std::string_view what) {
  std::vector<int32_t> ids;
  size_t i = 0;
  auto is_separator = [](char c) {
    return c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '[' || c == ']';
  };
  while (i < text.size()) {
    if (is_separator(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !is_separator(text[end])) ++end;
    std::string_view item = text.substr(i, end - i);
    int32_t value = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (ec != std::errc() || ptr != item.data() + item.size() || value < 0) {
      fail_usage("{}: '{}' is not a token id (expected a non-negative integer)", what, item);
    }
    ids.push_back(value);
    i = end;
  }
  return ids;
}

}  // namespace ec::cli
