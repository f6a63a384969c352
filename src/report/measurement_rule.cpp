// The measurement rule. A source that names a meter but also calls itself illustrative, synthetic
// or simulated is refused: the original ships an example whose source starts with its warning.
#include "report/measurement_rule.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace ec::report {
namespace {

bool contains_word(std::string_view text, std::string_view word) {
  const auto it =
      std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
      });
  return it != text.end();
}

// Long sources (the original's illustrative one is 90 characters) are cut for the message.
std::string quoted(std::string_view text) {
  constexpr size_t kMax = 60;
  if (text.size() <= kMax) return fmt::format("'{}'", text);
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return fmt::format("'{}…'", text.substr(0, cut));
}

}  // namespace

bool is_hardware_source(std::string_view source) {
  for (std::string_view prefix : {"nvml", "direct-nvml", "rapl"}) {
    if (source.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

bool is_run_without_energy(std::string_view basis) {
  return basis == "unavailable";
}

std::string why_not_a_measurement(std::string_view basis, std::string_view source) {
  if (basis != "measured") {
    return fmt::format("basis is '{}', not 'measured'", basis.empty() ? "(none)" : basis);
  }
  if (source.empty()) return "basis 'measured' but no measurement_source names a meter";
  constexpr std::array<std::string_view, 4> kNotReal = {"illustrative", "synthetic", "simulated",
                                                        "not a real"};
  for (auto word : kNotReal) {
    if (contains_word(source, word)) {
      return fmt::format("its measurement_source says it is {}: {}",
                         word == "not a real" ? "not real" : word, quoted(source));
    }
  }
  if (!is_hardware_source(source)) {
    return fmt::format("measurement_source {} is not a hardware meter (nvml*, direct-nvml, rapl*)",
                       quoted(source));
  }
  return {};
}

}  // namespace ec::report
