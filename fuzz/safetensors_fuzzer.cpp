// libFuzzer target: the safetensors header and tensor table (fuzz/safetensors_entry.h).
#include <cstddef>
#include <cstdint>

#include "safetensors_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::safetensors_one_input({data, size});
  return 0;
}
