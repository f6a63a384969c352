// The protocol with the NVML meter (on the fake libnvidia-ml): an iteration's prefill and decode
// windows share one counter edge, their outer edges sit on counter updates, and the phases say so.
#include "bench/protocol.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "meter/fake_nvml_env.h"
#include "meter/nvml_meter.h"
#include "report/energy_json.h"
#include "report/validate.h"
#include "support/scheduling_delay.h"

namespace ec::bench {
namespace {

using nlohmann::json;

// A fake H200 drawing a steady 300 W, its energy counter updating every 0.1 s.
json steady_300w_gpu() {
  json device = {{"name", "Fake H200"},
                 {"power", json::array({json::array({0, 300})})},
                 {"counter_period_s", 0.1}};
  return json{{"devices", json::array({device})}};
}

// The embedded default model on the CPU engine, FP16, no warm-up, idle baseline or quality probe:
// what is metered is the fake GPU's 300 W over the protocol's windows.
RunOptions cpu_fp16_run() {
  RunOptions options;
  options.precision = engine::Precision::fp16;
  options.engine.backend = engine::Backend::cpu;
  options.warmup = 0;
  options.idle_seconds = 0.0;
  options.quality = false;
  return options;
}

TEST(ProtocolWithNvmlMeter, IterationsAreAlignedWindowsSplitAtOneSharedEdge) {
  ec::test::FakeNvml fake(steady_300w_gpu());
  std::string reason;
  auto meter = meter::NvmlMeter::open(ec::test::no_rapl(100.0), &reason);
  ASSERT_NE(meter, nullptr) << reason;

  RunOptions options = cpu_fp16_run();
  options.new_tokens = 24;
  options.iterations = 3;
  options.generations_per_window = 1;  // one generation per iteration, the rule off
  options.min_window_periods = 0.0;
  // Between an iteration's two windows lies the shared edge's own counter read, which no window's
  // seconds count but the counter charges to the iteration: ~1 ms on a quiet machine, as long as
  // the scheduler keeps the meter waiting on a loaded or sanitized one.
  ec::test::SchedulingDelay delay;
  auto record = run_protocol(options, *meter);

  const auto& run = record.run;
  ASSERT_EQ(run.iterations.size(), 3u);
  ASSERT_EQ(run.phases.size(), 2u);
  const auto& prefill = run.phases[0];
  const auto& decode = run.phases[1];
  // Aligned outer edges: 300 W × the iteration, to within where the meter placed the three
  // counter updates that bound it (the start's, the end's and the next, for the tail's power; a
  // tail spans at most ~2 update periods): ~1 J on a quiet machine, a counter step is 30 J.
  double bracket_s = 0.0;
  for (const auto* phase : {&prefill, &decode}) {
    bracket_s = std::max(
        bracket_s, phase->telemetry["counter_edges"]["widest_update_bracket_s"].get<double>());
  }
  for (const auto& it : run.iterations) {
    ASSERT_TRUE(it.energy_j.has_value());
    // Still far below one counter step (30 J), which is what a misplaced outer edge would cost.
    EXPECT_NEAR(*it.energy_j, 300.0 * it.seconds,
                300.0 * 5.0 * bracket_s + 300.0 * (delay.worst_s() + 0.005) + 0.05);
  }
  EXPECT_EQ(prefill.name, "prefill");
  EXPECT_EQ(decode.name, "decode");
  // Each iteration: prefill opens aligned and closes at the shared edge the decode opens at.
  EXPECT_EQ(prefill.telemetry["counter_edges"]["kinds"], json({{"aligned", 3}, {"shared", 3}}));
  EXPECT_EQ(decode.telemetry["counter_edges"]["kinds"], json({{"aligned", 3}, {"shared", 3}}));
  EXPECT_GT(decode.telemetry["counter_edges"]["offset_j"].get<double>(), 0.0);
  double sum = 0.0;
  for (const auto& it : run.iterations) sum += *it.energy_j;
  EXPECT_NEAR(*prefill.energy_j + *decode.energy_j, sum, 1e-6);
}

// The window rule: each measured iteration holds generations until it lasts the rule's number
// of counter periods (0.1 s on the fake), each reported with its generations and tokens.
TEST(ProtocolWithNvmlMeter, TheWindowRuleFillsEachIterationWithGenerations) {
  ec::test::FakeNvml fake(steady_300w_gpu());
  std::string reason;
  auto meter = meter::NvmlMeter::open(ec::test::no_rapl(100.0), &reason);
  ASSERT_NE(meter, nullptr) << reason;

  RunOptions options = cpu_fp16_run();
  options.new_tokens = 4;  // a few ms a generation: the rule needs many
  options.iterations = 2;
  options.min_window_periods = 3.0;
  auto record = run_protocol(options, *meter);

  // (The run itself fails when an iteration is shorter than the rule: see the next test.)
  EXPECT_EQ(record.protocol.min_window_counter_periods, 3.0);
  ASSERT_EQ(record.run.iterations.size(), 2u);
  for (const auto& it : record.run.iterations) {
    EXPECT_GT(it.generations, 1);
    EXPECT_EQ(it.tokens, 4 * it.generations);
  }
  // Every generation is a prefill and a decode window; their counts say so.
  const int64_t generations =
      record.run.iterations[0].generations + record.run.iterations[1].generations;
  EXPECT_EQ(record.run.phases[0].telemetry["windows"].get<int64_t>(), generations);
  EXPECT_EQ(record.run.phases[1].telemetry["windows"].get<int64_t>(), generations);
  auto v = report::validate_report(report::to_json(record), "rule");
  EXPECT_TRUE(v.ok()) << (v.failures.empty() ? "" : v.failures.front());
}

TEST(ProtocolWithNvmlMeter, APinnedWindowShorterThanTheRuleFailsTheRun) {
  ec::test::FakeNvml fake(steady_300w_gpu());
  std::string reason;
  auto meter = meter::NvmlMeter::open(ec::test::no_rapl(100.0), &reason);
  ASSERT_NE(meter, nullptr) << reason;

  RunOptions options = cpu_fp16_run();
  options.new_tokens = 4;
  options.iterations = 1;
  options.generations_per_window = 1;
  options.min_window_periods = 100.0;  // 10 s: one generation of 4 tokens never lasts that
  try {
    run_protocol(options, *meter);
    FAIL() << "a window short of the rule was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("under the window rule's 100 energy-counter updates"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ec::bench
