// Token id list parsing with errors that point at the bad item.
#include "cli/token_ids.h"

#include <charconv>
#include <string>

#include "core/error.h"

namespace ec::cli {

std::vector<int32_t> parse_token_ids(std::string_view text, std::string_view what) {
  // Items are separated by one comma (with any blanks around it) or by blanks alone, inside an
  // optional [ ]; an empty item ("1,,2", "1,", ",1") is an error, not nothing.
  auto is_blank = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  size_t begin = 0, end = text.size();
  while (begin < end && is_blank(text[begin])) ++begin;
  while (end > begin && is_blank(text[end - 1])) --end;
  if (begin < end && text[begin] == '[') {
    if (text[end - 1] != ']') fail_usage("{}: '[' without a closing ']'", what);
    ++begin;
    --end;
  }
  std::vector<int32_t> ids;
  size_t i = begin;
  bool need_item = false;  // after a comma
  while (true) {
    while (i < end && is_blank(text[i])) ++i;
    if (i == end) break;
    if (text[i] == ',') fail_usage("{}: empty item before the comma at offset {}", what, i);
    size_t stop = i;
    while (stop < end && !is_blank(text[stop]) && text[stop] != ',') ++stop;
    std::string_view item = text.substr(i, stop - i);
    int32_t value = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (ec != std::errc() || ptr != item.data() + item.size() || value < 0) {
      fail_usage("{}: '{}' is not a token id (expected a non-negative integer)", what, item);
    }
    ids.push_back(value);
    need_item = false;
    i = stop;
    while (i < end && is_blank(text[i])) ++i;
    if (i < end && text[i] == ',') {
      need_item = true;
      ++i;
    }
  }
  if (need_item) fail_usage("{}: nothing after the last comma", what);
  return ids;
}

}  // namespace ec::cli
