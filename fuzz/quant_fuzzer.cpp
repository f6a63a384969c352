// libFuzzer target: quantizers on arbitrary float arrays (fuzz/quant_entry.h).
#include <cstddef>
#include <cstdint>

#include "quant_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::quant_one_input({data, size});
  return 0;
}
