// Sweep axes as llama-bench writes them: comma lists of names, and integers with ranges
// ("128,256", "64-256+64", "16-128*2").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ec::sweep {

// "a,b,c" → {"a","b","c"}; blanks around items are trimmed. Throws ec::UsageError naming `what` for
// an empty item or an empty list.
std::vector<std::string> parse_name_list(std::string_view text, std::string_view what);

// Items are integers or ranges: "first-last" (step 1), "first-last+step", "first-last*factor".
// Throws ec::UsageError naming `what` and the bad item. Values must be >= `min_value`.
std::vector<int> parse_int_list(std::string_view text, std::string_view what, int min_value = 0);

}  // namespace ec::sweep
