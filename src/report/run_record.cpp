// Run-record helpers: basis names, totals from iterations, derived fields, build/host/meter facts.
#include "report/run_record.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "core/build_info.h"
#include "core/error.h"

namespace ec::report {
namespace {

std::string first_line_value(const char* path, std::string_view key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    auto pos = line.find_first_of(":=", key.size());
    if (pos == std::string::npos) continue;
    std::string value = line.substr(pos + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return {};
}

template <class T>
std::optional<T> optional_number(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

std::string string_or_empty(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// When the iterations are shorter than a few updates of the meter's energy counter, each
// iteration's energy is one of a few counter steps (the H200's counter moves every ~0.1 s, a
// 0.5B model decodes 256 tokens in ~0.15 s). The counter's phase is random against the windows,
// so the total stays unbiased, but each window is off by up to half a step in standard deviation:
// the total over n iterations of mean length T, by at most period / (2T) / sqrt(n).
std::string short_iteration_note(const std::vector<Iteration>& iterations,
                                 const MeterRecord& meter) {
  if (!meter.counter_update_period_s || *meter.counter_update_period_s <= 0.0) return {};
  const double period = *meter.counter_update_period_s;
  double seconds = 0.0;
  for (const auto& it : iterations) seconds += it.seconds;
  const auto n = static_cast<double>(iterations.size());
  const double mean = seconds / n;
  if (mean <= 0.0 || mean >= meter::kMinCounterUpdates * period) return {};
  const double uncertainty_pct = 100.0 * period / (2.0 * mean) / std::sqrt(n);
  return fmt::format(
      "each iteration lasted {:.3f} s on average, under {:.0f} updates of the energy counter "
      "({:.3f} s each), so each iteration's energy is a few counter steps; the total over {} "
      "iterations is uncertain by up to about ±{:.0f} % (one standard deviation): lengthen the "
      "iterations (--new-tokens) or add more (--iterations)",
      mean, meter::kMinCounterUpdates, period, iterations.size(), uncertainty_pct);
}

// Totals, basis and note of one side from its iterations; the meter decides whether energy is
// measured. Everything is derived afresh, so finalize() may run again on the same record.
void derive_results(DecodeRun& side, const MeterRecord& meter) {
  if (side.iterations.empty()) return;
  std::string note;
  Basis basis = Basis::measured;
  if (!meter.measures_energy) {
    basis = Basis::unavailable;
    note = fmt::format("no energy meter ({}): {}", meter.name,
                       meter.reason.empty() ? "reason not given" : meter.reason);
  } else {
    size_t measured = 0;
    std::optional<size_t> first_missing;
    for (size_t i = 0; i < side.iterations.size(); ++i) {
      if (side.iterations[i].energy_j) {
        ++measured;
      } else if (!first_missing) {
        first_missing = i;
      }
    }
    if (first_missing) {
      // A total with a hole is no measurement; the partial figures go too, so nothing reads them as
      // one.
      basis = Basis::unavailable;
      note = fmt::format(
          "meter '{}' returned no energy for iteration {} ({} of {} iterations had energy; "
          "their figures are not reported)",
          meter.name, *first_missing, measured, side.iterations.size());
      for (auto& it : side.iterations) it.energy_j.reset();
    } else {
      note = short_iteration_note(side.iterations, meter);
    }
  }
  side.results = summarize_iterations(side.iterations, basis, note);
}

}  // namespace

std::string_view basis_name(Basis basis) {
  switch (basis) {
    case Basis::measured:
      return "measured";
    case Basis::interpolated:
      return "interpolated";
    case Basis::extrapolated:
      return "extrapolated";
    case Basis::unavailable:
      return "unavailable";
  }
  return "unavailable";
}

Basis parse_basis(std::string_view text) {
  for (Basis b : {Basis::measured, Basis::interpolated, Basis::extrapolated, Basis::unavailable}) {
    if (basis_name(b) == text) return b;
  }
  fail("basis '{}' is not one of measured, interpolated, extrapolated, unavailable", text);
}

Results summarize_iterations(const std::vector<Iteration>& iterations, Basis basis,
                             std::string note) {
  Results r;
  r.basis = basis;
  r.note = std::move(note);
  int64_t tokens = 0;
  double seconds = 0.0;
  double energy = 0.0;
  bool all_energy = !iterations.empty();
  for (const auto& it : iterations) {
    tokens += it.tokens;
    seconds += it.seconds;
    if (it.energy_j) {
      energy += *it.energy_j;
    } else {
      all_energy = false;
    }
  }
  r.tokens_generated = tokens;
  r.seconds = seconds;
  if (seconds > 0.0) r.throughput_tok_s = static_cast<double>(tokens) / seconds;
  // An estimate or an unavailable figure never carries a summed energy.
  if (all_energy && basis == Basis::measured) {
    r.total_energy_j = energy;
    if (tokens > 0) r.energy_per_token_mj = energy / static_cast<double>(tokens) * 1000.0;
    if (seconds > 0.0) r.avg_power_w = energy / seconds;
  }
  return r;
}

void finalize(RunRecord& record) {
  // The meter's sources, when its description does not name them, are those its windows report.
  for (const auto& w : record.run.phases) {
    if (record.meter.energy_source.empty() && w.energy_j)
      record.meter.energy_source = w.energy_source;
    if (record.meter.cross_check_source.empty() && w.cross_check_energy_j) {
      record.meter.cross_check_source = w.cross_check_source;
    }
  }
  derive_results(record.run, record.meter);
  if (record.baseline) derive_results(*record.baseline, record.meter);

  Results& r = record.run.results;
  r.fp16_energy_per_token_mj.reset();
  r.vs_fp16_energy_pct.reset();
  if (record.baseline && r.basis != Basis::unavailable) {
    const auto& base = record.baseline->results.energy_per_token_mj;
    if (base && *base > 0.0) {
      r.fp16_energy_per_token_mj = *base;
      if (r.energy_per_token_mj)
        r.vs_fp16_energy_pct = (*r.energy_per_token_mj / *base - 1.0) * 100.0;
    }
  }

  if (record.quality) {
    Quality& q = *record.quality;
    if (q.perplexity && q.fp16_perplexity && *q.fp16_perplexity > 0.0) {
      q.delta_vs_fp16_pct = (*q.perplexity / *q.fp16_perplexity - 1.0) * 100.0;
    }
  }
}

MeterRecord describe_meter(const meter::Meter& meter) {
  MeterRecord m;
  m.name = meter.name();
  m.measures_energy = meter.measures_energy();
  m.reason = meter.unavailable_reason();
  m.details = meter.describe();
  if (!m.details.is_object()) m.details = nlohmann::json{{"description", m.details}};
  m.method = string_or_empty(m.details, "method");
  m.sample_rate_hz = optional_number<double>(m.details, "sample_rate_hz");
  if (!m.sample_rate_hz) m.sample_rate_hz = optional_number<double>(m.details, "sample_hz");
  m.counter_update_period_s = optional_number<double>(m.details, "counter_update_period_s");
  m.energy_source = string_or_empty(m.details, "energy_source");
  m.cross_check_source = string_or_empty(m.details, "cross_check_source");
  if (m.reason.empty() && !m.measures_energy) m.reason = string_or_empty(m.details, "reason");
  return m;
}

BuildRecord this_build() {
  const nlohmann::json b = build_info();
  BuildRecord r;
  r.version = b.value("version", "");
  r.commit = b.value("commit", "");
  r.compiler = b.value("compiler", "");
  r.build_type = b.value("build_type", "");
  if (b.contains("cuda") && b["cuda"].is_string()) r.cuda = b["cuda"].get<std::string>();
  r.cuda_architectures = b.value("cuda_architectures", "");
  r.static_link = b.value("static", false);
  return r;
}

Environment probe_host_environment() {
  Environment env;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) env.host = host;
  struct utsname uts {};
  std::string kernel;
  if (uname(&uts) == 0) kernel = fmt::format("{} {} {}", uts.sysname, uts.release, uts.machine);
  std::string distro = first_line_value("/etc/os-release", "PRETTY_NAME");
  env.os = distro.empty() ? kernel : fmt::format("{} ({})", distro, kernel);
  env.cpu = first_line_value("/proc/cpuinfo", "model name");
  if (env.cpu.empty()) env.cpu = "unknown";
  env.cpu_threads = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) env.cuda_visible_devices = visible;
  return env;
}

std::string utc_timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
}

}  // namespace ec::report
