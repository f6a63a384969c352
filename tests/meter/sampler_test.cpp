// The sampler keeps a fixed-rate schedule, records CPU time, and stops promptly.
#include "meter/sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ec::meter {
namespace {

TEST(Sampler, TicksFollowTheScheduleWithoutDrift) {
  std::atomic<int> slow_reads{0};
  Sampler sampler(
      [&](bool slow) {
        if (slow) ++slow_reads;
        PowerSample s;
        s.t_s = steady_seconds();
        s.power_instant_w = 123.0;
        return s;
      },
      200.0, 4);
  double start = steady_seconds();
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  sampler.stop();
  double elapsed = steady_seconds() - start;
  // Every slot is either taken or counted as missed: together they match the elapsed time.
  double slots = static_cast<double>(sampler.ticks() + sampler.missed_ticks());
  EXPECT_NEAR(slots, elapsed * 200.0, 3.0);
  auto all = sampler.all();
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(static_cast<long>(all.size()), sampler.ticks());
  // Slot k fires at start + k/hz: the mean spacing is the period, not period + read time.
  double mean_dt = (all.back().t_s - all.front().t_s) /
                   static_cast<double>(sampler.ticks() - 1 + sampler.missed_ticks());
  EXPECT_NEAR(mean_dt, 0.005, 0.0005);
  EXPECT_NEAR(slow_reads.load(), static_cast<double>(sampler.ticks()) / 4.0, 1.5);
  EXPECT_GE(sampler.cpu_seconds(), 0.0);
  EXPECT_LT(sampler.cpu_seconds(), elapsed);
}

TEST(Sampler, StopWakesASlowSamplerAtOnce) {
  Sampler sampler([](bool) { return PowerSample{}; }, 0.5);  // one tick every 2 s
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  double t = steady_seconds();
  sampler.stop();
  EXPECT_LT(steady_seconds() - t, 0.5);
  EXPECT_EQ(sampler.ticks(), 1);
}

TEST(Sampler, BetweenSortsEdgeSamplesIn) {
  Sampler sampler([](bool) { return PowerSample{}; }, 10.0);
  PowerSample a, b, c;
  a.t_s = 3.0;
  b.t_s = 1.0;
  c.t_s = 2.0;
  sampler.add(a);
  sampler.add(b);
  sampler.add(c);
  auto got = sampler.between(1.5, 3.0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_DOUBLE_EQ(got[0].t_s, 2.0);
  EXPECT_DOUBLE_EQ(got[1].t_s, 3.0);
}

TEST(Sampler, RejectsAbsurdRates) {
  EXPECT_THROW(Sampler([](bool) { return PowerSample{}; }, 0.0), std::runtime_error);
}

}  // namespace
}  // namespace ec::meter
