// The sampler keeps a fixed-rate schedule, records CPU time, and stops promptly.
#include "meter/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ec::meter {
namespace {

// A clock that moves only when told: a wait returns at once with the clock set to its deadline
// (the sleep took exactly as planned), a read moves it by however long the test says the read
// took. Past `horizon` a wait parks until stop(), so a test sees a fixed stretch of schedule.
class ManualClock final : public SamplerClock {
 public:
  explicit ManualClock(double horizon) : horizon_(horizon) {}
  double now() override {
    std::lock_guard lock(mutex_);
    return now_;
  }
  void advance(double seconds) {
    std::lock_guard lock(mutex_);
    now_ += seconds;
  }
  void wait_until(double t, const std::atomic<bool>& stop) override {
    std::unique_lock lock(mutex_);
    if (t <= horizon_) {
      now_ = std::max(now_, t);
      return;
    }
    parked_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return stop.load(); });
  }
  void wake() override {
    { std::lock_guard lock(mutex_); }
    changed_.notify_all();
  }
  // Blocks until the sampler has run its schedule up to the horizon (a liveness bound, not a
  // timing check: the thread needs no real time beyond being scheduled).
  bool wait_parked() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return parked_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  double now_ = 100.0;
  double horizon_;
  bool parked_ = false;
};

TEST(Sampler, TicksFollowTheScheduleWithoutDrift) {
  // 200 Hz (5 ms slots) from t = 100 s up to 100.3025 s (slot 60 and half a slot). Reads take
  // 1 ms, except that the read of slot 7 takes 12 ms.
  ManualClock clock(100.3025);
  std::vector<long> slow_slots;
  long read_index = 0;
  Sampler sampler(
      [&](bool slow) {
        PowerSample s;
        s.t_s = clock.now();
        double took = 0.001;
        long slot = std::lround((s.t_s - 100.0) / 0.005);
        if (slot == 7) took = 0.012;
        if (slow) slow_slots.push_back(slot);
        ++read_index;
        clock.advance(took);
        return s;
      },
      200.0, 4, {}, clock);
  sampler.start();
  ASSERT_TRUE(clock.wait_parked());
  sampler.stop();

  auto all = sampler.all();
  ASSERT_EQ(static_cast<long>(all.size()), sampler.ticks());
  ASSERT_EQ(read_index, sampler.ticks());
  // Slot 7's read ends at 100.047 s: slots 8 and 9 are past and skipped, 10 is next. Slots 0..60
  // lie before the horizon; 2 are missed, so 59 are read, each at its slot's time, not a read's
  // length later.
  EXPECT_EQ(sampler.missed_ticks(), 2);
  EXPECT_EQ(sampler.ticks(), 59);
  std::vector<long> slots;
  for (const auto& s : all) {
    double slot = (s.t_s - 100.0) / 0.005;
    EXPECT_NEAR(slot, std::round(slot), 1e-6) << s.t_s;
    slots.push_back(std::lround(slot));
  }
  EXPECT_EQ(slots[7], 7);
  EXPECT_EQ(slots[8], 10);
  EXPECT_EQ(slots.back(), 60);
  // Slow metrics on every 4th slot of the grid, the skipped ones included (8 was skipped).
  for (long slot : slow_slots) EXPECT_EQ(slot % 4, 0) << slot;
  EXPECT_EQ(slow_slots.size(), 15u);  // 0, 4, ..., 60 less 8
  EXPECT_GE(sampler.cpu_seconds(), 0.0);
}

TEST(Sampler, StopWakesASlowSamplerAtOnce) {
  // One tick every 100 s on the steady clock: stop() must not wait for the next slot. 10 s is a
  // bound no scheduler needs and far below the 100 s a missed wake-up would take.
  Sampler sampler([](bool) { return PowerSample{}; }, 0.01);
  sampler.start();
  while (sampler.ticks() == 0) std::this_thread::yield();
  double t = steady_seconds();
  sampler.stop();
  EXPECT_LT(steady_seconds() - t, 10.0);
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
