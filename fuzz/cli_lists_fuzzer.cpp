// libFuzzer target: the command line's list parsers (fuzz/cli_lists_entry.h).
#include <cstddef>
#include <cstdint>

#include "cli_lists_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::cli_lists_one_input({data, size});
  return 0;
}
