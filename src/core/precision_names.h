// The precision names users type ("nf4", "Int8-wo"), matched without regard to case and returned
// as reports spell them ("NF4", "INT8-WO").
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace ec {

// Every precision ecocompute knows, as reports and curves spell it.
inline constexpr std::array<std::string_view, 6> k_precision_names = {"FP16",    "BF16", "INT8",
                                                                      "INT8-WO", "NF4",  "NF4-DQ"};

// The report spelling of `text` in any case; nullopt for a name that is not a precision.
std::optional<std::string_view> known_precision(std::string_view text);

// The report spelling of `text`, or `text` upper-cased when it names no known precision (for
// callers that report the unknown name against their own list, such as a curve set's).
std::string normalize_precision(std::string_view text);

}  // namespace ec
