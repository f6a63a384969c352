// Measures how late this machine wakes a sleeping thread, for tolerances that follow its load.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace ec::test {

// While alive, a thread sleeps 1 ms at a time and keeps the worst lateness it saw. A test that
// checks times the scheduler decides (a meter stalled between two reads) adds worst_s() to its
// slack: tight on a quiet machine, as wide as the delays it measured on a loaded one.
class SchedulingDelay {
 public:
  SchedulingDelay()
      : thread_([this] {
          using clock = std::chrono::steady_clock;
          while (!stop_) {
            const auto asked = std::chrono::milliseconds(1);
            const auto before = clock::now();
            std::this_thread::sleep_for(asked);
            const double late =
                std::chrono::duration<double>(clock::now() - before - asked).count();
            double seen = worst_.load();
            while (late > seen && !worst_.compare_exchange_weak(seen, late)) {
            }
          }
        }) {}
  ~SchedulingDelay() {
    stop_ = true;
    thread_.join();
  }
  SchedulingDelay(const SchedulingDelay&) = delete;
  SchedulingDelay& operator=(const SchedulingDelay&) = delete;

  double worst_s() const { return worst_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<double> worst_{0.0};
  std::thread thread_;  // last: starts once the members it uses exist
};

}  // namespace ec::test
