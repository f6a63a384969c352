// Trapezoid integration, modular counter differences and counter update-period detection.
#include "meter/integration.h"

#include <algorithm>
#include <utility>

namespace ec::meter {
namespace {

std::vector<std::pair<double, double>> points(std::span<const PowerSample> samples,
                                              PowerField field) {
  std::vector<std::pair<double, double>> out;
  out.reserve(samples.size());
  for (const auto& s : samples) {
    if ((s.*field).has_value()) out.emplace_back(s.t_s, *(s.*field));
  }
  return out;
}

double trapezoid(const std::vector<std::pair<double, double>>& pts) {
  double energy = 0.0;
  for (size_t i = 1; i < pts.size(); ++i) {
    energy += 0.5 * (pts[i].second + pts[i - 1].second) * (pts[i].first - pts[i - 1].first);
  }
  return energy;
}

// Value at t by linear interpolation; pts sorted and pts.front().first <= t <= pts.back().first.
double interpolate(const std::vector<std::pair<double, double>>& pts, double t) {
  auto upper = std::lower_bound(pts.begin(), pts.end(), t,
                                [](const auto& p, double x) { return p.first < x; });
  if (upper == pts.begin()) return upper->second;
  if (upper == pts.end()) return pts.back().second;
  auto lower = upper - 1;
  double span = upper->first - lower->first;
  if (span <= 0.0) return upper->second;
  double w = (t - lower->first) / span;
  return lower->second + w * (upper->second - lower->second);
}

// ∫ over [t0, t1] of the linear interpolation; pts sorted and spanning [t0, t1].
double trapezoid_over(const std::vector<std::pair<double, double>>& pts, double t0, double t1) {
  std::vector<std::pair<double, double>> inside;
  inside.emplace_back(t0, interpolate(pts, t0));
  for (const auto& p : pts) {
    if (p.first > t0 && p.first < t1) inside.push_back(p);
  }
  inside.emplace_back(t1, interpolate(pts, t1));
  return trapezoid(inside);
}

}  // namespace

std::optional<double> trapezoid_j(std::span<const PowerSample> samples, PowerField field) {
  auto pts = points(samples, field);
  if (pts.size() < 2) return std::nullopt;
  return trapezoid(pts);
}

std::optional<double> trapezoid_j(std::span<const DriverSample> samples) {
  if (samples.size() < 2) return std::nullopt;
  std::vector<std::pair<double, double>> pts;
  pts.reserve(samples.size());
  for (const auto& s : samples) pts.emplace_back(s.t_s, s.power_w);
  return trapezoid(pts);
}

std::optional<double> driver_trapezoid_between_j(std::span<const DriverSample> samples, double t0,
                                                 double t1, double max_hold_s) {
  if (samples.empty() || t1 < t0) return std::nullopt;
  std::vector<std::pair<double, double>> pts;
  pts.reserve(samples.size() + 2);
  for (const auto& s : samples) pts.emplace_back(s.t_s, s.power_w);
  if (pts.front().first > t0) {
    if (pts.front().first - t0 > max_hold_s) return std::nullopt;
    pts.insert(pts.begin(), {t0, pts.front().second});
  }
  if (pts.back().first < t1) {
    if (t1 - pts.back().first > max_hold_s) return std::nullopt;
    pts.emplace_back(t1, pts.back().second);
  }
  return trapezoid_over(pts, t0, t1);
}

std::optional<double> trapezoid_between_j(std::span<const PowerSample> samples, PowerField field,
                                          double t0, double t1) {
  auto pts = points(samples, field);
  if (pts.size() < 2 || t1 < t0 || pts.front().first > t0 || pts.back().first < t1) {
    return std::nullopt;
  }
  return trapezoid_over(pts, t0, t1);
}

std::optional<double> trapezoid_held_j(std::span<const PowerSample> samples, PowerField field,
                                       double t0, double t1) {
  auto pts = points(samples, field);
  if (pts.empty() || t1 < t0) return std::nullopt;
  // A flat point at each edge outside the span: the trapezoid then holds the end values exactly.
  if (pts.front().first > t0) pts.insert(pts.begin(), {t0, pts.front().second});
  if (pts.back().first < t1) pts.emplace_back(t1, pts.back().second);
  return trapezoid_over(pts, t0, t1);
}

std::optional<double> counter_delta_j(unsigned long long begin_mj, unsigned long long end_mj) {
  unsigned long long delta = end_mj - begin_mj;    // modulo 2^64: a wrap reads as a small delta
  if (delta >= (1ULL << 63)) return std::nullopt;  // went backwards: a reset, not a wrap
  return static_cast<double>(delta) / 1000.0;
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

UpdatePeriod counter_update_period(std::span<const PowerSample> samples) {
  UpdatePeriod result;
  std::optional<unsigned long long> last;
  std::vector<double> change_times;
  for (const auto& s : samples) {
    if (!s.energy_mj) continue;
    if (last && *s.energy_mj != *last) change_times.push_back(s.t_s);
    last = s.energy_mj;
  }
  result.changes = static_cast<int>(change_times.size());
  std::vector<double> intervals;
  for (size_t i = 1; i < change_times.size(); ++i) {
    intervals.push_back(change_times[i] - change_times[i - 1]);
  }
  if (!intervals.empty()) {
    result.mean_s =
        (change_times.back() - change_times.front()) / static_cast<double>(change_times.size() - 1);
    result.median_s = median(intervals);
    result.min_s = *std::min_element(intervals.begin(), intervals.end());
    result.max_s = *std::max_element(intervals.begin(), intervals.end());
  }
  return result;
}

}  // namespace ec::meter
