// The protocol with the NVML meter (on the fake libnvidia-ml): an iteration's prefill and decode
// windows share one counter edge, their outer edges sit on counter updates, and the phases say so.
#include "bench/protocol.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "meter/fake_nvml_env.h"
#include "meter/nvml_meter.h"

namespace ec::bench {
namespace {

using nlohmann::json;

TEST(ProtocolWithNvmlMeter, IterationsAreAlignedWindowsSplitAtOneSharedEdge) {
  json device = {{"name", "Fake H200"},
                 {"power", json::array({json::array({0, 300})})},
                 {"counter_period_s", 0.1}};
  ec::test::FakeNvml fake(json{{"devices", json::array({device})}});
  std::string reason;
  auto meter = meter::NvmlMeter::open(ec::test::no_rapl(100.0), &reason);
  ASSERT_NE(meter, nullptr) << reason;

  RunOptions options;  // the embedded default model on the CPU engine; the "GPU" draws 300 W
  options.precision = engine::Precision::fp16;
  options.engine.backend = engine::Backend::cpu;
  options.new_tokens = 24;
  options.warmup = 0;
  options.iterations = 3;
  options.idle_seconds = 0.0;
  options.quality = false;
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
    EXPECT_NEAR(*it.energy_j, 300.0 * it.seconds, 300.0 * 5.0 * bracket_s + 0.05);
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

}  // namespace
}  // namespace ec::bench
