// `measure`'s engine: a child under the meter, its exit status forwarded, an honest report.
#include "meter/metered_run.h"

#include <gtest/gtest.h>

#include "meter/fake_nvml_env.h"
#include "meter/meter.h"

namespace ec::meter {
namespace {

using nlohmann::json;

json constant_power(double watts) {
  return {{"devices", json::array({{{"name", "Fake H200"},
                                    {"power", json::array({json::array({0, watts})})},
                                    {"counter_period_s", 0.1}}})}};
}

MeasureOptions no_idle() {
  MeasureOptions o;
  o.idle_seconds = 0.0;
  return o;
}

MeterOptions fast() {
  return ec::test::no_rapl(50.0, {});
}

TEST(MeasureCommand, MetersTheChildAndForwardsItsExitStatus) {
  ec::test::FakeNvml fake(constant_power(200.0));
  auto meter = make_best_meter(fast());
  ASSERT_TRUE(meter->measures_energy()) << meter->unavailable_reason();
  MeasureOptions options;
  options.idle_seconds = 0.4;
  options.grid_gco2_per_kwh = 400.0;
  options.pue = 1.2;
  auto result = measure_command(*meter, {"sh", "-c", "sleep 0.6; exit 3"}, options);
  EXPECT_EQ(result.exit_status, 3);
  const auto& r = result.report;
  EXPECT_EQ(r["exit_status"], 3);
  EXPECT_EQ(r["basis"], "measured");
  EXPECT_EQ(r["command"], json::array({"sh", "-c", "sleep 0.6; exit 3"}));
  double seconds = r["run"]["seconds"].get<double>();
  EXPECT_GE(seconds, 0.6);
  double energy = r["run"]["energy_j"].get<double>();
  EXPECT_NEAR(energy, 200.0 * seconds, 200.0 * 0.1 + 0.01);
  EXPECT_EQ(r["run"]["energy_source"], "nvml_total_energy_counter");
  EXPECT_NEAR(r["idle"]["power_w"].get<double>(), 200.0, 200.0 * 0.1 / 0.4 + 0.1);
  // Constant power: nothing above idle beyond the counter's quantisation at four edges.
  EXPECT_NEAR(r["energy_above_idle_j"].get<double>(), 0.0,
              200.0 * 0.1 * (1.0 + seconds / 0.4) + 0.1);
  EXPECT_NEAR(r["co2e"]["co2e_g"].get<double>(), energy / 3.6e6 * 1.2 * 400.0, 1e-9);
  EXPECT_EQ(r["co2e"]["basis"], "derived");
  EXPECT_EQ(r["meter"]["name"], "nvml");
}

TEST(MeasureCommand, KilledChildGives128PlusSignal) {
  ec::test::FakeNvml fake(constant_power(150.0));
  auto meter = make_best_meter(fast());
  auto result = measure_command(*meter, {"sh", "-c", "kill -TERM $$"}, no_idle());
  EXPECT_EQ(result.exit_status, 128 + 15);
  EXPECT_TRUE(result.report["idle"].is_null());
}

TEST(MeasureCommand, CommandThatCannotStartIsAnError) {
  ec::test::FakeNvml fake(constant_power(150.0));
  auto meter = make_best_meter(fast());
  try {
    measure_command(*meter, {"/nonexistent/ecocompute-no-such-tool"}, no_idle());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run '/nonexistent/ecocompute-no-such-tool'"),
              std::string::npos)
        << e.what();
  }
  // The meter's window was closed on the way out: a new one opens.
  meter->begin("again");
  EXPECT_TRUE(meter->end().energy_j.has_value());
}

TEST(MeasureCommand, WithoutAGpuTheReportSaysUnavailableAndWhy) {
  ec::test::ScopedEnv lib("EC_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  auto meter = make_best_meter(fast());
  auto result = measure_command(*meter, {"true"},
                                {.idle_seconds = 0.1, .grid_gco2_per_kwh = 300.0, .pue = {}});
  EXPECT_EQ(result.exit_status, 0);
  const auto& r = result.report;
  EXPECT_EQ(r["basis"], "unavailable");
  EXPECT_NE(r["note"].get<std::string>().find("NVML library not found"), std::string::npos);
  EXPECT_FALSE(r["run"].contains("energy_j"));
  EXPECT_FALSE(r.contains("energy_above_idle_j"));
  EXPECT_FALSE(r.contains("co2e"));
  EXPECT_FALSE(r["idle"].contains("power_w"));
}

TEST(Co2e, KilowattHoursTimesPueTimesGrid) {
  auto j = co2e_json(3.6e6, 250.0, 1.5);  // 1 kWh
  EXPECT_DOUBLE_EQ(j["energy_kwh"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["co2e_g"].get<double>(), 375.0);
}

}  // namespace
}  // namespace ec::meter
