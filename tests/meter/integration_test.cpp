// Trapezoid integration, counter differences and update-period detection on hand-made samples.
#include "meter/integration.h"

#include <gtest/gtest.h>

#include <random>

namespace ec::meter {
namespace {

PowerSample at(double t, std::optional<double> watts, std::optional<unsigned long long> mj = {}) {
  PowerSample s;
  s.t_s = t;
  s.power_instant_w = watts;
  s.energy_mj = mj;
  return s;
}

TEST(Trapezoid, HandComputedRamp) {
  // 100 W → 300 W linearly over 2 s, then 300 W for 1 s: 400 J + 300 J.
  std::vector<PowerSample> s = {at(0.0, 100.0), at(1.0, 200.0), at(2.0, 300.0), at(3.0, 300.0)};
  auto e = trapezoid_j(s, &PowerSample::power_instant_w);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(*e, 700.0);
}

TEST(Trapezoid, ConstantPowerOnJitteredTimesIsExact) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> dt(0.005, 0.015);
  std::vector<PowerSample> s;
  double t = 10.0;
  while (t < 12.0) {
    s.push_back(at(t, 300.0));
    t += dt(rng);
  }
  double span = s.back().t_s - s.front().t_s;
  EXPECT_NEAR(*trapezoid_j(s, &PowerSample::power_instant_w), 300.0 * span, 1e-9);
}

TEST(Trapezoid, SkipsSamplesWithoutTheMetricAndNeedsTwo) {
  std::vector<PowerSample> s = {at(0.0, 50.0), at(0.5, std::nullopt), at(1.0, 150.0)};
  EXPECT_DOUBLE_EQ(*trapezoid_j(s, &PowerSample::power_instant_w), 100.0);
  std::vector<PowerSample> one = {at(0.0, 50.0), at(1.0, std::nullopt)};
  EXPECT_FALSE(trapezoid_j(one, &PowerSample::power_instant_w).has_value());
  EXPECT_FALSE(trapezoid_j(one, &PowerSample::power_usage_w).has_value());
}

TEST(Trapezoid, BetweenInterpolatesTheEdges) {
  // 0 W at t=0 rising to 400 W at t=4: ∫_1^3 100 t dt = 400 J.
  std::vector<PowerSample> s = {at(0.0, 0.0), at(2.0, 200.0), at(4.0, 400.0)};
  EXPECT_DOUBLE_EQ(*trapezoid_between_j(s, &PowerSample::power_instant_w, 1.0, 3.0), 400.0);
  EXPECT_FALSE(trapezoid_between_j(s, &PowerSample::power_instant_w, -1.0, 3.0).has_value());
}

TEST(Trapezoid, HeldExtendsTheEndValuesBeyondTheSamples) {
  // 100 W at t=1 rising to 300 W at t=2. Over [0, 3]: 100 J held before, 200 J between, 300 J
  // held after.
  std::vector<PowerSample> s = {at(1.0, 100.0), at(2.0, 300.0)};
  EXPECT_DOUBLE_EQ(*trapezoid_held_j(s, &PowerSample::power_instant_w, 0.0, 3.0), 600.0);
  // Inside the samples it is the interpolating trapezoid: ∫_1.5^2 = 0.5 × (200 + 300) / 2.
  EXPECT_DOUBLE_EQ(*trapezoid_held_j(s, &PowerSample::power_instant_w, 1.5, 2.0), 125.0);
  // One sample is enough: its value held over the span.
  std::vector<PowerSample> one = {at(5.0, 40.0)};
  EXPECT_DOUBLE_EQ(*trapezoid_held_j(one, &PowerSample::power_instant_w, 4.0, 4.5), 20.0);
  EXPECT_FALSE(trapezoid_held_j(one, &PowerSample::power_usage_w, 4.0, 4.5).has_value());
  EXPECT_FALSE(trapezoid_held_j(s, &PowerSample::power_instant_w, 2.0, 1.0).has_value());
}

TEST(DriverTrapezoid, HandComputed) {
  std::vector<DriverSample> s = {{0.0, 10.0}, {0.02, 30.0}, {0.04, 30.0}};
  EXPECT_NEAR(*trapezoid_j(s), 0.4 + 0.6, 1e-12);
}

TEST(CounterDelta, DifferenceWrapAndReset) {
  EXPECT_DOUBLE_EQ(*counter_delta_j(1'000'000, 1'612'345), 612.345);
  // The unsigned counter wraps past 2^64: still the small forward difference.
  unsigned long long near_max = ~0ULL - 999;  // 1000 mJ before the wrap
  EXPECT_DOUBLE_EQ(*counter_delta_j(near_max, 4000), 5.0);
  // Backwards: a reset, not a wrap.
  EXPECT_FALSE(counter_delta_j(5'000'000, 4'000'000).has_value());
}

TEST(UpdatePeriod, FindsTheMedianIntervalBetweenChanges) {
  // Samples every 10 ms; the counter changes every 100 ms (one change late by one sample).
  std::vector<PowerSample> s;
  unsigned long long mj = 7;
  for (int i = 0; i < 100; ++i) {
    if (i > 0 && (i % 10 == 0 || i == 51)) mj += 30;
    if (i == 50) continue;  // a missing change at 50 shows up at 51
    s.push_back(at(i * 0.01, 300.0, mj));
  }
  auto p = counter_update_period(s);
  EXPECT_EQ(p.changes, 9);
  ASSERT_TRUE(p.median_s.has_value());
  EXPECT_NEAR(*p.median_s, 0.1, 1e-9);
  EXPECT_NEAR(*p.mean_s, (0.90 - 0.10) / 8.0, 1e-9);
  EXPECT_NEAR(*p.min_s, 0.09, 1e-9);
  EXPECT_NEAR(*p.max_s, 0.11, 1e-9);
}

TEST(UpdatePeriod, MeanSurvivesCoarseReads) {
  // Counter updates every 100 ms, read every 40 ms: intervals alternate 80/120 ms, mean 100 ms.
  std::vector<PowerSample> s;
  for (int i = 0; i < 250; ++i) {
    double t = i * 0.04;
    s.push_back(at(t, 300.0, static_cast<unsigned long long>(t / 0.1 + 1e-9) * 30));
  }
  auto p = counter_update_period(s);
  EXPECT_NEAR(*p.mean_s, 0.1, 0.04 / (p.changes - 1) + 1e-9);
  EXPECT_GE(*p.max_s - *p.min_s, 0.039);  // the coarse intervals themselves are ±40 ms
}

TEST(UpdatePeriod, NoCounterNoPeriod) {
  std::vector<PowerSample> s = {at(0.0, 1.0), at(1.0, 1.0)};
  auto p = counter_update_period(s);
  EXPECT_EQ(p.changes, 0);
  EXPECT_FALSE(p.median_s.has_value());
}

TEST(Median, OddEvenEmpty) {
  EXPECT_DOUBLE_EQ(*median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(*median({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_FALSE(median({}).has_value());
}

}  // namespace
}  // namespace ec::meter
