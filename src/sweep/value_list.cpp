// Parsing of comma lists and integer ranges for sweep axes.
#include "sweep/value_list.h"

#include <charconv>
#include <limits>

#include "core/error.h"
#include "core/trim.h"

namespace ec::sweep {
namespace {

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> items;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    items.push_back(
        trim(text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos)));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return items;
}

bool to_int(std::string_view s, long long& out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::vector<std::string> parse_name_list(std::string_view text, std::string_view what) {
  std::vector<std::string> out;
  for (auto item : split(text)) {
    if (item.empty()) fail_usage("{} '{}': empty item in the comma list", what, text);
    out.emplace_back(item);
  }
  return out;
}

std::vector<int> parse_int_list(std::string_view text, std::string_view what, int min_value) {
  std::vector<int> out;
  // Ranges are bounded so a typo ("1-1000000") cannot expand into a sweep nobody meant to run.
  constexpr size_t kMaxValues = 4096;
  for (auto item : split(text)) {
    auto bad = [&](std::string_view why) {
      fail_usage(
          "{} '{}': item '{}' {} (expected N, FIRST-LAST, FIRST-LAST+STEP or FIRST-LAST*FACTOR)",
          what, text, item, why);
    };
    long long first = 0, last = 0, step = 1;
    char op = '+';
    size_t dash = item.find('-', 1);  // a leading '-' is a sign, caught by the minimum below
    if (dash == std::string_view::npos) {
      if (!to_int(item, first)) bad("is not an integer");
      last = first;
    } else {
      std::string_view rest = item.substr(dash + 1);
      size_t opos = rest.find_first_of("+*");
      if (!to_int(item.substr(0, dash), first)) bad("does not start with an integer");
      if (!to_int(rest.substr(0, opos), last)) bad("has no integer after '-'");
      if (opos != std::string_view::npos) {
        op = rest[opos];
        if (!to_int(rest.substr(opos + 1), step)) bad("has no integer step");
      }
      if (last < first) bad("runs backwards");
      if (op == '+' && step < 1) bad("needs a step of at least 1");
      if (op == '*' && (step < 2 || first < 1))
        bad("needs a factor of at least 2 and a start of at least 1");
    }
    if (first < min_value) bad(fmt::format("is below the minimum {}", min_value));
    if (last > std::numeric_limits<int>::max()) bad("is too large");
    for (long long v = first;;) {
      out.push_back(static_cast<int>(v));
      if (out.size() > kMaxValues) bad(fmt::format("expands to more than {} values", kMaxValues));
      // The next value is taken only when it stays within LAST, tested without forming it: a step
      // or factor near the integer limit must end the range, not overflow.
      if (op == '+' ? step > last - v : v > last / step) break;
      v = op == '+' ? v + step : v * step;
    }
  }
  return out;
}

}  // namespace ec::sweep
