// PCRE2 (UTF + UCP, JIT when available) with Oniguruma's meaning of \s, as Hugging Face uses it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ec::tok {

class Regex {
 public:
  // Throws ec::Error with PCRE2's message and offset, prefixed with `where` (file and JSON path).
  Regex(std::string_view pattern, std::string_view where);
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;
  ~Regex();

  // Every non-overlapping match, left to right, as [begin, end) byte offsets. `text` must be valid
  // UTF-8. An empty match advances by one character so the scan always terminates.
  std::vector<std::pair<std::size_t, std::size_t>> find_all(std::string_view text) const;

  // Oniguruma's \s is Unicode White_Space; PCRE2's UCP \s adds U+180E. Rewrites \s and \S so the
  // compiled pattern matches what tokenizers' onig regex matches (exposed for tests).
  static std::string onig_compatible(std::string_view pattern);

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
  std::string where_;  // file and JSON path of the pattern, for match errors too
};

}  // namespace ec::tok
