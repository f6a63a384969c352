// NvmlMeter: windows over the energy counter, a sampler for instant power and telemetry, RAPL
// beside.
#include "meter/nvml_meter.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "meter/gpu_select.h"
#include "meter/integration.h"
#include "meter/nvml_api.h"
#include "meter/nvml_device.h"
#include "meter/rapl.h"
#include "meter/sampler.h"

namespace ec::meter {
namespace {

// NOT_SUPPORTED and a missing symbol mean "absent", not "failed".
bool is_failure(nvml::Return code) {
  return code != nvml::kSuccess && code != nvml::kNotSupported && code != nvml::kFunctionNotFound;
}

// Assumed until the sampler has seen the counter change a few times (H200: ~0.1 s).
constexpr double kAssumedCounterPeriodS = 0.1;

// An aligned edge waits at most this many update periods for the counter to move, then falls
// back to a plain edge (and says so).
constexpr double kAlignTimeoutPeriods = 3.0;

// Least spacing of the counter reads at an aligned edge: a read costs ~4 ms on the H200 anyway;
// against a fast fake library this keeps the loop from spinning.
constexpr double kAlignReadSpacingS = 0.0005;

// The driver's power buffer is read while a window closes: its newest sample may be a little
// older than the window's end (and the oldest a little younger than its start). Up to this long,
// the edge holds that sample's value (2.5 periods of the ~50 Hz buffer seen on the H200).
constexpr double kDriverHoldS = 0.05;

// One side of a window: how its counter reading relates to the work's edge.
struct EdgeNote {
  std::string kind;          // "aligned", "plain", "shared" or "plain: <why alignment failed>"
  double offset_s = 0.0;     // aligned: time between the counter update and the work's edge
  double offset_j = 0.0;     // aligned: the energy of that time, not the window's work
  std::string offset_basis;  // aligned: what measured offset_j
  double carried_j = 0.0;    // shared: what the previous window could not take off (close_window)
  // aligned: the span from the start of the counter read that still saw the old value to the end
  // of the one that saw the new (the update lies inside it; it is placed at the middle of the two
  // reads), and at an end edge the same for the next update, whose
  // spacing from this one gives the tail's power. A loaded machine that stalls the meter between
  // two reads widens them: they bound how far the offset can be off.
  double update_bracket_s = 0.0;
  std::optional<double> next_update_bracket_s;

  static EdgeNote aligned(double offset_s, double offset_j, std::string basis,
                          double update_bracket_s,
                          std::optional<double> next_update_bracket_s = {}) {
    return {"aligned",
            offset_s,
            offset_j,
            std::move(basis),
            0.0,
            update_bracket_s,
            next_update_bracket_s};
  }
  static EdgeNote unaligned(std::string kind) {
    return {std::move(kind), 0.0, 0.0, "", 0.0, 0.0, {}};
  }
  static EdgeNote shared(double carried_j) { return {"shared", 0.0, 0.0, "", carried_j, 0.0, {}}; }

  // What the window's counter difference holds at this edge beyond the window's work.
  double taken_off_j() const { return offset_j + carried_j; }

  nlohmann::json to_json() const {
    nlohmann::json j = {{"kind", kind}};
    if (kind == "aligned") {
      j["offset_s"] = offset_s;
      j["offset_j"] = offset_j;
      j["offset_basis"] = offset_basis;
      j["update_bracket_s"] = update_bracket_s;
      if (next_update_bracket_s) j["next_update_bracket_s"] = *next_update_bracket_s;
    } else if (carried_j > 0.0) {
      j["carried_j"] = carried_j;
    }
    return j;
  }
};

// The reads of one aligned edge: the counter read until its value changed.
struct CounterUpdate {
  std::vector<PowerSample> reads;
  bool seen = false;  // the last read holds a new value
  double at_s = 0.0;  // when it changed: between the last two counter reads, taken as the middle
  double bracket_s = 0.0;  // from the start of the first of those reads to the end of the second
  std::string failure;     // why no change was seen
};

nlohmann::json stats(const std::vector<double>& v) {
  if (v.empty()) return nullptr;
  double sum = 0.0;
  for (double x : v) sum += x;
  return {{"mean", sum / static_cast<double>(v.size())},
          {"min", *std::min_element(v.begin(), v.end())},
          {"max", *std::max_element(v.begin(), v.end())}};
}

template <class T>
std::vector<double> collect(const std::vector<PowerSample>& samples,
                            std::optional<T> PowerSample::*field) {
  std::vector<double> out;
  for (const auto& s : samples) {
    if ((s.*field).has_value()) out.push_back(static_cast<double>(*(s.*field)));
  }
  return out;
}

}  // namespace

struct NvmlMeter::Impl {
  std::shared_ptr<nvml::Library> lib;
  DeviceProbe probe;
  unsigned visible_index = 0;
  double hz = 10.0;
  int slow_every = 1;
  int counter_every = 1;
  std::string driver_version, nvml_version;
  std::optional<std::string> cuda_visible;
  RaplReader rapl;
  std::unique_ptr<Sampler> sampler;
  double opened_at = 0.0;

  mutable std::atomic<bool> lost{false};
  mutable std::mutex driver_mutex;
  std::vector<DriverSample> driver;
  unsigned long long driver_last_seen_us = 0;
  double realtime_minus_steady = 0.0;  // to place driver timestamps (µs since 1970) on steady time

  bool align = false;  // window edges at counter updates (MeterOptions::align_counter_edges)
  std::string align_off_reason;

  bool open = false;
  std::string window;
  PowerSample begin_edge;
  EdgeNote begin_note;
  double carried_j = 0.0;  // energy the window closed at a shared edge left to the next one
  double begin_t = 0.0;    // steady-clock start of the open window
  std::vector<std::optional<unsigned long long>> rapl_begin, rapl_end;
  std::vector<unsigned> pids_begin, pids_end;

  explicit Impl(const MeterOptions& o) : rapl(o.rapl_root) {}

  void note(PowerSample& s, nvml::Return code) const {
    if (!is_failure(code)) return;
    s.error = code;
    if (code == nvml::kGpuIsLost) lost_flag();
  }
  void lost_flag() const { lost = true; }

  // One sample. slow adds the ~10 Hz metrics; counter reads the energy counter, which costs
  // ~4 ms of CPU per call on the H200 (driver 580) against ~20 µs for instant power.
  PowerSample read(bool slow, bool counter = true) const {
    PowerSample s;
    auto dev = probe.handle;
    double t_before = steady_seconds();
    nvml::FieldValue fields[3];
    int n = 0;
    auto add_field = [&](unsigned id, unsigned scope) {
      fields[n] = nvml::FieldValue{id, scope, 0, 0, nvml::ValueType::kUnsignedInt, 0, {}};
      ++n;
    };
    // Every tick: instant power and the counter. The driver's averages (field 185 and
    // GetPowerUsage, the original's 10 Hz reading) only on slow ticks: on the H200 a full read
    // cost ~5 ms of CPU, most of it in calls that add nothing at 100 Hz.
    if (probe.instant) add_field(nvml::kFieldPowerInstant, nvml::kScopeGpu);
    if (probe.average && slow) add_field(nvml::kFieldPowerAverage, nvml::kScopeGpu);
    if (probe.memory) add_field(probe.memory_field, nvml::kScopeMemory);
    if (n > 0) {
      note(s, lib->field_values(dev, std::span(fields, static_cast<size_t>(n))));
      for (int i = 0; i < n; ++i) {
        auto v = nvml::field_as_double(fields[i]);
        note(s, fields[i].nvml_return);
        if (!v) continue;
        double w = *v / 1000.0;
        if (fields[i].scope_id == nvml::kScopeMemory) {
          s.memory_power_w = w;
        } else if (fields[i].field_id == nvml::kFieldPowerInstant) {
          s.power_instant_w = w;
        } else {
          s.power_average_w = w;
        }
      }
    }
    if (counter) {
      double counter_before = steady_seconds();
      auto energy = lib->total_energy_mj(dev);
      double counter_after = steady_seconds();
      s.energy_t_s = 0.5 * (counter_before + counter_after);
      s.energy_read_s = counter_after - counter_before;
      note(s, energy.code);
      s.energy_mj = energy.value;
    }
    double t_after = steady_seconds();
    // The instant the power and counter describe: the middle of the two reads.
    s.t_s = 0.5 * (t_before + t_after);
    if (slow) {
      if (probe.usage) {
        auto usage = lib->power_usage_mw(dev);
        note(s, usage.code);
        if (usage.ok()) s.power_usage_w = *usage.value / 1000.0;
      }
      if (probe.clocks) {
        auto sm = lib->clock_mhz(dev, nvml::kClockSm);
        auto mem = lib->clock_mhz(dev, nvml::kClockMem);
        note(s, sm.code);
        note(s, mem.code);
        s.sm_clock_mhz = sm.value;
        s.mem_clock_mhz = mem.value;
      }
      if (probe.temperature) {
        auto t = lib->temperature_c(dev);
        note(s, t.code);
        s.temperature_c = t.value;
      }
      if (probe.reasons) {
        auto r = lib->clock_event_reasons(dev);
        note(s, r.code);
        s.clock_event_reasons = r.value;
      }
    }
    return s;
  }

  // Drains the driver's power buffer (it holds only a few seconds) into `driver`.
  void poll_driver() {
    if (!probe.samples) return;
    auto got = lib->power_samples(probe.handle, driver_last_seen_us);
    if (!got.ok()) {
      if (got.code == nvml::kGpuIsLost) lost_flag();
      return;
    }
    std::lock_guard lock(driver_mutex);
    for (const auto& s : *got.value) {
      if (s.timestamp_us <= driver_last_seen_us) continue;
      driver_last_seen_us = s.timestamp_us;
      driver.push_back({static_cast<double>(s.timestamp_us) * 1e-6 - realtime_minus_steady,
                        s.value.ui / 1000.0});
    }
  }

  std::vector<unsigned> pids() const {
    std::vector<unsigned> out;
    auto procs = lib->compute_processes(probe.handle);
    if (procs.ok()) {
      for (const auto& p : *procs.value) out.push_back(p.pid);
    }
    return out;
  }

  // Reads the counter until its value changes, at most kAlignTimeoutPeriods update periods. The
  // first read (it bounds a window that ends here) and the last two (they bracket the update) join
  // the sampler's samples; the others would only inflate the window's sample rate.
  CounterUpdate wait_for_update() const {
    CounterUpdate u;
    const double timeout_s = kAlignTimeoutPeriods * counter_period_s();
    const double deadline = steady_seconds() + timeout_s;
    // Every read is a full one, like a plain edge's: the edges then carry the slow metrics too
    // (the ~1 ms they add on the H200 only coarsens where the update is placed, and the energy
    // between it and the work's edge is measured either way).
    u.reads.push_back(read(true));
    const auto first = u.reads.back().energy_mj;
    while (first) {
      const double next_read = u.reads.back().t_s + kAlignReadSpacingS;
      while (steady_seconds() < next_read) {
      }
      u.reads.push_back(read(true));
      const PowerSample& s = u.reads.back();
      if (!s.energy_mj) break;
      if (*s.energy_mj != *first) {
        u.seen = true;
        const PowerSample& before = u.reads[u.reads.size() - 2];
        u.at_s = 0.5 * (before.energy_t_s + s.energy_t_s);
        u.bracket_s = (s.energy_t_s + 0.5 * s.energy_read_s) -
                      (before.energy_t_s - 0.5 * before.energy_read_s);
        break;
      }
      if (steady_seconds() > deadline) {
        u.failure = fmt::format("the counter did not change within {:.2f} s", timeout_s);
        break;
      }
    }
    if (!u.reads.back().energy_mj) {
      u.failure = fmt::format("counter unreadable ({})", nvml::return_name(u.reads.back().error));
    }
    for (size_t i = 0; i < u.reads.size(); ++i) {
      if (i == 0 || i + 2 >= u.reads.size()) sampler->add(u.reads[i]);
    }
    return u;
  }

  double counter_period_s(UpdatePeriod* detected = nullptr) const {
    auto all = sampler->all();
    auto period = counter_update_period(all);
    if (detected) *detected = period;
    // Below 3 changes the median rests on one or two intervals: keep the assumption.
    if (period.changes >= 3 && period.mean_s) return *period.mean_s;
    return kAssumedCounterPeriodS;
  }
};

NvmlMeter::NvmlMeter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

NvmlMeter::~NvmlMeter() {
  if (impl_ && impl_->sampler) impl_->sampler->stop();
}

std::unique_ptr<NvmlMeter> NvmlMeter::open(const MeterOptions& options, std::string* reason) {
  auto session = open_nvml(options);
  if (!session.reason.empty()) {
    if (reason) *reason = session.reason;
    return nullptr;
  }
  unsigned index = options.gpu.value_or(0);
  if (index >= session.visible.size()) {
    if (reason) {
      *reason = fmt::format("--gpu {}: only {} GPU(s) visible{}", index, session.visible.size(),
                            cuda_visible_devices_env() ? " (CUDA_VISIBLE_DEVICES is set)" : "");
    }
    return nullptr;
  }
  auto impl = std::make_unique<Impl>(options);
  impl->lib = session.lib;
  impl->probe = probe_device(*session.lib, session.visible[index]);
  if (!impl->probe.counter) {
    if (reason) *reason = impl->probe.counter_reason;
    return nullptr;
  }
  impl->visible_index = index;
  impl->hz = options.hz;
  // An aligned start takes off the few ms between the update and the work at instant power (and
  // an end falls back to it when the counter does not update again): no instant power, no
  // alignment.
  impl->align = options.align_counter_edges && impl->probe.instant;
  if (!options.align_counter_edges) {
    impl->align_off_reason = "turned off (MeterOptions::align_counter_edges)";
  } else if (!impl->probe.instant) {
    impl->align_off_reason = "no instant power (field 186) to measure the energy outside the work";
  }
  // Clocks, temperature and reasons change slowly: read them at about 10 Hz whatever the rate.
  impl->slow_every = std::max(1, static_cast<int>(std::lround(options.hz / 10.0)));
  impl->driver_version = session.lib->driver_version().value.value_or("");
  impl->nvml_version = session.lib->nvml_version().value.value_or("");
  impl->cuda_visible = cuda_visible_devices_env();
  impl->realtime_minus_steady =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() -
      steady_seconds();
  Impl* raw = impl.get();
  long drain_every = std::max(1L, std::lround(options.hz / 2.0));
  // The counter at <= 25 Hz: each read costs ~4 ms of CPU on the H200, and 25 Hz still sees every
  // ~100 ms update (the period is then their mean spacing, not the median of coarse intervals).
  impl->counter_every =
      std::max(1, static_cast<int>(std::ceil(options.hz / std::max(options.counter_hz, 1e-3))));
  impl->sampler = std::make_unique<Sampler>(
      [raw, tick = 0L](bool slow) mutable {
        bool counter = tick++ % raw->counter_every == 0;
        return raw->read(slow, counter);
      },
      options.hz, impl->slow_every,
      [raw, drain_every](long tick) {
        if (tick % drain_every == 0) raw->poll_driver();
      });
  impl->opened_at = steady_seconds();
  impl->sampler->start();
  return std::unique_ptr<NvmlMeter>(new NvmlMeter(std::move(impl)));
}

bool NvmlMeter::measures_energy() const {
  return !impl_->lost;
}

std::string NvmlMeter::unavailable_reason() const {
  return impl_->lost ? "the GPU was lost (NVML GPU_IS_LOST (15)); no energy after that" : "";
}

PowerSample NvmlMeter::read_now(bool slow) const {
  return impl_->read(slow);
}

namespace {

// Closes m's open window at end_t with `edge` as its last counter reading; `after` is the first
// read after end_t (the edge itself unless the edge waited for an update).
WindowResult close_window(NvmlMeter::Impl& m, double end_t, const PowerSample& edge,
                          const PowerSample& after, const EdgeNote& end_note) {
  m.open = false;
  m.rapl_end = m.rapl.read();
  m.pids_end = m.pids();
  m.poll_driver();

  WindowResult r;
  r.name = m.window;
  const double t0 = m.begin_t, t1 = end_t;
  r.seconds = t1 - t0;
  // The edge reads themselves (timed at their middles, just outside [t0, t1]) bound the samples;
  // the trapezoids interpolate to t0 and t1.
  auto samples = m.sampler->between(std::min(t0, m.begin_edge.t_s), std::max(t1, after.t_s));
  auto& tel = r.telemetry;

  // Failures seen inside the window, by code.
  std::map<int, int> failures;
  for (const auto& s : samples) {
    if (s.error != 0) ++failures[s.error];
  }
  bool lost = failures.count(nvml::kGpuIsLost) > 0 || m.lost;

  // Primary: the hardware energy counter, less what it holds outside the window at aligned edges.
  std::string energy_note;
  std::optional<double> raw_delta_j;
  if (lost) {
    energy_note = "GPU lost during the window (NVML GPU_IS_LOST (15)): no energy figure";
  } else if (!m.begin_edge.energy_mj || !edge.energy_mj) {
    energy_note = fmt::format(
        "energy counter unreadable at the window {} ({})", m.begin_edge.energy_mj ? "end" : "start",
        nvml::return_name(m.begin_edge.energy_mj ? edge.error : m.begin_edge.error));
  } else if (auto delta = counter_delta_j(*m.begin_edge.energy_mj, *edge.energy_mj)) {
    raw_delta_j = *delta;
    r.energy_j = *delta - m.begin_note.taken_off_j() - end_note.taken_off_j();
    // A window shorter than an update (a prefill) that shares its end with the next window may
    // hold less counter energy than its aligned start takes off: the rest is taken off the next
    // window, so the two still add up and neither reads below zero.
    if (*r.energy_j < 0.0 && end_note.kind == "shared") {
      m.carried_j = -*r.energy_j;
      r.energy_j = 0.0;
    }
    r.energy_source = "nvml_total_energy_counter";
  } else {
    energy_note = fmt::format("energy counter went backwards ({} → {} mJ): driver reloaded?",
                              *m.begin_edge.energy_mj, *edge.energy_mj);
  }
  if (!energy_note.empty()) tel["energy_unavailable_reason"] = energy_note;
  if (r.energy_j && r.seconds > 0.0) r.avg_power_w = *r.energy_j / r.seconds;

  // Cross-check: the driver's own power samples (~50 Hz on the H200) where it keeps them; else
  // the trapezoid of instant power read by the sampler (its rate, 10 Hz by default); else of the
  // driver's 1 s average (says so).
  std::vector<DriverSample> near;
  if (m.probe.samples) {
    std::lock_guard lock(m.driver_mutex);
    for (const auto& d : m.driver) {
      if (d.t_s >= t0 - kDriverHoldS && d.t_s <= t1 + kDriverHoldS) near.push_back(d);
    }
  }
  auto buffer = driver_trapezoid_between_j(near, t0, t1, kDriverHoldS);
  auto instant = trapezoid_between_j(samples, &PowerSample::power_instant_w, t0, t1);
  auto usage = trapezoid_between_j(samples, &PowerSample::power_usage_w, t0, t1);
  auto pct = [&](const std::optional<double>& x) -> nlohmann::json {
    if (!r.energy_j || !x || *r.energy_j <= 0.0) return nullptr;
    return (*x / *r.energy_j - 1.0) * 100.0;
  };
  if (!lost && buffer) {
    tel["power_samples_trapezoid_j"] = *buffer;
    tel["counter_vs_power_samples_pct"] = pct(buffer);
  }
  if (!lost && instant) {
    tel["instant_power_trapezoid_j"] = *instant;
    tel["counter_vs_instant_pct"] = pct(instant);
  }
  if (!lost && buffer) {
    r.cross_check_energy_j = buffer;
    r.cross_check_source = "nvml_power_samples_trapezoid";
  } else if (!lost && instant) {
    r.cross_check_energy_j = instant;
    r.cross_check_source = "nvml_power_instant_trapezoid";
  } else if (!lost && usage) {
    r.cross_check_energy_j = usage;
    r.cross_check_source = "nvml_power_usage_trapezoid_1s_average";
  }
  if (r.energy_j && r.cross_check_energy_j && *r.energy_j > 0.0) {
    tel["counter_vs_cross_check_pct"] = (*r.cross_check_energy_j / *r.energy_j - 1.0) * 100.0;
  }
  if (!lost && usage) tel["power_usage_trapezoid_j"] = *usage;  // the original's method

  // Counter resolution: updates inside the window and the meter-wide update period.
  UpdatePeriod detected;
  double period = m.counter_period_s(&detected);
  auto in_window = counter_update_period(samples);
  tel["counter"] = {
      {"begin_mj", m.begin_edge.energy_mj ? nlohmann::json(*m.begin_edge.energy_mj) : nullptr},
      {"end_mj", edge.energy_mj ? nlohmann::json(*edge.energy_mj) : nullptr},
      {"updates_in_window", in_window.changes},
      {"begin_edge", m.begin_note.to_json()},
      {"end_edge", end_note.to_json()},
      {"raw_delta_j", raw_delta_j ? nlohmann::json(*raw_delta_j) : nullptr},
      {"update_period_s", period},
      {"update_period_detected", detected.changes >= 3}};
  bool short_window = r.seconds < kMinCounterUpdates * period;
  tel["short_window"] = short_window;
  if (short_window) {
    tel["warning"] = fmt::format(
        "window of {:.3f} s spans fewer than {} counter updates ({:.3f} s each): lengthen or "
        "repeat it",
        r.seconds, kMinCounterUpdates, period);
  }

  // Samples and telemetry summaries.
  tel["samples"] = samples.size();
  tel["sample_hz_target"] = m.hz;
  if (r.seconds > 0.0 && samples.size() > 1) {
    tel["sample_hz_achieved"] = static_cast<double>(samples.size() - 1) / r.seconds;
  }
  nlohmann::json power = nlohmann::json::object();
  if (auto s = stats(collect(samples, &PowerSample::power_instant_w)); !s.is_null())
    power["instant"] = s;
  if (auto s = stats(collect(samples, &PowerSample::power_average_w)); !s.is_null())
    power["average_field"] = s;
  if (auto s = stats(collect(samples, &PowerSample::power_usage_w)); !s.is_null())
    power["usage_1s_average"] = s;
  if (auto s = stats(collect(samples, &PowerSample::memory_power_w)); !s.is_null())
    power["memory"] = s;
  tel["power_w"] = power;
  if (auto s = stats(collect(samples, &PowerSample::sm_clock_mhz)); !s.is_null())
    tel["sm_clock_mhz"] = s;
  if (auto s = stats(collect(samples, &PowerSample::mem_clock_mhz)); !s.is_null())
    tel["mem_clock_mhz"] = s;
  if (auto s = stats(collect(samples, &PowerSample::temperature_c)); !s.is_null())
    tel["temperature_c"] = s;
  unsigned long long reasons = 0;
  bool any_reasons = false;
  for (const auto& s : samples) {
    if (s.clock_event_reasons) {
      reasons |= *s.clock_event_reasons;
      any_reasons = true;
    }
  }
  if (any_reasons) {
    tel["clock_event_reasons"] = nvml::clock_event_reason_names(reasons);
    tel["throttled"] =
        (reasons & (nvml::kReasonSwPowerCap | nvml::kReasonHwSlowdown | nvml::kReasonSwThermal |
                    nvml::kReasonHwThermal | nvml::kReasonHwPowerBrake)) != 0;
  }

  // The driver's own sample buffer over the window.
  {
    std::vector<DriverSample> inside;
    {
      std::lock_guard lock(m.driver_mutex);
      for (const auto& d : m.driver) {
        if (d.t_s >= t0 && d.t_s <= t1) inside.push_back(d);
      }
    }
    if (m.probe.samples) {
      nlohmann::json drv = {{"count", inside.size()}};
      if (inside.size() > 1) {
        drv["rate_hz"] =
            static_cast<double>(inside.size() - 1) / (inside.back().t_s - inside.front().t_s);
        if (auto e = trapezoid_j(inside); e && !lost) drv["trapezoid_j"] = *e;
      }
      tel["driver_samples"] = drv;
    }
  }

  // Other processes on the device are charged to us: list them.
  std::set<unsigned> seen(m.pids_begin.begin(), m.pids_begin.end());
  seen.insert(m.pids_end.begin(), m.pids_end.end());
  unsigned self = static_cast<unsigned>(getpid());
  seen.erase(self);
  tel["gpu_processes"] = std::vector<unsigned>(seen.begin(), seen.end());
  tel["shared_gpu"] = seen.size() > 1;

  if (!failures.empty()) {
    nlohmann::json errs = nlohmann::json::array();
    for (auto [code, count] : failures)
      errs.push_back({{"code", nvml::return_name(code)}, {"samples", count}});
    tel["nvml_errors"] = errs;
  }
  tel["gpu_lost"] = lost;
  tel["rapl"] = m.rapl.energy_between(m.rapl_begin, m.rapl_end);
  return r;
}

}  // namespace

void NvmlMeter::begin(std::string_view window) {
  auto& m = *impl_;
  EC_CHECK(!m.open, "meter: window '{}' opened while '{}' is still open", window, m.window);
  m.open = true;
  m.window = std::string(window);
  m.pids_begin = m.pids();
  m.rapl_begin = m.rapl.read();
  if (m.align) {
    CounterUpdate u = m.wait_for_update();
    m.begin_edge = u.reads.back();
    m.begin_t = steady_seconds();
    if (u.seen) {
      // The counter now holds the energy up to the update; what ran between the update and now
      // (this read's tail, no work) is the window's only by the counter: subtracted at the end.
      // A few ms of a GPU at rest, whose power instant readings measure well.
      double slack_j =
          trapezoid_held_j(u.reads, &PowerSample::power_instant_w, u.at_s, m.begin_t).value_or(0.0);
      m.begin_note = EdgeNote::aligned(m.begin_t - u.at_s, slack_j, "instant power", u.bracket_s);
    } else {
      m.begin_note = EdgeNote::unaligned("plain: " + u.failure);
    }
    return;
  }
  m.begin_edge = m.read(true);
  m.sampler->add(m.begin_edge);
  m.begin_note = EdgeNote::unaligned("plain");
  // The window's clock starts after the edge read, not in its middle: an NVML read takes
  // milliseconds, and timing it as part of the work would charge the meter's own cost to the
  // model (3 % of tok/s for a 0.5B model on the H200). The counter's value is up to one update
  // period old either way, so where inside the read the edge falls does not change the energy.
  m.begin_t = steady_seconds();
}

WindowResult NvmlMeter::end() {
  auto& m = *impl_;
  EC_CHECK(m.open, "meter: end() without an open window");
  const double end_t = steady_seconds();  // before the edge read: see begin()
  if (m.align) {
    CounterUpdate u = m.wait_for_update();
    EdgeNote note = EdgeNote::unaligned("plain: " + u.failure);
    if (u.seen) {
      // The counter holds the energy up to the update, after the work ended: the tail between
      // is taken off at the power the counter itself shows over the next update period. Instant
      // power (field 186) is cheaper, but on the H200 it misjudged a 40 ms burst by up to ±45 J
      // where the counter stayed within ~3 J of its mean whatever the burst's phase
      // (bench/meter/counter_phase.py), and a tail starts at such a step.
      const double tail_s = u.at_s - end_t;
      CounterUpdate next_period = m.wait_for_update();
      std::optional<double> next_j;
      if (next_period.seen && next_period.at_s > u.at_s) {
        next_j = counter_delta_j(*u.reads.back().energy_mj, *next_period.reads.back().energy_mj);
      }
      if (next_j) {
        note = EdgeNote::aligned(tail_s, *next_j / (next_period.at_s - u.at_s) * tail_s,
                                 "counter over the next update period", u.bracket_s,
                                 next_period.bracket_s);
      } else {
        double tail_j =
            trapezoid_held_j(u.reads, &PowerSample::power_instant_w, end_t, u.at_s).value_or(0.0);
        note = EdgeNote::aligned(tail_s, tail_j, "instant power (the counter did not update again)",
                                 u.bracket_s);
      }
    }
    return close_window(m, end_t, u.reads.back(), u.reads.front(), note);
  }
  PowerSample edge = m.read(true);
  m.sampler->add(edge);
  return close_window(m, end_t, edge, edge, EdgeNote::unaligned("plain"));
}

WindowResult NvmlMeter::next(std::string_view window) {
  auto& m = *impl_;
  EC_CHECK(m.open, "meter: next('{}') without an open window", window);
  const double split_t = steady_seconds();
  PowerSample edge = m.read(true);
  m.sampler->add(edge);
  WindowResult closed = close_window(m, split_t, edge, edge, EdgeNote::shared(0.0));
  // The same read opens the next window: the two counter differences telescope.
  m.open = true;
  m.window = std::string(window);
  m.pids_begin = m.pids_end;
  m.rapl_begin = m.rapl_end;
  m.begin_edge = edge;
  m.begin_note = EdgeNote::shared(m.carried_j);
  m.carried_j = 0.0;
  m.begin_t = steady_seconds();
  return closed;
}

nlohmann::json NvmlMeter::describe() const {
  const auto& m = *impl_;
  UpdatePeriod detected;
  double period = m.counter_period_s(&detected);
  nlohmann::json device = m.probe.identity;
  device["index"] = m.visible_index;
  double wall = steady_seconds() - m.opened_at;
  nlohmann::json out = {
      {"name", name()},
      {"measures_energy", measures_energy()},
      {"method",
       m.align ? "energy = difference of nvmlDeviceGetTotalEnergyConsumption across the window, "
                 "its edges at counter updates (the window starts just after one and ends at the "
                 "first after the work; the energy between an update and the work's edge is taken "
                 "off: at the start by instant power, at the end by the counter's power over the "
                 "next update period); cross-check = trapezoid of instant power (field 186) "
                 "sampled by a thread"
               : "energy = difference of nvmlDeviceGetTotalEnergyConsumption across the window; "
                 "cross-check = trapezoid of instant power (field 186) sampled by a thread"},
      {"counter_edges", m.align ? "aligned" : "plain: " + m.align_off_reason},
      {"library", m.lib->path()},
      {"symbols", m.lib->resolved_symbols()},
      {"driver_version", m.driver_version},
      {"nvml_version", m.nvml_version},
      {"device", device},
      {"metrics", m.probe.metrics},
      {"sample_hz", m.hz},
      {"slow_metrics_hz", m.hz / m.slow_every},
      {"counter_read_hz", m.hz / m.counter_every},
      {"counter_update_period_s", period},
      {"counter_update_period_detected", detected.changes >= 3},
      {"sampler",
       {{"cpu_s", m.sampler->cpu_seconds()},
        {"wall_s", wall},
        {"cpu_fraction", wall > 0.0 ? m.sampler->cpu_seconds() / wall : 0.0},
        {"ticks", m.sampler->ticks()},
        {"missed_ticks", m.sampler->missed_ticks()}}},
      {"rapl", m.rapl.describe()},
  };
  if (detected.min_s) {
    out["counter_update_interval_s"] = {
        {"min", *detected.min_s}, {"max", *detected.max_s}, {"changes", detected.changes}};
  }
  if (m.cuda_visible) out["cuda_visible_devices"] = *m.cuda_visible;
  if (!measures_energy()) out["reason"] = unavailable_reason();
  return out;
}

std::optional<double> NvmlMeter::counter_period_s() const {
  return impl_->counter_period_s();
}

std::vector<PowerSample> NvmlMeter::samples() const {
  return impl_->sampler->all();
}

std::vector<DriverSample> NvmlMeter::driver_samples() const {
  std::lock_guard lock(impl_->driver_mutex);
  return impl_->driver;
}

double NvmlMeter::sampler_cpu_seconds() const {
  return impl_->sampler->cpu_seconds();
}

std::unique_ptr<Meter> make_best_meter(const MeterOptions& options) {
  std::string reason;
  if (auto meter = NvmlMeter::open(options, &reason)) return meter;
  return make_unavailable_meter(reason);
}

}  // namespace ec::meter
