// Precision names matched without regard to case.
#include "core/precision_names.h"

#include <algorithm>
#include <cctype>

namespace ec {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

std::optional<std::string_view> known_precision(std::string_view text) {
  const std::string wanted = upper(text);
  for (std::string_view name : k_precision_names) {
    if (wanted == name) return name;
  }
  return std::nullopt;
}

std::string normalize_precision(std::string_view text) {
  if (auto name = known_precision(text)) return std::string(*name);
  return upper(text);
}

}  // namespace ec
