// Fuzz entry point for the command line's list parsers: the first byte picks the parser
// (--prompt-ids and --decode, --new-tokens, --gpus, --models), the rest is the flag's text.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "cli/token_ids.h"
#include "core/error.h"
#include "fuzz_support.h"
#include "sweep/value_list.h"

namespace ec::fuzz {

// Accepted lists hold what their flags promise: ids ≥ 0, integers ≥ the minimum, names non-empty,
// and a token list never silently drops an item (as many ids as number runs in the text).
inline void cli_lists_one_input(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 1, bytes.size() - 1);
  try {
    switch (bytes[0] % 4) {
      case 0: {
        const auto ids = cli::parse_token_ids(text, "--prompt-ids");
        size_t runs = 0;
        for (size_t i = 0; i < text.size(); ++i) {
          const bool digit = text[i] >= '0' && text[i] <= '9';
          if (digit && (i == 0 || text[i - 1] < '0' || text[i - 1] > '9')) ++runs;
        }
        expect(ids.size() == runs, "an id list lost or invented an item");
        for (const auto id : ids) expect(id >= 0, "accepted a negative token id");
        break;
      }
      case 1:
        for (const int v : sweep::parse_int_list(text, "--new-tokens", 1)) {
          expect(v >= 1, "accepted a token count below 1");
        }
        break;
      case 2:
        for (const int v : sweep::parse_int_list(text, "--gpus", 0)) {
          expect(v >= 0, "accepted a negative GPU index");
        }
        break;
      default:
        for (const auto& name : sweep::parse_name_list(text, "--models")) {
          expect(!name.empty(), "accepted an empty model name");
        }
        break;
    }
  } catch (const ec::Error&) {
  }
}

}  // namespace ec::fuzz
