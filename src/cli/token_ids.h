// Parsing token id lists typed by users: "1,2,3", "1 2 3" or a JSON array.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ec::cli {

// Throws ec::UsageError naming `what` and the offending item.
std::vector<int32_t> parse_token_ids(std::string_view text, std::string_view what);

}  // namespace ec::cli
