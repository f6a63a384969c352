// The one form of every diagnostic line on standard error, "ecocompute: error|warning|note: TEXT",
// so people and scripts read every command the same way (docs/exit-codes.md, "Messages").
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string_view>

namespace ec {

// What made the command fail; TEXT names the file, field or flag at fault and what was expected.
// A command that exits non-zero for a failure prints at least one of these.
inline void print_error(std::string_view text) {
  fmt::print(stderr, "ecocompute: error: {}\n", text);
}

// Something the command went on past (an input skipped, a value clamped); the status stays 0.
inline void print_warning(std::string_view text) {
  fmt::print(stderr, "ecocompute: warning: {}\n", text);
}

// Context for a person reading an error or a warning (a hint, where to look next).
inline void print_note(std::string_view text) {
  fmt::print(stderr, "ecocompute: note: {}\n", text);
}

}  // namespace ec
