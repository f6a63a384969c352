// A thread that reads power telemetry at a fixed rate on a steady-clock schedule (no drift).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "meter/power_sample.h"

namespace ec::meter {

// Steady-clock now, in seconds; the time base of every PowerSample.
double steady_seconds();

// Where a sampler reads the time and waits for its next slot. The steady clock in the product; a
// test's own clock makes the schedule's logic checkable without depending on the machine's load.
class SamplerClock {
 public:
  virtual ~SamplerClock() = default;
  virtual double now() = 0;  // seconds
  // Returns at `t`, or as soon as `stop` is true once wake() has been called.
  virtual void wait_until(double t, const std::atomic<bool>& stop) = 0;
  virtual void wake() = 0;
};

// The steady clock (steady_seconds()).
SamplerClock& steady_sampler_clock();

class Sampler {
 public:
  // read(slow): one sample; slow is true on every `slow_every`-th tick (clocks, temperature).
  // every_tick(): optional side task run after each tick (e.g. draining the driver's buffer).
  using ReadFn = std::function<PowerSample(bool slow)>;
  Sampler(ReadFn read, double hz, int slow_every = 1, std::function<void(long tick)> side = {},
          SamplerClock& clock = steady_sampler_clock());
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void start();
  void stop();  // joins; idempotent

  double hz() const { return hz_; }
  // Adds a sample taken outside the thread (a window edge).
  void add(const PowerSample& sample);
  // Samples with begin <= t_s <= end, sorted by time.
  std::vector<PowerSample> between(double begin, double end) const;
  std::vector<PowerSample> all() const;
  // Sampler thread CPU time so far (CLOCK_THREAD_CPUTIME_ID), seconds; ticks done; ticks skipped
  // because a read overran its slot.
  double cpu_seconds() const { return cpu_seconds_.load(); }
  long ticks() const { return ticks_.load(); }
  long missed_ticks() const { return missed_.load(); }

 private:
  void run();

  ReadFn read_;
  double hz_;
  int slow_every_;
  std::function<void(long)> side_;
  SamplerClock& clock_;
  mutable std::mutex mutex_;
  std::vector<PowerSample> samples_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<double> cpu_seconds_{0.0};
  std::atomic<long> ticks_{0};
  std::atomic<long> missed_{0};
};

}  // namespace ec::meter
