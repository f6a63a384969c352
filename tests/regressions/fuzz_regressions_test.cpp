// Replays, through the fuzzers' own entry points (fuzz/*_entry.h), every input a fuzzer once
// crashed on (tests/fixtures/regressions/<target>/) and every seed (fuzz/corpus/<target>/).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "../fuzz/config_entry.h"
#include "../fuzz/quant_entry.h"
#include "../fuzz/safetensors_entry.h"
#include "../fuzz/tokenizer_encode_entry.h"
#include "../fuzz/tokenizer_load_entry.h"
#include "support/paths.h"

namespace ec::fuzz {
namespace {

using Entry = std::function<void(std::span<const uint8_t>)>;

struct Target {
  std::string name;
  Entry entry;
};

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"safetensors", safetensors_one_input},
      {"config", config_one_input},
      {"tokenizer_load", tokenizer_load_one_input},
      {"tokenizer_encode", tokenizer_encode_one_input},
      {"quant", quant_one_input},
  };
  return all;
}

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Feeds every file under `dir` to `entry`; returns how many there were. A PropertyViolation or any
// exception other than ec::Error (which entries swallow) fails the test, naming the file; memory
// errors need the sanitizer build (make test-debug) to show.
int replay(const Target& target, const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) return 0;
  int count = 0;
  for (const auto& file : std::filesystem::recursive_directory_iterator(dir)) {
    if (!file.is_regular_file()) continue;
    ++count;
    const std::vector<uint8_t> bytes = read_bytes(file.path());
    try {
      target.entry(bytes);
    } catch (const std::exception& e) {
      ADD_FAILURE() << target.name << " on " << file.path() << ": " << e.what();
    }
  }
  return count;
}

TEST(FuzzRegressions, EveryCommittedCrashInputIsHandled) {
  int total = 0;
  for (const Target& target : targets()) {
    total += replay(target, ec::test::fixture("regressions/" + target.name));
  }
  EXPECT_GT(total, 0) << "tests/fixtures/regressions/ holds no inputs";
}

TEST(FuzzRegressions, EverySeedIsHandled) {
  for (const Target& target : targets()) {
    EXPECT_GT(replay(target, ec::test::source_dir() / "fuzz" / "corpus" / target.name), 0)
        << "fuzz/corpus/" << target.name << " has no seeds";
  }
}

}  // namespace
}  // namespace ec::fuzz
