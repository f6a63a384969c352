// Writing one CSV cell: quoting, and the apostrophe that keeps a spreadsheet from running text as a
// formula (and its removal when a table is read back). Apart from the reader (csv_table.cpp), so
// the site's report grader (WebAssembly) renders tables with this same code.
#include <cstdlib>
#include <string>

#include "analysis/csv_table.h"

namespace ec::analysis {

namespace {

bool starts_formula(std::string_view text) {
  const size_t first = text.find_first_not_of('\'');
  if (first == std::string_view::npos) return false;
  const char c = text[first];
  return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

bool plain_number(std::string_view text) {
  if (text.empty() || text.size() > 64) return false;
  const std::string s(text);
  char* end = nullptr;
  (void)std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && s.find_first_of("xXpP") == std::string::npos;
}

}  // namespace

std::string csv_neutralize(std::string_view text) {
  if (!starts_formula(text) || plain_number(text)) return std::string(text);
  return "'" + std::string(text);
}

std::string csv_unneutralize(std::string_view field) {
  if (field.size() >= 2 && field.front() == '\'' && starts_formula(field.substr(1))) {
    return std::string(field.substr(1));
  }
  return std::string(field);
}

std::string csv_escape(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace ec::analysis
