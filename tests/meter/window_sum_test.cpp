// sum_windows on hand-made windows: energy only when complete, telemetry carried into the phase.
#include "meter/window_sum.h"

#include <gtest/gtest.h>

namespace ec::meter {
namespace {

using nlohmann::json;

WindowResult window(double seconds, std::optional<double> energy, json telemetry) {
  WindowResult w;
  w.name = "decode";
  w.seconds = seconds;
  w.energy_j = energy;
  if (energy) w.energy_source = "nvml_total_energy_counter";
  w.cross_check_energy_j = energy ? std::optional<double>(*energy * 1.01) : std::nullopt;
  w.cross_check_source = "nvml_power_instant_trapezoid";
  w.telemetry = std::move(telemetry);
  return w;
}

TEST(SumWindows, AddsEnergyAndCarriesTheTelemetry) {
  json a = {{"temperature_c", {{"min", 40.0}, {"mean", 41.0}, {"max", 42.0}}},
            {"sm_clock_mhz", {{"min", 1900.0}, {"mean", 1950.0}, {"max", 1980.0}}},
            {"power_w", {{"instant", {{"min", 300.0}, {"mean", 400.0}, {"max", 500.0}}}}},
            {"clock_event_reasons", {"gpu_idle"}},
            {"throttled", false},
            {"gpu_processes", {11}},
            {"shared_gpu", false},
            {"samples", 100},
            {"counter",
             {{"begin_edge", {{"kind", "aligned"}, {"offset_j", 1.5}, {"update_bracket_s", 0.002}}},
              {"end_edge",
               {{"kind", "aligned"},
                {"offset_j", 10.0},
                {"update_bracket_s", 0.001},
                {"next_update_bracket_s", 0.007}}}}}};
  json b = {
      {"temperature_c", {{"min", 43.0}, {"mean", 45.0}, {"max", 47.0}}},
      {"sm_clock_mhz", {{"min", 1700.0}, {"mean", 1800.0}, {"max", 1980.0}}},
      {"power_w", {{"instant", {{"min", 350.0}, {"mean", 450.0}, {"max", 690.0}}}}},
      {"clock_event_reasons", {"sw_power_cap"}},
      {"throttled", true},
      {"gpu_processes", {11, 12}},
      {"shared_gpu", true},
      {"samples", 300},
      {"nvml_errors", {{{"code", "UNKNOWN (999)"}, {"samples", 2}}}},
      {"counter",
       {{"begin_edge", {{"kind", "shared"}}},
        {"end_edge", {{"kind", "aligned"}, {"offset_j", 4.0}, {"update_bracket_s", 0.003}}}}}};
  auto p = sum_windows("decode", {window(1.0, 400.0, a), window(3.0, 1350.0, b)});
  EXPECT_EQ(p.name, "decode");
  EXPECT_DOUBLE_EQ(p.seconds, 4.0);
  ASSERT_TRUE(p.energy_j.has_value());
  EXPECT_DOUBLE_EQ(*p.energy_j, 1750.0);
  EXPECT_DOUBLE_EQ(*p.avg_power_w, 437.5);
  EXPECT_EQ(p.energy_source, "nvml_total_energy_counter");
  EXPECT_NEAR(*p.cross_check_energy_j, 1767.5, 1e-9);
  const json& t = p.telemetry;
  EXPECT_EQ(t["windows"], 2);
  EXPECT_NEAR(t["counter_vs_cross_check_pct"].get<double>(), 1.0, 1e-9);
  // Extremes of the extremes; the mean weighted by seconds (1 s at 41 °C, 3 s at 45 °C).
  EXPECT_EQ(t["temperature_c"]["min"], 40.0);
  EXPECT_EQ(t["temperature_c"]["max"], 47.0);
  EXPECT_DOUBLE_EQ(t["temperature_c"]["mean"].get<double>(), 44.0);
  EXPECT_DOUBLE_EQ(t["sm_clock_mhz"]["mean"].get<double>(), 1837.5);
  EXPECT_DOUBLE_EQ(t["power_w"]["instant"]["max"].get<double>(), 690.0);
  EXPECT_FALSE(t.contains("mem_clock_mhz"));  // no window carried it
  EXPECT_EQ(t["clock_event_reasons"], json({"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(t["throttled"], true);
  EXPECT_EQ(t["gpu_processes"], json({11, 12}));
  EXPECT_EQ(t["shared_gpu"], true);
  EXPECT_EQ(t["samples"], 400);
  EXPECT_EQ(t["nvml_errors"], json({{{"code", "UNKNOWN (999)"}, {"samples", 2}}}));
  EXPECT_EQ(t["counter_edges"]["kinds"], json({{"aligned", 3}, {"shared", 1}}));
  EXPECT_DOUBLE_EQ(t["counter_edges"]["offset_j"].get<double>(), 15.5);
  EXPECT_DOUBLE_EQ(t["counter_edges"]["widest_update_bracket_s"].get<double>(), 0.007);
  EXPECT_FALSE(t.contains("gpu_lost"));
  EXPECT_FALSE(t.contains("short_windows"));
}

TEST(SumWindows, AWindowWithoutEnergyLeavesThePhaseWithout) {
  auto p = sum_windows("decode", {window(1.0, 400.0, {{"short_window", true}}),
                                  window(1.0, std::nullopt, {{"gpu_lost", true}})});
  EXPECT_FALSE(p.energy_j.has_value());
  EXPECT_FALSE(p.avg_power_w.has_value());
  EXPECT_EQ(p.energy_source, "");
  EXPECT_FALSE(p.cross_check_energy_j.has_value());
  EXPECT_EQ(p.telemetry["gpu_lost"], true);
  EXPECT_EQ(p.telemetry["short_windows"], 1);
  EXPECT_NE(p.telemetry["note"].get<std::string>().find("1 of 2 windows"), std::string::npos);
  EXPECT_FALSE(p.telemetry.contains("temperature_c"));

  auto none = sum_windows("prefill", {});
  EXPECT_FALSE(none.energy_j.has_value());
  EXPECT_EQ(none.telemetry["windows"], 0);
}

}  // namespace
}  // namespace ec::meter
