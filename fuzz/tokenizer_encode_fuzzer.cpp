// libFuzzer target: encode/decode with the real Qwen3 and Llama 2 tokenizers
// (fuzz/tokenizer_encode_entry.h).
#include <cstddef>
#include <cstdint>

#include "tokenizer_encode_entry.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)ec::fuzz::fixture_tokenizer(false);  // load both before the clock starts
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::tokenizer_encode_one_input({data, size});
  return 0;
}
