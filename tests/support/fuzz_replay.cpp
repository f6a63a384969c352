// replay_fuzz_inputs: one pass over a folder of fuzz inputs, each failure reported by file.
#include "support/fuzz_replay.h"

#include <gtest/gtest.h>

#include <exception>
#include <vector>

#include "core/file_io.h"

namespace ec::test {

int replay_fuzz_inputs(const std::string& target, const FuzzEntry& entry,
                       const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) return 0;
  int count = 0;
  for (const auto& file : std::filesystem::recursive_directory_iterator(dir)) {
    if (!file.is_regular_file()) continue;
    ++count;
    const std::string text = read_file(file.path());
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    try {
      entry(bytes);
    } catch (const std::exception& e) {
      ADD_FAILURE() << target << " on " << file.path() << ": " << e.what();
    }
  }
  return count;
}

}  // namespace ec::test
