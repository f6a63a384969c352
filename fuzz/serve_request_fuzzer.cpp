// libFuzzer target: the server's request handling over loopback (fuzz/serve_request_entry.h).
#include <cstddef>
#include <cstdint>

#include "serve_request_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::serve_request_one_input({data, size});
  return 0;
}
