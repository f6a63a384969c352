// The original's energy_params.yaml: flat `key: value` lines (original_params.h).
#include "cli/original_params.h"

#include <cctype>

#include "core/error.h"

namespace ec::cli {
namespace {

std::string_view trim_param_text(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool is_param_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

// The value part of a line: a quoted string up to its closing quote, or plain text up to a comment.
std::string parse_param_value(std::string_view rest, std::string_view source, int line) {
  rest = trim_param_text(rest);
  if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
    const char quote = rest.front();
    const auto close = rest.find(quote, 1);
    if (close == std::string_view::npos) {
      fail_usage("{}: line {}: the value opens a {} quote that is never closed", source, line,
                 quote);
    }
    const auto after = trim_param_text(rest.substr(close + 1));
    if (!after.empty() && after.front() != '#') {
      fail_usage("{}: line {}: unexpected text after the quoted value: '{}'", source, line, after);
    }
    return std::string(rest.substr(1, close - 1));
  }
  if (!rest.empty() && rest.front() == '#') return {};
  const auto value = trim_param_text(rest.substr(0, rest.find(" #")));
  const bool list_item = value == "-" || value.starts_with("- ");
  if (list_item || (!value.empty() &&
                    std::string_view("[{|>&*!").find(value.front()) != std::string_view::npos)) {
    fail_usage(
        "{}: line {}: expected a plain value (a number, a word or a quoted string), got "
        "'{}'",
        source, line, value);
  }
  return std::string(value);
}

}  // namespace

std::map<std::string, std::string> parse_original_params(std::string_view text,
                                                         std::string_view source) {
  std::map<std::string, std::string> params;
  int line_number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (trim_param_text(line).empty() || trim_param_text(line).front() == '#') continue;
    if (line.front() == ' ' || line.front() == '\t') {
      fail_usage(
          "{}: line {}: expected `key: value` at the start of the line (nested values are "
          "not part of the original's parameters)",
          source, line_number);
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      fail_usage("{}: line {}: expected `key: value`, got '{}'", source, line_number,
                 trim_param_text(line));
    }
    const auto key = trim_param_text(line.substr(0, colon));
    bool key_ok = !key.empty();
    for (char c : key) key_ok = key_ok && is_param_key_char(c);
    if (!key_ok) fail_usage("{}: line {}: '{}' is not a parameter name", source, line_number, key);
    std::string value = parse_param_value(line.substr(colon + 1), source, line_number);
    if (value.empty() || value == "null" || value == "~") continue;  // YAML's null: not set
    if (!params.emplace(std::string(key), std::move(value)).second) {
      fail_usage("{}: line {}: '{}' is set twice", source, line_number, key);
    }
  }
  return params;
}

}  // namespace ec::cli
