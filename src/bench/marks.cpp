// Parsing the marker protocol's lines: a verb and its words, each checked with a message that
// shows the expected form.
#include "bench/marks.h"

#include <charconv>
#include <vector>

#include "core/error.h"

namespace ec::bench {
namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

int64_t positive(std::string_view word, std::string_view what, std::string_view line) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
  EC_CHECK(ec == std::errc() && end == word.data() + word.size() && v >= 1,
           "mark '{}': {} must be a whole number of at least 1, got '{}'", line, what, word);
  return v;
}

// Phase names become report keys: lower-case letters, digits, '_' and '-'.
bool is_name(std::string_view word) {
  if (word.empty() || word.size() > 64) return false;
  for (char c : word) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Mark parse_mark(std::string_view line) {
  EC_CHECK(line.size() <= kMaxMarkLineBytes, "mark of {} bytes: at most {} per line", line.size(),
           kMaxMarkLineBytes);
  for (char c : line) {
    EC_CHECK(c != '\0' && c != '\r' && c != '\t', "mark '{}': control characters are not allowed",
             line.substr(0, 80));
  }
  auto w = words(line);
  EC_CHECK(!w.empty(), "empty mark: expected hello, info, label, begin, next or end");
  Mark m;
  const std::string_view verb = w[0];
  if (verb == "hello") {
    EC_CHECK(w.size() == 2, "mark '{}': expected 'hello VERSION'", line);
    m.kind = Mark::Kind::hello;
    m.version = static_cast<int>(positive(w[1], "VERSION", line));
  } else if (verb == "info") {
    EC_CHECK(w.size() >= 3, "mark '{}': expected 'info KEY VALUE'", line);
    m.kind = Mark::Kind::info;
    m.key = std::string(w[1]);
    // The value is the rest of the line as written (a prompt keeps its spacing).
    size_t at = static_cast<size_t>(w[2].data() - line.data());
    m.value = std::string(line.substr(at));
  } else if (verb == "label") {
    EC_CHECK(w.size() == 2 && is_name(w[1]),
             "mark '{}': expected 'label NAME' (letters, digits, '_', '-')", line);
    m.kind = Mark::Kind::label;
    m.value = std::string(w[1]);
  } else if (verb == "begin" || verb == "next") {
    EC_CHECK(w.size() == 2 && is_name(w[1]),
             "mark '{}': expected '{} WINDOW' (warmup, prefill, decode, ...: lower-case letters, "
             "digits, '_', '-')",
             line, verb);
    m.kind = verb == "begin" ? Mark::Kind::begin : Mark::Kind::next;
    m.window = std::string(w[1]);
  } else if (verb == "end") {
    EC_CHECK(w.size() == 2 || w.size() == 3, "mark '{}': expected 'end TOKENS [GENERATIONS]'",
             line);
    m.kind = Mark::Kind::end;
    m.tokens = positive(w[1], "TOKENS", line);
    if (w.size() == 3) m.generations = positive(w[2], "GENERATIONS", line);
    EC_CHECK(m.tokens % m.generations == 0,
             "mark '{}': {} tokens do not split into {} equal generations", line, m.tokens,
             m.generations);
  } else {
    fail("mark '{}': unknown verb '{}' (expected hello, info, label, begin, next or end)",
         line.substr(0, 80), verb);
  }
  return m;
}

}  // namespace ec::bench
