// PCRE2 wrapper: compile once (JIT if the library has it), match with per-call match data.
#include "tokenizer/regex.h"

#include "core/error.h"
#include "tokenizer/utf8.h"

#include <pcre2.h>

namespace ec::tok {
namespace {

// Unicode White_Space, the set Oniguruma's \s matches on UTF-8 text.
constexpr std::string_view kWhiteSpaceClass =
    "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"
    "\\x{202F}\\x{205F}\\x{3000}";

}  // namespace

struct Regex::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

std::string Regex::onig_compatible(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size() + 64);
  bool in_class = false;
  std::size_t class_start = 0;  // index in `pattern` just after '[' or '[^'
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char e = pattern[i + 1];
      if (e == 's') {
        out += in_class ? std::string(kWhiteSpaceClass) : "[" + std::string(kWhiteSpaceClass) + "]";
      } else if (e == 'S' && !in_class) {
        out += "[^" + std::string(kWhiteSpaceClass) + "]";
      } else {
        // \S inside a class has no PCRE2 spelling without nesting; it is left as PCRE2's.
        out += c;
        out += e;
      }
      ++i;
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') {
        out += '^';
        ++i;
      }
      class_start = i + 1;
      continue;
    }
    // A ']' first in a class is a literal, as in both engines.
    if (in_class && c == ']' && i != class_start) in_class = false;
    out += c;
  }
  return out;
}

Regex::Regex(std::string_view pattern, std::string_view where)
    : compiled_(new Compiled), where_(where) {
  const std::string translated = onig_compatible(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  compiled_->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                    PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (compiled_->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof(message));
    ec::fail("{}: regex '{}' does not compile (PCRE2: {} at offset {})", where, pattern,
             reinterpret_cast<const char*>(message), offset);
  }
  // JIT is an optimisation only: without it the interpreter gives the same matches.
  pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE);
}

Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;
Regex::~Regex() = default;

std::vector<std::pair<std::size_t, std::size_t>> Regex::find_all(std::string_view text) const {
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(compiled_->code, nullptr);
  if (data == nullptr) ec::fail("regex: out of memory for match data");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t start = 0;
  while (start <= text.size()) {
    const int rc = pcre2_match(compiled_->code, subject, text.size(), start, PCRE2_NO_UTF_CHECK,
                               data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof(message));
      pcre2_match_data_free(data);
      ec::fail("{}: regex match failed at byte {} of the text: {}", where_, start,
               reinterpret_cast<const char*>(message));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
    const std::size_t begin = ovector[0];
    const std::size_t end = ovector[1];
    matches.emplace_back(begin, end);
    if (end > begin) {
      start = end;
    } else {
      if (end >= text.size()) break;
      start = end + utf8_char_length(static_cast<unsigned char>(text[end]));
    }
  }
  pcre2_match_data_free(data);
  return matches;
}

}  // namespace ec::tok
