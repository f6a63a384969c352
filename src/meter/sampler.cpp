// The sampling thread: tick k fires at start + k/hz, so late ticks never shift later ones.
#include "meter/sampler.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>

#include "core/error.h"

namespace ec::meter {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

class SteadyClock final : public SamplerClock {
 public:
  double now() override { return steady_seconds(); }
  void wait_until(double t, const std::atomic<bool>& stop) override {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::time_point(
        std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(t)));
    std::unique_lock lock(wake_mutex_);
    wake_.wait_until(lock, deadline, [&] { return stop.load(); });
  }
  void wake() override {
    // Taking the mutex orders the caller's stop flag before the waiter's predicate check.
    { std::lock_guard lock(wake_mutex_); }
    wake_.notify_all();
  }

 private:
  // One per process is enough: stop is rare.
  std::mutex wake_mutex_;
  std::condition_variable wake_;
};

}  // namespace

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

SamplerClock& steady_sampler_clock() {
  static SteadyClock clock;
  return clock;
}

Sampler::Sampler(ReadFn read, double hz, int slow_every, std::function<void(long)> side,
                 SamplerClock& clock)
    : read_(std::move(read)),
      hz_(hz),
      slow_every_(std::max(1, slow_every)),
      side_(std::move(side)),
      clock_(clock) {
  EC_CHECK(hz > 0.0 && hz <= 10000.0, "meter: sample rate {} Hz is outside (0, 10000]", hz);
}

Sampler::~Sampler() {
  stop();
}

void Sampler::start() {
  EC_CHECK(!thread_.joinable(), "meter: sampler started twice");
  stop_ = false;
  thread_ = std::thread([this] { run(); });
}

void Sampler::stop() {
  stop_ = true;
  clock_.wake();
  if (thread_.joinable()) thread_.join();
}

void Sampler::add(const PowerSample& sample) {
  std::lock_guard lock(mutex_);
  samples_.push_back(sample);
}

std::vector<PowerSample> Sampler::between(double begin, double end) const {
  std::vector<PowerSample> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& s : samples_) {
      if (s.t_s >= begin && s.t_s <= end) out.push_back(s);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const PowerSample& a, const PowerSample& b) { return a.t_s < b.t_s; });
  return out;
}

std::vector<PowerSample> Sampler::all() const {
  std::lock_guard lock(mutex_);
  auto out = samples_;
  std::stable_sort(out.begin(), out.end(),
                   [](const PowerSample& a, const PowerSample& b) { return a.t_s < b.t_s; });
  return out;
}

void Sampler::run() {
  const double period = 1.0 / hz_;
  const double start = clock_.now();
  long k = 0;
  long reads = 0;
  while (!stop_) {
    PowerSample sample = read_(k % slow_every_ == 0);
    {
      std::lock_guard lock(mutex_);
      samples_.push_back(sample);
    }
    if (side_) side_(k);
    ticks_ = ++reads;
    cpu_seconds_ = thread_cpu_seconds();
    // Next slot on the fixed grid; slots already past are skipped and counted, never squeezed in.
    long next = k + 1;
    long due = static_cast<long>(std::floor((clock_.now() - start) / period)) + 1;
    if (due > next) {
      missed_ += due - next;
      next = due;
    }
    k = next;
    clock_.wait_until(start + static_cast<double>(k) * period, stop_);
  }
  cpu_seconds_ = thread_cpu_seconds();
}

}  // namespace ec::meter
