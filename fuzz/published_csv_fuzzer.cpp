// libFuzzer target: the published CSV layout (fuzz/published_csv_entry.h).
#include <cstddef>
#include <cstdint>

#include "published_csv_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::published_csv_one_input({data, size});
  return 0;
}
