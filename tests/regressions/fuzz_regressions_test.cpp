// Replays, through the fuzzers' own entry points (fuzz/*_entry.h), every input a fuzzer once
// crashed on (tests/fixtures/regressions/<target>/) and every seed (fuzz/corpus/<target>/).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../fuzz/cli_lists_entry.h"
#include "../fuzz/config_entry.h"
#include "../fuzz/json_inputs_entry.h"
#include "../fuzz/quant_entry.h"
#include "../fuzz/safetensors_entry.h"
#include "../fuzz/tokenizer_encode_entry.h"
#include "../fuzz/tokenizer_load_entry.h"
#include "support/fuzz_replay.h"
#include "support/paths.h"

namespace ec::fuzz {
namespace {

struct Target {
  std::string name;
  test::FuzzEntry entry;
};

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"safetensors", safetensors_one_input},
      {"config", config_one_input},
      {"tokenizer_load", tokenizer_load_one_input},
      {"tokenizer_encode", tokenizer_encode_one_input},
      {"quant", quant_one_input},
      {"json_inputs", json_inputs_one_input},
      {"cli_lists", cli_lists_one_input},
  };
  return all;
}

int replay(const Target& target, const std::filesystem::path& dir) {
  return test::replay_fuzz_inputs(target.name, target.entry, dir);
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
