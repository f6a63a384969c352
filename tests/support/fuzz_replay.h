// Replays committed fuzz inputs (crash regressions, seeds) through a fuzzer's entry point.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

namespace ec::test {

using FuzzEntry = std::function<void(std::span<const uint8_t>)>;

// Feeds every regular file under `dir` (recursively) to `entry` and returns how many there were
// (0 when `dir` does not exist). A PropertyViolation or any exception other than ec::Error (which
// entries swallow) fails the running test, naming the target and the file; memory errors need the
// sanitizer build (make hardening) to show.
int replay_fuzz_inputs(const std::string& target, const FuzzEntry& entry,
                       const std::filesystem::path& dir);

}  // namespace ec::test
