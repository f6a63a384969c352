// The free-text rules, in the original's order: the first size written as "<number> b" (or
// "billion"/"params"), the first class whose GPU names appear, INT8 before NF4, then batch and
// context. ECMAScript regular expressions, so \b and case folding behave as in the original.
#include "analysis/query_text.h"

#include <array>
#include <cstdlib>
#include <regex>
#include <string>
#include <utility>

namespace ec::analysis {
namespace {

using std::regex;
constexpr auto kFlags = regex::ECMAScript | regex::icase;

std::optional<std::smatch> search(const std::string& text, const regex& re) {
  std::smatch m;
  if (std::regex_search(text, m, re)) return m;
  return std::nullopt;
}

}  // namespace

QueryText parse_query_text(std::string_view input, bool original_k_suffix) {
  static const regex size_b(R"((\d+(?:\.\d+)?)\s*b\b)", kFlags);
  static const regex size_word(R"((\d+(?:\.\d+)?)\s*(?:billion|params?))", kFlags);
  static const std::array<std::pair<const char*, regex>, 5> classes{{
      {"turing", regex(R"(\b(turing|t4|tesla\s*t4)\b)", kFlags)},
      {"ada", regex(R"(\b(ada|4090d?|rtx\s*40\d0)\b)", kFlags)},
      {"blackwell", regex(R"(\b(blackwell|5090|rtx\s*50\d0)\b)", kFlags)},
      {"ampere", regex(R"(\b(ampere|a100|a800|a40|a30|a10)\b)", kFlags)},
      {"hopper", regex(R"(\b(hopper|h100|h200|h800)\b)", kFlags)},
  }};
  static const regex int8(R"(\bint8\b|\b8[\s-]*bit\b)", kFlags);
  static const regex nf4(R"(\bnf4\b|\b4[\s-]*bit\b|\bq4\b)", kFlags);
  static const regex batch(R"(\b(?:batch|bs|b)\s*[=:]?\s*(\d+)\b)", kFlags);
  static const regex batch_size(R"(\bbatch\s*size\s*(\d+))", kFlags);
  static const regex ctx_word(R"(\b(?:ctx|context|seq(?:len)?|sequence)\s*[=:]?\s*(\d+)\s*(k)?\b)",
                              kFlags);
  static const regex ctx_k(R"(\b(\d+)\s*k\s*(?:ctx|context|tokens?)\b)", kFlags);

  const std::string text = " " + std::string(input) + " ";
  QueryText out;
  auto m = search(text, size_b);
  if (!m) m = search(text, size_word);
  if (m) out.params_b = std::strtod((*m)[1].str().c_str(), nullptr);
  for (const auto& [name, re] : classes) {
    if (std::regex_search(text, re)) {
      out.arch = name;
      break;
    }
  }
  if (std::regex_search(text, int8)) {
    out.precision = "INT8";
  } else if (std::regex_search(text, nf4)) {
    out.precision = "NF4";
  }
  m = search(text, batch);
  if (!m) m = search(text, batch_size);
  if (m) out.batch = std::strtod((*m)[1].str().c_str(), nullptr);
  if (auto c = search(text, ctx_word)) {
    out.ctx = std::strtod((*c)[1].str().c_str(), nullptr) * ((*c)[2].matched ? 1024 : 1);
  } else if (auto k = search(text, ctx_k)) {
    out.ctx = std::strtod((*k)[1].str().c_str(), nullptr) * (original_k_suffix ? 1 : 1024);
  }
  return out;
}

}  // namespace ec::analysis
