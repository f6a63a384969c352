// libFuzzer target: tokenizer.json loading (fuzz/tokenizer_load_entry.h).
#include <cstddef>
#include <cstdint>

#include "tokenizer_load_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::tokenizer_load_one_input({data, size});
  return 0;
}
