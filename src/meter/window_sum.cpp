// sum_windows: one phase from many windows, energy and telemetry.
#include "meter/window_sum.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

namespace ec::meter {
namespace {

using nlohmann::json;

// {"min", "mean", "max"} over the windows that carry telemetry[path...]: the extremes of their
// extremes and the mean weighted by each window's seconds. Null when none carries it.
json merge_stats(const std::vector<WindowResult>& windows, const json::json_pointer& path) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  double weighted = 0.0;
  double seconds = 0.0;
  int n = 0;
  for (const auto& w : windows) {
    if (!w.telemetry.contains(path)) continue;
    const json& s = w.telemetry.at(path);
    if (!s.is_object() || !s.contains("mean")) continue;
    lo = std::min(lo, s.value("min", s["mean"].get<double>()));
    hi = std::max(hi, s.value("max", s["mean"].get<double>()));
    // A zero-length window still counts, a little, so that all-zero lengths give a plain mean.
    double weight = std::max(w.seconds, 1e-9);
    weighted += s["mean"].get<double>() * weight;
    seconds += weight;
    ++n;
  }
  if (n == 0) return nullptr;
  return {{"min", lo}, {"mean", weighted / seconds}, {"max", hi}};
}

void put_stats(json& out, const std::vector<WindowResult>& windows, const std::string& path) {
  json merged = merge_stats(windows, json::json_pointer(path));
  if (!merged.is_null()) out[json::json_pointer(path)] = merged;
}

}  // namespace

WindowResult sum_windows(const std::string& name, const std::vector<WindowResult>& windows) {
  WindowResult total;
  total.name = name;
  bool all_energy = !windows.empty();
  bool all_cross = !windows.empty();
  double energy = 0.0;
  double cross = 0.0;
  int short_windows = 0;
  // How the meter placed the windows' edges on the energy counter, and the energy it took off
  // at aligned ones (between an update and the work): the phase's audit trail.
  std::map<std::string, int> edge_kinds;
  double edge_offset_j = 0.0;
  double widest_bracket_s = 0.0;  // how far the least well placed counter update could be off
  std::set<std::string> reasons;
  std::set<unsigned> processes;
  std::map<std::string, int> nvml_errors;
  bool any_reasons = false, any_processes = false;
  bool throttled = false, shared_gpu = false, gpu_lost = false;
  long samples = 0;
  // Each cross-check's sum over the windows, kept only while every window has it.
  std::map<std::string, std::optional<double>> cross_sums = {{"power_samples_trapezoid_j", 0.0},
                                                             {"instant_power_trapezoid_j", 0.0}};
  for (const auto& w : windows) {
    const json& t = w.telemetry;
    total.seconds += w.seconds;
    if (const auto counter = t.find("counter"); counter != t.end()) {
      for (const char* side : {"begin_edge", "end_edge"}) {
        if (!counter->contains(side)) continue;
        const auto& edge = (*counter)[side];
        ++edge_kinds[edge.value("kind", std::string("?"))];
        edge_offset_j += edge.value("offset_j", 0.0);
        for (const char* bracket : {"update_bracket_s", "next_update_bracket_s"}) {
          widest_bracket_s = std::max(widest_bracket_s, edge.value(bracket, 0.0));
        }
      }
    }
    if (t.value("short_window", false)) ++short_windows;
    if (const auto r = t.find("clock_event_reasons"); r != t.end() && r->is_array()) {
      any_reasons = true;
      for (const auto& name_j : *r) reasons.insert(name_j.get<std::string>());
    }
    if (const auto p = t.find("gpu_processes"); p != t.end() && p->is_array()) {
      any_processes = true;
      for (const auto& pid : *p) processes.insert(pid.get<unsigned>());
    }
    if (const auto e = t.find("nvml_errors"); e != t.end() && e->is_array()) {
      for (const auto& err : *e) nvml_errors[err.value("code", "?")] += err.value("samples", 0);
    }
    throttled = throttled || t.value("throttled", false);
    shared_gpu = shared_gpu || t.value("shared_gpu", false);
    gpu_lost = gpu_lost || t.value("gpu_lost", false);
    samples += t.value("samples", 0L);
    if (w.energy_j) {
      energy += *w.energy_j;
      total.energy_source = w.energy_source;
    } else {
      all_energy = false;
    }
    // A sum of two different cross-checks would be neither: the phase then has none (its
    // telemetry still sums each kind where every window has it).
    if (w.cross_check_energy_j &&
        (total.cross_check_source.empty() || total.cross_check_source == w.cross_check_source)) {
      cross += *w.cross_check_energy_j;
      total.cross_check_source = w.cross_check_source;
    } else {
      all_cross = false;
    }
    for (auto& [key, sum] : cross_sums) {
      if (const auto v = t.find(key); v != t.end() && v->is_number()) {
        sum = sum ? std::optional<double>(*sum + v->get<double>()) : std::nullopt;
      } else {
        sum = std::nullopt;
      }
    }
  }
  if (all_energy) {
    total.energy_j = energy;
    if (total.seconds > 0) total.avg_power_w = energy / total.seconds;
  } else {
    total.energy_source.clear();
  }
  if (all_cross) {
    total.cross_check_energy_j = cross;
  } else {
    total.cross_check_source.clear();
  }

  json& tel = total.telemetry;
  tel["windows"] = windows.size();
  if (total.energy_j && total.cross_check_energy_j && *total.energy_j > 0.0) {
    tel["counter_vs_cross_check_pct"] = (*total.cross_check_energy_j / *total.energy_j - 1.0) * 100;
  }
  // The phase's difference between the counter and each cross-check (docs/method.md explains it).
  const std::pair<const char*, const char*> kinds[] = {
      {"power_samples_trapezoid_j", "counter_vs_power_samples_pct"},
      {"instant_power_trapezoid_j", "counter_vs_instant_pct"}};
  for (const auto& [sum_key, pct_key] : kinds) {
    const auto& sum = cross_sums.at(sum_key);
    if (!sum || windows.empty()) continue;
    tel[sum_key] = *sum;
    if (total.energy_j && *total.energy_j > 0.0) {
      tel[pct_key] = (*sum / *total.energy_j - 1.0) * 100.0;
    }
  }
  if (!edge_kinds.empty()) {
    tel["counter_edges"] = {{"kinds", edge_kinds},
                            {"offset_j", edge_offset_j},
                            {"widest_update_bracket_s", widest_bracket_s}};
  }
  for (const char* path : {"/temperature_c", "/sm_clock_mhz", "/mem_clock_mhz", "/power_w/instant",
                           "/power_w/memory", "/power_w/usage_1s_average"}) {
    put_stats(tel, windows, path);
  }
  if (any_reasons) {
    tel["clock_event_reasons"] = std::vector<std::string>(reasons.begin(), reasons.end());
    tel["throttled"] = throttled;
  }
  if (any_processes) {
    tel["gpu_processes"] = std::vector<unsigned>(processes.begin(), processes.end());
    tel["shared_gpu"] = shared_gpu;
  }
  if (!nvml_errors.empty()) {
    json errs = json::array();
    for (const auto& [code, count] : nvml_errors)
      errs.push_back({{"code", code}, {"samples", count}});
    tel["nvml_errors"] = errs;
  }
  if (gpu_lost) tel["gpu_lost"] = true;
  if (samples > 0) tel["samples"] = samples;
  if (short_windows > 0) {
    // A prefill of a short prompt lasts less than one 100 ms counter update: its own counter
    // figure can be 0 J. Each iteration's prefill + decode abut, so their sum (what J/token uses)
    // telescopes to one counter difference and is not affected; only this phase split is.
    tel["short_windows"] = short_windows;
    tel["note"] = fmt::format(
        "{} of {} windows were shorter than a few energy-counter updates: this phase's own counter "
        "figure is below the counter's resolution (see cross_check_energy_j); per-iteration totals "
        "are unaffected",
        short_windows, windows.size());
  }
  return total;
}

}  // namespace ec::meter
