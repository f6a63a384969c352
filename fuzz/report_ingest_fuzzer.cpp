// libFuzzer target: energy.json ingest and validation (fuzz/report_ingest_entry.h).
#include <cstddef>
#include <cstdint>

#include "report_ingest_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ec::fuzz::report_ingest_one_input({data, size});
  return 0;
}
