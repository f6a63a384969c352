// The published protocol: a requested precision and its FP16 baseline measured in one process, then
// the quality probe; the only place where engine and meter meet.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "meter/meter.h"
#include "report/run_record.h"

namespace ec::bench {

// The prompt every iteration decodes from (fixed, so runs are comparable; --prompt overrides).
inline constexpr std::string_view k_default_prompt =
    "The energy a language model spends on each generated token depends on";

struct RunOptions {
  std::string model = "default";  // preset name or checkpoint directory
  std::optional<std::filesystem::path>
      tokenizer;  // tokenizer.json; default: the checkpoint's, else bytes
  engine::Precision precision = engine::Precision::int8_llm;
  engine::EngineOptions engine;  // backend, threads, context, CUDA graph
  uint64_t seed = 0;             // synthetic weights
  std::string prompt{k_default_prompt};
  int new_tokens = 256;  // generated per iteration (greedy, min = max)
  int warmup = 2;        // unmeasured iterations per precision
  int iterations = 10;   // measured iterations per precision
  // The window rule (docs/method.md): each measured iteration holds generations until it lasts
  // min_window_periods updates of the meter's energy counter (0: off; no counter: no rule).
  // generations_per_window pins their number instead (0: as many as the rule needs, at least 1);
  // a pinned number that leaves a window short of the rule fails the run.
  double min_window_periods = meter::kDefaultMinWindowPeriods;
  int generations_per_window = 0;
  bool baseline = true;           // FP16 in the same process (always for non-FP16 runs)
  double idle_seconds = 3.0;      // idle baseline before measuring (energy meters only)
  double cool_off_seconds = 0.0;  // rest between the two precisions
  bool quality = true;
  int quality_seq_len = 1024;
  std::optional<std::filesystem::path> quality_text;  // default: the embedded original corpus
};

// Runs everything and returns a finalized record (report::finalize applied). `log` receives one
// line per stage for the user (nullptr: silent).
report::RunRecord run_protocol(const RunOptions& options, meter::Meter& meter,
                               const std::function<void(const std::string&)>& log = nullptr);

// Several precisions in one process sharing one FP16 baseline (and one idle baseline): one record
// per precision, in order, each carrying that baseline as its own (options.precision is ignored).
// FP16 alone is measured as the run itself; with other precisions it is the baseline only.
std::vector<report::RunRecord> run_protocol(
    const RunOptions& options, std::span<const engine::Precision> precisions, meter::Meter& meter,
    const std::function<void(const std::string&)>& log = nullptr);

}  // namespace ec::bench
