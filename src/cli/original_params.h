// The original EcoCompute container's parameters file (energy_params.yaml): flat `key: value`
// lines, read without a YAML library because that is all the file ever holds.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace ec::cli {

// Reads `key: value` lines: `#` starts a comment outside quotes, values may be single- or
// double-quoted, blank lines are skipped. Anything else (nesting, lists, a key twice, a line
// without `:`) throws ec::UsageError naming `source`, the line and what was expected.
std::map<std::string, std::string> parse_original_params(std::string_view text,
                                                         std::string_view source);

}  // namespace ec::cli
