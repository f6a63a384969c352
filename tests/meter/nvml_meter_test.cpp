// The NVML meter against the fake libnvidia-ml: integration, windowing, and every failure mode.
#include "meter/nvml_meter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "meter/fake_nvml_env.h"
#include "meter/idle_baseline.h"
#include "meter/meter.h"
#include "meter/sampler.h"
#include "support/scheduling_delay.h"

namespace ec::meter {
namespace {

using ec::test::FakeNvml;
using nlohmann::json;

json device(json extra = json::object()) {
  json d = {{"name", "Fake H200"},
            {"uuid", "GPU-11111111-2222-3333-4444-555555555555"},
            {"architecture", 9},
            {"power_limit_w", 700},
            {"power", json::array({json::array({0, 300})})},
            {"memory_power_w", 34},
            {"counter_period_s", 0.1},
            {"counter_start_mj", 123456789}};
  for (auto& [k, v] : extra.items()) d[k] = v;
  return d;
}

json script(json dev) {
  return {{"devices", json::array({std::move(dev)})}};
}

std::unique_ptr<NvmlMeter> open_meter(double hz = 100.0, std::optional<unsigned> gpu = {},
                                      bool align_counter_edges = true) {
  std::string reason;
  MeterOptions options;
  options.hz = hz;
  options.gpu = gpu;
  options.align_counter_edges = align_counter_edges;
  auto meter = NvmlMeter::open(options, &reason);
  EXPECT_NE(meter, nullptr) << reason;
  return meter;
}

void sleep_s(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

// The counter moves in steps of P × period: a window's counter figure is within one step.
constexpr double kPeriod = 0.1;

// How far a window's aligned figure at `watts` can be off because of where the meter placed the
// counter updates, from the brackets it reports: the start's update shifts the head, the end's
// shifts the tail and, with the next update's, the tail's power (scaled by how many update
// periods the tail spans). On a quiet machine a bracket is ~1 ms; a loaded one that stalls the
// meter between two reads widens it, and the tolerance with it. Plain and shared edges add 0.
double placement_tolerance_j(const WindowResult& w, double watts) {
  const auto& c = w.telemetry["counter"];
  const auto& b = c["begin_edge"];
  const auto& e = c["end_edge"];
  const double begin_s = b.value("update_bracket_s", 0.0);
  const double end_s = e.value("update_bracket_s", 0.0);
  const double next_s = e.value("next_update_bracket_s", 0.0);
  const double periods = std::max(1.0, e.value("offset_s", 0.0) / (kPeriod - end_s - next_s));
  // + counter and power rounding (1 mJ, 1 mW per read).
  return watts * (begin_s + end_s + periods * (end_s + next_s)) + 0.05;
}

// The widest gap between two consecutive samples in [t0, t1] that carry `field`.
double widest_gap_s(const std::vector<PowerSample>& samples,
                    std::optional<double> PowerSample::*field, double t0, double t1) {
  double widest = 0.0;
  std::optional<double> last;
  for (const auto& s : samples) {
    if (!(s.*field) || s.t_s < t0 || s.t_s > t1) continue;
    if (last) widest = std::max(widest, s.t_s - *last);
    last = s.t_s;
  }
  return widest;
}

TEST(NvmlMeter, ConstantPowerIntegratesExactly) {
  FakeNvml fake(script(device()));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  EXPECT_TRUE(meter->measures_energy());
  double before = steady_seconds();
  meter->begin("decode");
  sleep_s(2.0);
  auto w = meter->end();
  double after = steady_seconds();
  EXPECT_EQ(w.name, "decode");
  EXPECT_GE(w.seconds, 2.0);
  EXPECT_LE(w.seconds, after - before);
  ASSERT_TRUE(w.energy_j.has_value());
  EXPECT_EQ(w.energy_source, "nvml_total_energy_counter");
  // Aligned edges: within what the update placements allow, well inside a 30 J counter step.
  const double tolerance_j = placement_tolerance_j(w, 300.0);
  EXPECT_NEAR(*w.energy_j, 300.0 * w.seconds, tolerance_j) << w.telemetry["counter"].dump();
  ASSERT_TRUE(w.cross_check_energy_j.has_value());
  // The driver's sample buffer is the cross-check where the device keeps one; the sampler's
  // instant power stays beside it. Constant power: both trapezoids are exact up to mW rounding.
  EXPECT_EQ(w.cross_check_source, "nvml_power_samples_trapezoid");
  EXPECT_NEAR(*w.cross_check_energy_j, 300.0 * w.seconds, 1e-6);
  EXPECT_NEAR(w.telemetry["power_samples_trapezoid_j"].get<double>(), *w.cross_check_energy_j,
              1e-9);
  EXPECT_NEAR(w.telemetry["instant_power_trapezoid_j"].get<double>(), 300.0 * w.seconds, 1e-6);
  EXPECT_NEAR(*w.avg_power_w, 300.0, tolerance_j / w.seconds);
  const auto& t = w.telemetry;
  EXPECT_NEAR(t["counter_vs_cross_check_pct"].get<double>(), 0.0,
              100.0 * tolerance_j / (300.0 * w.seconds - tolerance_j));
  EXPECT_FALSE(t["short_window"].get<bool>());
  // The sampler ran through the window (its schedule's logic is Sampler's test; how many slots a
  // loaded machine lets it take is not this test's business).
  EXPECT_GT(t["samples"].get<int>(), 10);
  EXPECT_NEAR(t["power_w"]["memory"]["mean"].get<double>(), 34.0, 1e-9);
  EXPECT_NEAR(t["power_w"]["instant"]["mean"].get<double>(), 300.0, 1e-9);
  EXPECT_EQ(t["sm_clock_mhz"]["max"].get<double>(), 1980.0);
  EXPECT_EQ(t["gpu_lost"], false);
  EXPECT_FALSE(t.contains("nvml_errors"));
  auto d = meter->describe();
  EXPECT_EQ(d["device"]["name"], "Fake H200");
  EXPECT_EQ(d["device"]["architecture"], "hopper");
  EXPECT_EQ(d["device"]["power_limit_w"], 700.0);
  EXPECT_EQ(d["driver_version"], "580.00.fake");
  EXPECT_EQ(d["metrics"]["power_instant"]["supported"], true);
  EXPECT_GE(d["sampler"]["cpu_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(d["counter_read_hz"].get<double>(), 25.0);  // 100 Hz sampler, counter every 4th
}

TEST(NvmlMeter, OriginalMethodReadsLowOnABurstAndInstantPowerDoesNot) {
  // 100 W idle, a 0.8 s burst at 500 W from t = 1.0 s; the window ends at t ≈ 2.0 s.
  json power = json::array({{0, 100}, {1.0, 100}, {1.0, 500}, {1.8, 500}, {1.8, 100}});
  FakeNvml fake(script(device({{"power", power}})));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  const double epoch = fake.epoch_steady_s();  // the fake's time 0
  ASSERT_GT(epoch, 0.0);
  meter->begin("burst");
  ASSERT_LT(steady_seconds() - epoch, 1.0);  // the window holds the whole burst
  sleep_s(2.0 - (steady_seconds() - epoch));
  const double end_from = steady_seconds() - epoch;
  auto w = meter->end();
  const double end_to = steady_seconds() - epoch;
  double truth = 100.0 * w.seconds + 400.0 * 0.8;
  ASSERT_TRUE(w.energy_j && w.cross_check_energy_j);
  EXPECT_NEAR(*w.energy_j, truth, placement_tolerance_j(w, 500.0) + 100.0 * kPeriod);
  // Each 400 W step costs at most half the gap between the samples around it.
  auto samples = meter->samples();
  double gap = widest_gap_s(samples, &PowerSample::power_instant_w, epoch, epoch + end_to);
  EXPECT_NEAR(*w.cross_check_energy_j, truth, 400.0 * gap + 0.05);
  // The 1 s moving average smears the burst past the window's end: at an end t1 in [2.0, 2.8]
  // the window misses 400 W × (2.8 − t1)² / 2 of it (128 J of 510 J at t1 = 2.0). The end's
  // time is known to [end_from, end_to]; the trapezoid of the ~10 Hz average is off by at most
  // 400 W/s × gap² / 8 at each of its four kinks.
  auto missed = [](double t1) { return 200.0 * std::pow(std::clamp(2.8 - t1, 0.0, 0.8), 2); };
  double usage_gap = widest_gap_s(samples, &PowerSample::power_usage_w, epoch, epoch + end_to);
  double slack = 200.0 * usage_gap * usage_gap + 0.05;
  double original = w.telemetry["power_usage_trapezoid_j"].get<double>();
  EXPECT_LE(original, truth - missed(end_to) + slack);
  EXPECT_GE(original, truth - missed(end_from) - slack);
}

TEST(NvmlMeter, DetectsTheCounterUpdatePeriod) {
  FakeNvml fake(script(device({{"counter_period_s", 0.25}})));
  auto meter = open_meter(100.0);
  ASSERT_TRUE(meter);
  sleep_s(1.6);
  auto d = meter->describe();
  EXPECT_TRUE(d["counter_update_period_detected"].get<bool>());
  // The period is the mean spacing of the changes seen, each placed between two counter reads:
  // the first and last placements bound its error.
  auto samples = meter->samples();
  double gap = widest_gap_s(samples, &PowerSample::power_instant_w, 0.0, 1e300);
  double read_gap = 0.0;
  std::optional<double> last;
  for (const auto& s : samples) {
    if (!s.energy_mj) continue;
    if (last) read_gap = std::max(read_gap, s.energy_t_s - *last);
    last = s.energy_t_s;
  }
  int changes = d["counter_update_interval_s"]["changes"].get<int>();
  ASSERT_GE(changes, 3);
  EXPECT_NEAR(d["counter_update_period_s"].get<double>(), 0.25,
              std::max(gap, read_gap) / changes + 0.005);
}

TEST(NvmlMeter, FlagsWindowsShorterThanThreeCounterUpdates) {
  FakeNvml fake(script(device()));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  meter->begin("prefill");
  auto w = meter->end();  // two statements apart: far below three 0.1 s updates
  ASSERT_LT(w.seconds, 3 * kPeriod);
  EXPECT_TRUE(w.telemetry["short_window"].get<bool>());
  EXPECT_NE(w.telemetry["warning"].get<std::string>().find("fewer than 3 counter updates"),
            std::string::npos);
  EXPECT_LE(w.telemetry["counter"]["updates_in_window"].get<int>(), 2);
}

TEST(NvmlMeter, WindowsAreSeparateAndMustAlternate) {
  json power = json::array({{0, 200}, {0.6, 200}, {0.6, 400}});
  FakeNvml fake(script(device({{"power", power}})));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  const double epoch = fake.epoch_steady_s();
  ASSERT_GT(epoch, 0.0);
  meter->begin("a");
  EXPECT_THROW(meter->begin("b"), std::runtime_error);
  sleep_s(0.45 - (steady_seconds() - epoch));
  auto a = meter->end();
  const double a_ended = steady_seconds() - epoch;
  EXPECT_THROW(meter->end(), std::runtime_error);
  sleep_s(0.75 - (steady_seconds() - epoch));
  const double b_begins = steady_seconds() - epoch;
  meter->begin("b");
  sleep_s(0.5);
  auto b = meter->end();
  // Each window sees only its own side of the step at 0.6 s (checked where the machine let the
  // windows fall on their side of it; where it did not, between the two powers).
  double a_power = *a.cross_check_energy_j / a.seconds;
  double b_power = *b.cross_check_energy_j / b.seconds;
  if (a_ended <= 0.6) {
    EXPECT_NEAR(a_power, 200.0, 1e-6);
  } else {
    EXPECT_GE(a_power, 200.0 - 1e-6);
    EXPECT_LT(a_power, 400.0);
  }
  ASSERT_GE(b_begins, 0.6);
  EXPECT_NEAR(b_power, 400.0, 1e-6);
}

// Windows of lengths that are no multiple of the 0.1 s update period, at constant 300 W: each
// counter step is 30 J.
constexpr double kOddWindowsS[] = {0.23, 0.37, 0.51, 0.64, 0.79};

TEST(NvmlMeter, AlignedEdgesMeasureWellInsideOneCounterStep) {
  FakeNvml fake(script(device()));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  EXPECT_EQ(meter->describe()["counter_edges"], "aligned");
  ec::test::SchedulingDelay delay;
  for (double s : kOddWindowsS) {
    meter->begin("decode");
    sleep_s(s);
    auto w = meter->end();
    ASSERT_TRUE(w.energy_j.has_value());
    // Only the placement of the updates is uncertain: ~0.3 J at 300 W with reads 0.5 ms apart,
    // more when a loaded machine stalls the meter between two reads. A step is 30 J.
    EXPECT_NEAR(*w.energy_j, 300.0 * w.seconds, placement_tolerance_j(w, 300.0))
        << s << " " << w.telemetry["counter"].dump();
    const auto& c = w.telemetry["counter"];
    EXPECT_EQ(c["begin_edge"]["kind"], "aligned");
    EXPECT_EQ(c["end_edge"]["kind"], "aligned");
    double head_s = c["begin_edge"]["offset_s"].get<double>();
    double tail_s = c["end_edge"]["offset_s"].get<double>();
    // The work starts right after the update is seen and the window closes at the next update:
    // late only by the bracket and by how late this machine was seen to run a thread.
    const double late_s = delay.worst_s() + 0.005;
    EXPECT_GE(head_s, 0.0);
    EXPECT_LT(head_s, c["begin_edge"]["update_bracket_s"].get<double>() + late_s);
    EXPECT_GE(tail_s, 0.0);
    EXPECT_LT(tail_s, kPeriod + c["end_edge"]["update_bracket_s"].get<double>() + late_s);
    // What was taken off is the counter's difference less the figure, and it is 300 W × offsets
    // (the tail's power from the counter's next period, whose two updates are each placed to
    // ~0.5 ms: ~1 % of 300 W, more when a loaded machine stalls the meter; an offset is ≤ 30 J).
    double off_j = c["raw_delta_j"].get<double>() - *w.energy_j;
    EXPECT_NEAR(off_j,
                c["begin_edge"]["offset_j"].get<double>() + c["end_edge"]["offset_j"].get<double>(),
                1e-9);
    EXPECT_NEAR(off_j, 300.0 * (head_s + tail_s), placement_tolerance_j(w, 300.0));
    EXPECT_EQ(c["begin_edge"]["offset_basis"], "instant power");
    EXPECT_EQ(c["end_edge"]["offset_basis"], "counter over the next update period");
  }
}

TEST(NvmlMeter, PlainEdgesAreOffByUpToACounterStep) {
  FakeNvml fake(script(device()));
  auto meter = open_meter(100.0, {}, /*align_counter_edges=*/false);
  ASSERT_TRUE(meter);
  EXPECT_EQ(meter->describe()["counter_edges"],
            "plain: turned off (MeterOptions::align_counter_edges)");
  double worst = 0.0;
  ec::test::SchedulingDelay delay;
  for (double s : kOddWindowsS) {
    meter->begin("decode");
    sleep_s(s);
    auto w = meter->end();
    ASSERT_TRUE(w.energy_j.has_value());
    EXPECT_EQ(w.telemetry["counter"]["end_edge"]["kind"], "plain");
    double error = std::abs(*w.energy_j - 300.0 * w.seconds);
    // A step, and whatever a stalled edge read adds outside the window's seconds.
    EXPECT_LE(error, 300.0 * (kPeriod + delay.worst_s()) + 0.01);
    worst = std::max(worst, error);
  }
  // Each window's two edges fall at random phases of the update: five all within 3 J (where the
  // aligned windows typically are within 0.1 J) would be a ~1e-5 coincidence.
  EXPECT_GT(worst, 3.0);
}

TEST(NvmlMeter, AlignedEndTakesOffTheTailAtTheTailsOwnPower) {
  // 500 W from t = 1.0 to 1.93 s, 100 W around it. The window opens at the update at 1.0 and the
  // work ends at 1.93 as the power drops; the counter's next update (2.0) holds 70 ms at 100 W,
  // which the counter's next period (100 W) measures: taking the window's own 500 W would be
  // 28 J too much.
  json power = json::array({{0, 100}, {1.0, 100}, {1.0, 500}, {1.93, 500}, {1.93, 100}});
  FakeNvml fake(script(device({{"power", power}})));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  const double epoch = fake.epoch_steady_s();
  ASSERT_GT(epoch, 0.0);
  sleep_s(0.92 - (steady_seconds() - epoch));
  meter->begin("decode");
  const double begun = steady_seconds() - epoch;
  sleep_s(1.93 - begun);
  auto w = meter->end();
  ASSERT_TRUE(w.energy_j.has_value());
  // The window opens just after the update it waited for (1.0 s unless the machine woke the test
  // late) and lasts w.seconds; the truth is the scripted power over that span.
  const double head_s = w.telemetry["counter"]["begin_edge"]["offset_s"].get<double>();
  const double start = std::round((begun - head_s) / kPeriod) * kPeriod + head_s;
  auto power_at = [](double t) { return t >= 1.0 && t < 1.93 ? 500.0 : 100.0; };
  double truth = 0.0;
  const int steps = 10000;
  for (int i = 0; i < steps; ++i) {
    truth += power_at(start + (i + 0.5) * w.seconds / steps) * w.seconds / steps;
  }
  EXPECT_NEAR(*w.energy_j, truth, placement_tolerance_j(w, 500.0) + 400.0 * w.seconds / steps)
      << w.telemetry["counter"].dump();
  EXPECT_EQ(w.telemetry["counter"]["end_edge"]["offset_basis"],
            "counter over the next update period");
}

TEST(NvmlMeter, AbuttingWindowsShareOneEdge) {
  FakeNvml fake(script(device()));
  // The shared edge's own counter read lies between the two windows' seconds; on a loaded or
  // sanitized build it lasts as long as the scheduler keeps the meter waiting.
  ec::test::SchedulingDelay delay;
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  meter->begin("prefill");
  auto prefill = meter->next("decode");                     // far inside one 0.1 s update
  EXPECT_THROW(meter->begin("other"), std::runtime_error);  // "decode" is open
  sleep_s(0.41);
  auto decode = meter->end();
  EXPECT_EQ(prefill.name, "prefill");
  EXPECT_EQ(decode.name, "decode");
  EXPECT_EQ(prefill.telemetry["counter"]["end_edge"]["kind"], "shared");
  EXPECT_EQ(decode.telemetry["counter"]["begin_edge"]["kind"], "shared");
  EXPECT_EQ(prefill.telemetry["counter"]["end_mj"], decode.telemetry["counter"]["begin_mj"]);
  // Together they telescope to one aligned window (the split's own read, microseconds here,
  // falls in neither window's seconds).
  ASSERT_TRUE(prefill.energy_j && decode.energy_j);
  // 10 ms is inside one update: the counter did not move, and what the aligned start takes off
  // goes to the decode window instead of making the prefill negative.
  EXPECT_EQ(prefill.telemetry["counter"]["raw_delta_j"].get<double>(), 0.0);
  EXPECT_EQ(*prefill.energy_j, 0.0);
  WindowResult both;  // the two windows' outer edges
  both.telemetry["counter"] = {{"begin_edge", prefill.telemetry["counter"]["begin_edge"]},
                               {"end_edge", decode.telemetry["counter"]["end_edge"]}};
  EXPECT_NEAR(*prefill.energy_j + *decode.energy_j, 300.0 * (prefill.seconds + decode.seconds),
              placement_tolerance_j(both, 300.0) + 300.0 * (delay.worst_s() + 0.002));
  EXPECT_THROW(meter->next("x"), std::runtime_error);  // nothing open
}

TEST(NvmlMeter, AlignmentFallsBackToPlainEdgesAndSaysWhy) {
  {
    // No instant power: nothing would measure the energy between an update and the work.
    FakeNvml fake(script(device({{"unsupported", {"field:186:0"}}})));
    auto meter = open_meter();
    ASSERT_TRUE(meter);
    EXPECT_EQ(meter->describe()["counter_edges"],
              "plain: no instant power (field 186) to measure the energy outside the work");
    meter->begin("decode");
    sleep_s(0.2);
    EXPECT_EQ(meter->end().telemetry["counter"]["end_edge"]["kind"], "plain");
  }
  {
    // A counter that moves every 5 s: an edge waits three assumed periods (0.3 s), no longer.
    FakeNvml fake(script(device({{"counter_period_s", 5.0}})));
    auto meter = open_meter();
    ASSERT_TRUE(meter);
    meter->begin("decode");
    sleep_s(0.1);
    auto w = meter->end();
    EXPECT_EQ(w.telemetry["counter"]["begin_edge"]["kind"],
              "plain: the counter did not change within 0.30 s");
    EXPECT_EQ(w.telemetry["counter"]["end_edge"]["kind"],
              "plain: the counter did not change within 0.30 s");
    EXPECT_FALSE(w.telemetry["counter"]["begin_edge"].contains("offset_j"));
  }
}

TEST(NvmlMeter, CounterWrapPast2To64StillMeasures) {
  FakeNvml fake(script(device({{"counter_start_mj", ~0ULL - 50'000ULL}})));  // wraps after 50 J
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  meter->begin("wrap");
  sleep_s(0.6);
  auto w = meter->end();
  ASSERT_TRUE(w.energy_j.has_value()) << w.telemetry.dump();
  EXPECT_GT(w.telemetry["counter"]["begin_mj"].get<unsigned long long>(),
            w.telemetry["counter"]["end_mj"].get<unsigned long long>());
  EXPECT_NEAR(*w.energy_j, 300.0 * w.seconds, placement_tolerance_j(w, 300.0));
}

TEST(NvmlMeter, FailingReadsInsideAWindowAreReportedNotZeroed) {
  json failures = json::array({{{"function", "nvmlDeviceGetTotalEnergyConsumption"},
                                {"from_s", 0.2},
                                {"to_s", 0.4},
                                {"code", 999}}});
  FakeNvml fake(script(device({{"failures", failures}})));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  meter->begin("decode");
  sleep_s(0.7);
  auto w = meter->end();
  ASSERT_TRUE(w.energy_j.has_value());  // both edges read fine
  ASSERT_TRUE(w.telemetry.contains("nvml_errors"));
  EXPECT_EQ(w.telemetry["nvml_errors"][0]["code"], "UNKNOWN (999)");
  // The counter is read at 25 Hz: ~5 reads fall in the 0.2 s of failure (fewer when a loaded
  // machine delays the sampler), none outside it.
  EXPECT_GE(w.telemetry["nvml_errors"][0]["samples"].get<int>(), 1);
  EXPECT_LE(w.telemetry["nvml_errors"][0]["samples"].get<int>(), 6);
}

TEST(NvmlMeter, CounterUnreadableAtTheEdgeLeavesEnergyAbsent) {
  json failures = json::array(
      {{{"function", "nvmlDeviceGetTotalEnergyConsumption"}, {"from_s", 0.3}, {"code", 999}}});
  FakeNvml fake(script(device({{"failures", failures}})));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  meter->begin("decode");
  sleep_s(0.5);
  auto w = meter->end();
  EXPECT_FALSE(w.energy_j.has_value());
  EXPECT_FALSE(w.avg_power_w.has_value());
  EXPECT_EQ(w.energy_source, "");
  EXPECT_NE(w.telemetry["energy_unavailable_reason"].get<std::string>().find(
                "window end (UNKNOWN (999))"),
            std::string::npos);
  EXPECT_TRUE(w.cross_check_energy_j.has_value());  // instant power still read: kept as cross-check
}

TEST(NvmlMeter, GpuLostMidRunMeansNoEnergyAndNoLongerMeasuring) {
  FakeNvml fake(script(device({{"lost_after_s", 0.3}})));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  meter->begin("decode");
  sleep_s(0.6);
  auto w = meter->end();
  EXPECT_FALSE(w.energy_j.has_value());
  EXPECT_FALSE(w.cross_check_energy_j.has_value());
  EXPECT_TRUE(w.telemetry["gpu_lost"].get<bool>());
  EXPECT_NE(w.telemetry["energy_unavailable_reason"].get<std::string>().find("GPU_IS_LOST (15)"),
            std::string::npos);
  EXPECT_FALSE(meter->measures_energy());
  EXPECT_NE(meter->unavailable_reason().find("lost"), std::string::npos);
  EXPECT_EQ(meter->describe()["measures_energy"], false);
}

TEST(NvmlMeter, UnsupportedInstantPowerFallsBackToTheLabelledAverage) {
  FakeNvml fake(script(device(
      {{"unsupported", {"field:186:0", "field:186:2", "field:185:2", "nvmlDeviceGetSamples"}}})));
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  auto d = meter->describe();
  EXPECT_EQ(d["metrics"]["power_instant"]["supported"], false);
  EXPECT_EQ(d["metrics"]["power_instant"]["reason"], "NOT_SUPPORTED (3)");
  EXPECT_EQ(d["metrics"]["memory_power"]["supported"], false);
  meter->begin("decode");
  sleep_s(0.4);
  auto w = meter->end();
  ASSERT_TRUE(w.energy_j.has_value());
  EXPECT_EQ(w.cross_check_source, "nvml_power_usage_trapezoid_1s_average");
  EXPECT_FALSE(w.telemetry["power_w"].contains("instant"));
  EXPECT_FALSE(w.telemetry["power_w"].contains("memory"));
}

TEST(NvmlMeter, MemoryPowerFallsBackToTheAveragedField) {
  FakeNvml fake(script(device({{"unsupported", {"field:186:2"}}, {"memory_power_w", 41}})));
  auto meter = open_meter(50.0);
  ASSERT_TRUE(meter);
  auto d = meter->describe();
  EXPECT_EQ(d["metrics"]["memory_power"]["supported"], true);
  EXPECT_EQ(d["metrics"]["memory_power"]["field"], 185);
  meter->begin("decode");
  sleep_s(0.2);
  auto w = meter->end();
  EXPECT_NEAR(w.telemetry["power_w"]["memory"]["mean"].get<double>(), 41.0, 1e-9);
}

TEST(NvmlMeter, MissingSymbolsAreAbsentMetricsAndLegacyNamesAreUsed) {
  FakeNvml fake(script(device()), /*minimal=*/true);
  auto meter = open_meter();
  ASSERT_TRUE(meter);
  auto d = meter->describe();
  auto symbols = d["symbols"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(symbols.begin(), symbols.end(), "nvmlInit"), symbols.end());
  EXPECT_EQ(std::find(symbols.begin(), symbols.end(), "nvmlInit_v2"), symbols.end());
  EXPECT_NE(std::find(symbols.begin(), symbols.end(), "nvmlDeviceGetCurrentClocksThrottleReasons"),
            symbols.end());
  EXPECT_EQ(d["metrics"]["power_instant"]["reason"], "FUNCTION_NOT_FOUND (13)");
  EXPECT_EQ(d["metrics"]["power_samples"]["supported"], false);
  meter->begin("decode");
  sleep_s(0.4);
  auto w = meter->end();
  ASSERT_TRUE(w.energy_j.has_value());
  EXPECT_EQ(w.cross_check_source, "nvml_power_usage_trapezoid_1s_average");
  EXPECT_FALSE(w.telemetry.contains("driver_samples"));
  EXPECT_TRUE(w.telemetry.contains("clock_event_reasons"));
}

TEST(NvmlMeter, DriverSampleBufferIsDrainedAndIntegrated) {
  FakeNvml fake(script(device({{"sample_period_s", 0.02}})));
  auto meter = open_meter(20.0);
  ASSERT_TRUE(meter);
  meter->begin("decode");
  sleep_s(1.0);
  auto w = meter->end();
  const auto& drv = w.telemetry["driver_samples"];
  EXPECT_NEAR(drv["rate_hz"].get<double>(), 50.0, 1.0);
  EXPECT_GT(drv["count"].get<int>(), 40);
  double span = (drv["count"].get<double>() - 1) / drv["rate_hz"].get<double>();
  EXPECT_NEAR(drv["trapezoid_j"].get<double>(), 300.0 * span, 1e-3);
}

TEST(NvmlMeter, ListsOtherProcessesOnTheGpu) {
  FakeNvml fake(script(device({{"processes", {4242, 4343}}})));
  auto meter = open_meter(20.0);
  ASSERT_TRUE(meter);
  meter->begin("decode");
  auto w = meter->end();
  EXPECT_EQ(w.telemetry["gpu_processes"], json::array({4242, 4343}));
  EXPECT_TRUE(w.telemetry["shared_gpu"].get<bool>());
}

TEST(NvmlMeter, IdleBaselineAndEnergyAboveIdle) {
  FakeNvml fake(script(device({{"power", json::array({{0, 80}})}})));
  auto meter = open_meter(50.0);
  ASSERT_TRUE(meter);
  auto idle = measure_idle(*meter, 0.6);
  ASSERT_TRUE(idle.power_w.has_value());
  EXPECT_NEAR(*idle.power_w, 80.0, 80.0 * kPeriod / 0.6 + 0.1);
  WindowResult w;
  w.seconds = 2.0;
  w.energy_j = 1000.0;
  EXPECT_NEAR(*energy_above_idle_j(w, idle), 1000.0 - 2.0 * *idle.power_w, 1e-9);
  w.energy_j.reset();
  EXPECT_FALSE(energy_above_idle_j(w, idle).has_value());
}

// --- make_best_meter: every way of not having a meter gives a reason, never `measured`.

void expect_unavailable(const std::string& needle) {
  auto meter = make_best_meter({});
  EXPECT_EQ(meter->name(), "unavailable");
  EXPECT_FALSE(meter->measures_energy());
  EXPECT_NE(meter->unavailable_reason().find(needle), std::string::npos)
      << meter->unavailable_reason();
  meter->begin("decode");
  auto w = meter->end();
  EXPECT_FALSE(w.energy_j.has_value());
}

TEST(MakeBestMeter, PicksNvmlWhenTheCounterWorks) {
  FakeNvml fake(script(device()));
  auto meter = make_best_meter(ec::test::no_rapl(20.0, {}));
  EXPECT_EQ(meter->name(), "nvml");
  EXPECT_TRUE(meter->measures_energy());
}

TEST(MakeBestMeter, LibraryMissing) {
  ec::test::ScopedEnv lib("EC_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  expect_unavailable("NVML library not found");
}

TEST(MakeBestMeter, DriverNotLoaded) {
  FakeNvml fake(json{{"init_return", 9}});
  expect_unavailable("DRIVER_NOT_LOADED (9)");
}

TEST(MakeBestMeter, NoDevice) {
  FakeNvml fake(json{{"devices", json::array()}});
  expect_unavailable("0 devices");
}

TEST(MakeBestMeter, CounterNotSupported) {
  FakeNvml fake(script(device({{"unsupported", {"nvmlDeviceGetTotalEnergyConsumption"}}})));
  expect_unavailable(
      "energy counter not supported on Fake H200 (needs Volta or newer): NOT_SUPPORTED (3)");
}

TEST(MakeBestMeter, NoPermission) {
  json failures = json::array({{{"function", "nvmlDeviceGetTotalEnergyConsumption"}, {"code", 4}}});
  FakeNvml fake(script(device({{"failures", failures}})));
  expect_unavailable("no permission to read the energy counter");
}

TEST(MakeBestMeter, GpuIndexBeyondTheVisibleOnes) {
  FakeNvml fake(script(device()));
  auto meter = make_best_meter(ec::test::no_rapl(10.0, 1));
  EXPECT_FALSE(meter->measures_energy());
  EXPECT_NE(meter->unavailable_reason().find("--gpu 1: only 1 GPU(s) visible"), std::string::npos);
}

TEST(MakeBestMeter, CudaVisibleDevicesSelectsByUuid) {
  json two = {{"devices", json::array({device({{"name", "First"}, {"uuid", "GPU-aaaa"}}),
                                       device({{"name", "Second"}, {"uuid", "GPU-bbbb"}})})}};
  FakeNvml fake(two);
  ec::test::ScopedEnv visible("CUDA_VISIBLE_DEVICES", "GPU-bbbb");
  auto meter = make_best_meter(ec::test::no_rapl(10.0, {}));
  ASSERT_TRUE(meter->measures_energy()) << meter->unavailable_reason();
  auto d = meter->describe();
  EXPECT_EQ(d["device"]["name"], "Second");
  EXPECT_EQ(d["device"]["nvml_index"], 1);
  EXPECT_EQ(d["device"]["index"], 0);
  EXPECT_EQ(d["cuda_visible_devices"], "GPU-bbbb");
}

TEST(DescribeGpus, ListsWhatEachGpuCanMeasure) {
  json two = {{"devices",
               json::array({device({{"name", "Good"}, {"uuid", "GPU-aaaa"}}),
                            device({{"name", "Old"},
                                    {"uuid", "GPU-bbbb"},
                                    {"unsupported",
                                     {"nvmlDeviceGetTotalEnergyConsumption", "field:186:0"}}})})}};
  FakeNvml fake(two);
  auto info = describe_gpus(ec::test::no_rapl(10.0, {}));
  EXPECT_EQ(info["available"], true);
  ASSERT_EQ(info["gpus"].size(), 2u);
  EXPECT_EQ(info["gpus"][0]["energy_meter"], "nvml_total_energy_counter");
  EXPECT_EQ(info["gpus"][1]["energy_meter"], "unavailable");
  EXPECT_EQ(info["gpus"][1]["metrics"]["power_instant"]["supported"], false);
  EXPECT_EQ(info["rapl"]["available"], false);

  ec::test::ScopedEnv lib("EC_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  auto none = describe_gpus();
  EXPECT_EQ(none["available"], false);
  EXPECT_NE(none["reason"].get<std::string>().find("not found"), std::string::npos);
}

}  // namespace
}  // namespace ec::meter
