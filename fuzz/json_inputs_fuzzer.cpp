// libFuzzer target: curves.json, manifest.json and model.safetensors.index.json
// (fuzz/json_inputs_entry.h).
#include <cstddef>
#include <cstdint>

#include "json_inputs_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::json_inputs_one_input({data, size});
  return 0;
}
