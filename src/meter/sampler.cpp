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

// Wakes the thread early on stop(); one per process is enough (stop is rare).
std::mutex g_wake_mutex;
std::condition_variable g_wake;

}  // namespace

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Sampler::Sampler(ReadFn read, double hz, int slow_every, std::function<void(long)> side)
    : read_(std::move(read)),
      hz_(hz),
      slow_every_(std::max(1, slow_every)),
      side_(std::move(side)) {
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
  {
    std::lock_guard lock(g_wake_mutex);
    stop_ = true;
  }
  g_wake.notify_all();
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
  using clock = std::chrono::steady_clock;
  const auto period =
      std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(1.0 / hz_));
  const auto start = clock::now();
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
    auto now = clock::now();
    long due = static_cast<long>((now - start) / period) + 1;
    if (due > next) {
      missed_ += due - next;
      next = due;
    }
    k = next;
    std::unique_lock lock(g_wake_mutex);
    g_wake.wait_until(lock, start + k * period, [this] { return stop_.load(); });
  }
  cpu_seconds_ = thread_cpu_seconds();
}

}  // namespace ec::meter
