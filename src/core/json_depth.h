// JSON parsing with the nesting limit every reader of user files shares (as the store's reader).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ec {

inline constexpr int kMaxJsonNesting = 256;

// Parses `text` (from `source`, named in errors); throws ec::Error when it nests deeper than
// kMaxJsonNesting and nlohmann::json::parse_error on bad syntax.
nlohmann::json parse_json_nested_at_most(std::string_view text, std::string_view source);

}  // namespace ec
