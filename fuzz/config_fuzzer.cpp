// libFuzzer target: config.json (fuzz/config_entry.h).
#include <cstddef>
#include <cstdint>

#include "config_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::config_one_input({data, size});
  return 0;
}
