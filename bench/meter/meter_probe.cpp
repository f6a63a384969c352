// meter_probe: meters a command on a real GPU and compares the ways of getting its energy.
//
//   meter_probe [--hz 100] [--counter-hz 100] [--idle-s 3] [--costs N] [--marks FILE] [--out DIR]
//               -- CMD ARGS...
//
// The command may write "start <time.monotonic()>" / "end <...>" lines to FILE (env EC_MARKS) to
// mark its steady phase. Reported side by side over that phase (and over the whole run):
//   counter energy (nvmlDeviceGetTotalEnergyConsumption difference),
//   trapezoid of instant power (field 186) at the sampler rate,
//   trapezoid of nvmlDeviceGetPowerUsage polled at 10 Hz (the original's method),
//   trapezoid of the driver's own power-sample buffer,
// plus the counter update period, the driver buffer rate, and the sampler thread's CPU time.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "meter/integration.h"
#include "meter/metered_run.h"
#include "meter/nvml_api.h"
#include "meter/nvml_device.h"
#include "meter/nvml_meter.h"
#include "meter/sampler.h"
#include "meter/window_json.h"

namespace {

using ec::meter::DriverSample;
using ec::meter::PowerSample;
using nlohmann::json;

struct Args {
  double hz = 100.0;
  double counter_hz = 100.0;  // the H200 validation read the counter at every tick
  double idle_s = 3.0;
  int costs = 0;  // > 0: time each NVML call this many times first
  std::string marks = "/tmp/ec_marks.txt";
  std::string out = ".";
  std::vector<std::string> command;
};

Args parse(int argc, char** argv) {
  Args a;
  int i = 1;
  for (; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) ec::fail_usage("meter_probe: {} needs a value", s);
    if (s == "--hz") {
      a.hz = std::stod(argv[++i]);
    } else if (s == "--idle-s") {
      a.idle_s = std::stod(argv[++i]);
    } else if (s == "--counter-hz") {
      a.counter_hz = std::stod(argv[++i]);
    } else if (s == "--costs") {
      a.costs = std::stoi(argv[++i]);
    } else if (s == "--marks") {
      a.marks = argv[++i];
    } else if (s == "--out") {
      a.out = argv[++i];
    } else {
      ec::fail_usage("meter_probe: unknown option {}", s);
    }
  }
  for (; i < argc; ++i) a.command.emplace_back(argv[i]);
  if (a.command.empty())
    ec::fail_usage("usage: meter_probe [--hz R] [--marks F] [--out DIR] -- CMD...");
  return a;
}

// Microseconds per call of each NVML read we use (idle GPU, back to back), with its return code.
json call_costs(const ec::meter::MeterOptions& options, int n) {
  namespace nvml = ec::meter::nvml;
  auto session = ec::meter::open_nvml(options);
  if (!session.reason.empty()) return {{"error", session.reason}};
  const auto& lib = *session.lib;
  nvml::Device dev = *lib.device_by_index(session.visible[0]).value;
  json out = json::object();
  auto time = [&](const std::string& name, auto&& call) {
    int code = 0;
    double t = ec::meter::steady_seconds();
    for (int i = 0; i < n; ++i) code = call();
    out[name] = {{"us", (ec::meter::steady_seconds() - t) * 1e6 / n},
                 {"code", nvml::return_name(code)}};
  };
  auto field = [&](unsigned id, unsigned scope) {
    return [&lib, dev, id, scope] {
      nvml::FieldValue f[1] = {{id, scope, 0, 0, {}, 0, {}}};
      lib.field_values(dev, f);
      return f[0].nvml_return;
    };
  };
  time("field_186_gpu", field(nvml::kFieldPowerInstant, nvml::kScopeGpu));
  time("field_185_gpu", field(nvml::kFieldPowerAverage, nvml::kScopeGpu));
  time("field_186_memory", field(nvml::kFieldPowerInstant, nvml::kScopeMemory));
  time("field_185_memory", field(nvml::kFieldPowerAverage, nvml::kScopeMemory));
  time("field_186_module", field(nvml::kFieldPowerInstant, nvml::kScopeModule));
  time("field_83_energy", field(nvml::kFieldTotalEnergy, nvml::kScopeGpu));
  time("GetTotalEnergyConsumption", [&] { return lib.total_energy_mj(dev).code; });
  time("GetPowerUsage", [&] { return lib.power_usage_mw(dev).code; });
  time("GetClockInfo_sm", [&] { return lib.clock_mhz(dev, nvml::kClockSm).code; });
  time("GetTemperature", [&] { return lib.temperature_c(dev).code; });
  time("GetCurrentClocksEventReasons", [&] { return lib.clock_event_reasons(dev).code; });
  time("GetSamples_power", [&] { return lib.power_samples(dev, 0).code; });
  time("GetComputeRunningProcesses", [&] { return lib.compute_processes(dev).code; });
  return out;
}

// Counter value at time t: the last sample at or before t that read it.
std::optional<std::pair<double, unsigned long long>> counter_at(const std::vector<PowerSample>& s,
                                                                double t) {
  std::optional<std::pair<double, unsigned long long>> best;
  for (const auto& x : s) {
    if (x.t_s > t) break;
    if (x.energy_mj) best = {{x.t_s, *x.energy_mj}};
  }
  return best;
}

// Instants the counter was first seen with a new value, with that value.
std::vector<std::pair<double, unsigned long long>> counter_changes(
    const std::vector<PowerSample>& s) {
  std::vector<std::pair<double, unsigned long long>> out;
  std::optional<unsigned long long> last;
  for (const auto& x : s) {
    if (!x.energy_mj) continue;
    if (last && *x.energy_mj != *last) out.emplace_back(x.t_s, *x.energy_mj);
    last = x.energy_mj;
  }
  return out;
}

// Every k-th sampler sample: polling at hz/k, as the original does at 10 Hz.
std::vector<PowerSample> every(const std::vector<PowerSample>& s, int k) {
  std::vector<PowerSample> out;
  for (size_t i = 0; i < s.size(); i += static_cast<size_t>(k)) out.push_back(s[i]);
  return out;
}

std::optional<double> driver_between(const std::vector<DriverSample>& d, double t0, double t1) {
  std::vector<DriverSample> in;
  for (const auto& x : d) {
    if (x.t_s >= t0 && x.t_s <= t1) in.push_back(x);
  }
  return ec::meter::trapezoid_j(in);
}

double pct(double x, double ref) {
  return (x / ref - 1.0) * 100.0;
}

// All figures over [t0, t1] against the counter.
json compare(const std::vector<PowerSample>& s, const std::vector<DriverSample>& drv, double t0,
             double t1, double hz) {
  json out = {{"t0", t0}, {"t1", t1}, {"seconds", t1 - t0}};
  auto c0 = counter_at(s, t0), c1 = counter_at(s, t1);
  if (!c0 || !c1) return out;
  double counter = static_cast<double>(c1->second - c0->second) / 1000.0;
  out["counter_j"] = counter;
  out["counter_avg_w"] = counter / (t1 - t0);
  int k10 = std::max(1, static_cast<int>(std::lround(hz / 10.0)));
  auto ten_hz = every(s, k10);
  auto add = [&](const char* key, std::optional<double> e) {
    if (!e) return;
    out[key] = {{"energy_j", *e}, {"vs_counter_pct", pct(*e, counter)}};
  };
  add("instant_trapezoid",
      ec::meter::trapezoid_between_j(s, &PowerSample::power_instant_w, t0, t1));
  add("instant_trapezoid_10hz",
      ec::meter::trapezoid_between_j(ten_hz, &PowerSample::power_instant_w, t0, t1));
  // GetPowerUsage and field 185 are read on the sampler's slow ticks (~10 Hz) only.
  add("power_usage_trapezoid_10hz",
      ec::meter::trapezoid_between_j(s, &PowerSample::power_usage_w, t0, t1));
  add("power_average_field_trapezoid",
      ec::meter::trapezoid_between_j(s, &PowerSample::power_average_w, t0, t1));
  add("driver_samples_trapezoid", driver_between(drv, t0, t1));
  if (auto m = ec::meter::trapezoid_between_j(s, &PowerSample::memory_power_w, t0, t1)) {
    out["memory_power_avg_w"] = *m / (t1 - t0);
  }
  return out;
}

// Counter vs instant trapezoid on consecutive sub-windows of length L inside [t0, t1].
json short_windows(const std::vector<PowerSample>& s, double t0, double t1) {
  json out = json::array();
  for (double len : {0.1, 0.25, 0.5, 1.0, 2.0, 5.0}) {
    std::vector<double> errs;
    for (double a = t0; a + len <= t1; a += len) {
      auto c0 = counter_at(s, a), c1 = counter_at(s, a + len);
      auto tr = ec::meter::trapezoid_between_j(s, &PowerSample::power_instant_w, a, a + len);
      if (!c0 || !c1 || !tr || *tr <= 0) continue;
      errs.push_back(std::abs(pct(static_cast<double>(c1->second - c0->second) / 1000.0, *tr)));
    }
    if (errs.empty()) continue;
    double mean = 0, worst = 0;
    for (double e : errs) {
      mean += e;
      worst = std::max(worst, e);
    }
    out.push_back({{"window_s", len},
                   {"n", errs.size()},
                   {"mean_abs_pct", mean / static_cast<double>(errs.size())},
                   {"max_abs_pct", worst}});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  Args a = parse(argc, argv);
  setenv("EC_MARKS", a.marks.c_str(), 1);
  std::remove(a.marks.c_str());
  ec::meter::MeterOptions options;
  options.hz = a.hz;
  options.counter_hz = a.counter_hz;
  json costs;
  if (a.costs > 0) costs = call_costs(options, a.costs);
  std::string reason;
  auto meter = ec::meter::NvmlMeter::open(options, &reason);
  if (!meter) ec::fail("meter_probe: no NVML meter: {}", reason);
  ec::meter::MeasureOptions measure;
  measure.idle_seconds = a.idle_s;
  auto result = ec::meter::measure_command(*meter, a.command, measure);
  auto samples = meter->samples();
  auto drv = meter->driver_samples();
  json report = result.report;

  // The steady phase the load marked, minus its first second (rise time, per Yang et al.).
  double start = NAN, end = NAN;
  if (std::ifstream marks(a.marks); marks) {
    std::string key;
    double t;
    while (marks >> key >> t) (key == "start" ? start : end) = t;
  }
  json probe;
  if (std::isfinite(start) && std::isfinite(end) && end - start > 1.5) {
    double t0 = start + 1.0, t1 = end;
    probe["steady_raw"] = compare(samples, drv, t0, t1, a.hz);
    // The whole load phase, rise included: where a 1 s moving average reads low.
    probe["load_phase"] = compare(samples, drv, start, end, a.hz);
    // Aligned: from the first counter change after t0 to the last before t1, so both edges sit on
    // counter updates and the counter's quantisation drops out.
    auto changes = counter_changes(samples);
    std::optional<double> c0, c1;
    for (const auto& [t, v] : changes) {
      if (t >= t0 && !c0) c0 = t;
      if (t <= t1) c1 = t;
    }
    if (c0 && c1 && *c1 > *c0) probe["steady_aligned"] = compare(samples, drv, *c0, *c1, a.hz);
    probe["short_windows"] = short_windows(samples, t0, t1);
  } else {
    probe["steady_note"] = fmt::format("no usable marks in {}", a.marks);
  }
  auto period = ec::meter::counter_update_period(samples);
  probe["counter_update"] = {{"changes", period.changes}};
  if (period.median_s) {
    probe["counter_update"]["mean_s"] = *period.mean_s;
    probe["counter_update"]["median_s"] = *period.median_s;
    probe["counter_update"]["min_s"] = *period.min_s;
    probe["counter_update"]["max_s"] = *period.max_s;
  }
  if (drv.size() > 1) {
    probe["driver_buffer"] = {
        {"samples", drv.size()},
        {"rate_hz", static_cast<double>(drv.size() - 1) / (drv.back().t_s - drv.front().t_s)}};
  }
  double wall = samples.empty() ? 0.0 : samples.back().t_s - samples.front().t_s;
  probe["sampler"] = {
      {"hz", a.hz},
      {"samples", samples.size()},
      {"wall_s", wall},
      {"cpu_s", meter->sampler_cpu_seconds()},
      {"cpu_pct_of_one_core", wall > 0 ? 100.0 * meter->sampler_cpu_seconds() / wall : 0.0},
      {"achieved_hz", wall > 0 ? static_cast<double>(samples.size() - 1) / wall : 0.0}};
  // Time per sampler read (fast tick, slow tick), from bursts of back-to-back reads after the run.
  {
    constexpr int kReads = 200;
    for (bool slow : {false, true}) {
      double t = ec::meter::steady_seconds();
      for (int i = 0; i < kReads; ++i) (void)meter->read_now(slow);
      probe[slow ? "read_cost_slow_ms" : "read_cost_fast_ms"] =
          (ec::meter::steady_seconds() - t) * 1000.0 / kReads;
    }
  }
  if (!costs.is_null()) probe["call_cost"] = costs;
  report["probe"] = probe;
  ec::write_file_atomic(a.out + "/probe.json", report.dump(2) + "\n");

  std::ostringstream csv;
  csv << "t_s,instant_w,average_w,usage_w,memory_w,energy_mj,sm_mhz,temp_c,reasons\n";
  auto opt = [](const auto& o) { return o ? fmt::format("{}", *o) : std::string(); };
  for (const auto& s : samples) {
    csv << fmt::format("{:.6f},{},{},{},{},{},{},{},{}\n", s.t_s, opt(s.power_instant_w),
                       opt(s.power_average_w), opt(s.power_usage_w), opt(s.memory_power_w),
                       opt(s.energy_mj), opt(s.sm_clock_mhz), opt(s.temperature_c),
                       opt(s.clock_event_reasons));
  }
  ec::write_file_atomic(a.out + "/samples.csv", csv.str());

  fmt::print("\n=== meter_probe ({} Hz) ===\n", a.hz);
  fmt::print("{}\n", probe.dump(2));
  return result.exit_status;
} catch (const std::exception& e) {
  fmt::print(stderr, "meter_probe: {}\n", e.what());
  return 1;
}
